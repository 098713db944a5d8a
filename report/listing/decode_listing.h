// hwt-decode's listings: one line per executed instruction (--insn), per block
// (--blocks), per branch (--branches) or per call (--calls, indented), as text
// or JSON lines, with addresses named function+offset. An EventSink: it
// follows each stream's address space itself (MemoryImage advanced by the
// events' trace offsets) to expand blocks and disassemble.
#ifndef HWT_REPORT_LISTING_DECODE_LISTING_H_
#define HWT_REPORT_LISTING_DECODE_LISTING_H_

#include <memory>
#include <optional>
#include <vector>

#include "base/output.h"
#include "capture/address_space.h"
#include "decoders/decoder.h"
#include "decoders/event.h"
#include "decoders/memory_image.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

enum class ListingMode { kInsn, kBlocks, kBranches, kCalls };

struct ListingOptions {
  ListingMode mode = ListingMode::kBlocks;
  bool json = false;
  // Only this stream (index into the decoder's streams); nullopt = all.
  std::optional<uint32_t> stream;
};

class DecodeListing : public EventSink {
 public:
  // `symbols` may be null (addresses are then named [image+0xoff]).
  DecodeListing(const std::vector<StreamInfo>& streams,
                const capture::AddressSpaceTimeline& timeline,
                symbolizer::Symbolizer* symbols, ListingOptions options,
                Output* out);
  ~DecodeListing() override;

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;
  void OnStreamEnd(uint32_t stream) override;

  // Blocks that could not be expanded into instructions (--insn/--branches):
  // the block is then listed as one line with the reason.
  uint64_t walk_errors() const { return walk_errors_; }

 private:
  struct StreamState;
  StreamState& State(uint32_t stream);
  void Block(uint32_t stream, StreamState& state, const Event& event);
  // Block() for each listing mode.
  void ListBlock(uint32_t stream, StreamState& state, const Event& event);
  void ListInsns(uint32_t stream, StreamState& state, const Event& event);
  void ListBranches(uint32_t stream, StreamState& state, const Event& event);
  void ListInnerNotTakenBranches(uint32_t stream, StreamState& state,
                                 const Event& event);
  void ListCall(uint32_t stream, StreamState& state, const Event& event);
  void Other(uint32_t stream, StreamState& state, const Event& event);
  void ResolvePendingBranch(uint32_t stream, StreamState& state,
                            const Event* next_block);
  // The timeline region `address` of `event` is in: the event's own region
  // when it covers the address, else the stream's current mappings.
  std::optional<uint32_t> RegionOf(StreamState& state, const Event& event,
                                   uint64_t address);
  std::string Name(StreamState& state, const Event& event, uint64_t address);
  std::string Prefix(uint32_t stream, uint64_t offset) const;
  void Line(const std::string& text);

  const std::vector<StreamInfo>& streams_;
  const capture::AddressSpaceTimeline& timeline_;
  symbolizer::Symbolizer* symbols_;
  ListingOptions options_;
  Output* out_;
  std::shared_ptr<ImageFileCache> files_;
  std::vector<std::unique_ptr<StreamState>> states_;
  uint64_t walk_errors_ = 0;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_LISTING_DECODE_LISTING_H_
