// Helpers shared by the CoreSight decoder tests: decoding a snapshot into
// memory, reading trc_pkt_lister listings (the corpus references, or the
// Debian lister run at test time) and comparing instruction ranges.
#ifndef HWT_DECODERS_CORESIGHT_TESTING_SNAPSHOT_DECODE_H_
#define HWT_DECODERS_CORESIGHT_TESTING_SNAPSHOT_DECODE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/coresight/coresight_decoder.h"
#include "decoders/decoder.h"

namespace hwt::coresight::testing {

// Keeps every event of every stream.
class CollectingSink : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;
  void OnStreamEnd(uint32_t stream) override { ended[stream]++; }

  std::map<uint32_t, std::vector<Event>> events;
  std::map<uint32_t, int> ended;
};

// A capture, its timeline and a decoder that has run.
struct Decoded {
  std::unique_ptr<capture::Capture> capture;
  capture::AddressSpaceTimeline timeline;
  std::unique_ptr<TraceDecoder> decoder;
  CollectingSink sink;

  // Stream of trace ID `id` in buffer `buffer`, or -1.
  int StreamOf(uint32_t id, size_t buffer = 0) const;
  std::vector<Event> Blocks(uint32_t stream) const;
};

absl::StatusOr<std::unique_ptr<Decoded>> DecodeCapture(
    std::unique_ptr<capture::Capture> capture, const DecoderOptions& options,
    const CoreSightOptions& cs_options = {});
absl::StatusOr<std::unique_ptr<Decoded>> DecodeSnapshot(
    const std::string& dir, const DecoderOptions& options = {},
    const CoreSightOptions& cs_options = {});

// One "Idx:N; ID:X; TEXT" line of a trc_pkt_lister listing.
struct ListingLine {
  uint64_t index = 0;
  uint32_t trace_id = 0;
  std::string text;  // after "ID:X; "
};
struct Range {
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t ninsn = 0;
  bool operator==(const Range& o) const {
    return start == o.start && end == o.end && ninsn == o.ninsn;
  }
};

// Runs `command` (through the shell) and calls `fn` for every line of its
// standard output that starts with "Idx:". Returns the exit status.
// trc_pkt_lister 1.3.3 also appends everything to ./trc_pkt_lister.ppl
// unless given "-logfilename /dev/null": every test command passes it.
int ForEachListingLine(const std::string& command,
                       const std::function<void(const ListingLine&)>& fn);
// Parses "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x..:[0x..] num_i(N)...".
bool ParseRange(const std::string& text, Range* range);

// INSTR_RANGE ranges and ADDR_NACC counts of a listing, per trace ID.
struct Listing {
  std::map<uint32_t, std::vector<Range>> ranges;
  std::map<uint32_t, std::vector<std::string>> range_lines;  // full lines
  std::map<uint32_t, uint64_t> nacc;
  int exit_status = 0;
};
Listing ReadListing(const std::string& command);

Range RangeOf(const Event& block);

// Insertions + deletions turning `a` into `b` (Myers' O(ND) diff).
size_t EditDistance(const std::vector<Range>& a, const std::vector<Range>& b);

// One place where `a` and `b` differ in a shortest edit script: a[a_begin,
// a_end) stands where b has b[b_begin, b_end). Everything between two hunks
// is equal in both.
struct DiffHunk {
  size_t a_begin = 0, a_end = 0, b_begin = 0, b_end = 0;
  size_t size() const { return (a_end - a_begin) + (b_end - b_begin); }
};
// The hunks of a shortest edit script from `a` to `b` (their sizes add up
// to EditDistance), or an empty optional when more than `max_edits` edits
// are needed (the script's memory grows with the square of its length).
std::optional<std::vector<DiffHunk>> DiffRanges(const std::vector<Range>& a,
                                                const std::vector<Range>& b,
                                                size_t max_edits);

}  // namespace hwt::coresight::testing

#endif  // HWT_DECODERS_CORESIGHT_TESTING_SNAPSHOT_DECODE_H_
