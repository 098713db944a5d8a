// A small text format for hand-written event streams, used by the analysis
// tests and the golden files in testdata/analysis/NAME.events. One directive
// per line, '#' starts a comment; numbers are decimal or 0x-hex:
//
//   image NAME [kernel]                  next image (index 0, 1, ...)
//   region IMAGE START END [bias=B] [offset=O] [size=S] [buffer=N] [at=P]
//                                        next region, mapped in buffer N
//                                        (default: every buffer, one per
//                                        stream) from trace position P
//   unmap REGION [buffer=N] [at=P]
//   exec [buffer=N] [at=P]               an EXECUTABLE record: user regions
//                                        unmapped, stacks start afresh
//   function IMAGE START END NAME        a symbol [START, END) in ELF vaddrs
//   code IMAGE VADDR HEX...              code bytes of the image at VADDR
//                                        (hex pairs, spaces allowed)
//   option per_context                   ProfileOptions::per_context
//   stream N                             following events go to stream N
//   block IP LAST NINSN KIND [next=A] [time=T] [region=R] [offset=O]
//                                        KIND as BranchKindName ("call",
//                                        "cond-taken", ...); next defaults to
//                                        LAST + 1; region is 1 + index (0 =
//                                        look it up, the default)
//   gap REASON [time=T]                  REASON: decode-error, overflow,
//                                        lost-data, missing-image, no-sync
//   disabled [IP] [time=T] [interrupted=1]
//                              interrupted: kDisabledInterrupted (an
//                              asynchronous stop before IP executed)
//   enabled IP [time=T]
//   exception IP               exception-return [IP]
//   paging VALUE               context VALUE
//   timestamp T                a kTimestamp event; T becomes the time of the
//                              stream's following events
//   sync                       end (OnStreamEnd of the current stream)
//
// Events get offset = their line number unless given.
#ifndef HWT_ANALYSIS_TESTING_EVENT_SCRIPT_H_
#define HWT_ANALYSIS_TESTING_EVENT_SCRIPT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/frame.h"
#include "analysis/function_resolver.h"
#include "analysis/profile.h"
#include "analysis/profile_builder.h"
#include "capture/address_space.h"
#include "decoders/event.h"

namespace hwt::analysis::testing {

struct ScriptFunction {
  uint32_t image = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  std::string name;
};

struct ScriptEvent {
  uint32_t stream = 0;
  bool end_of_stream = false;  // "end": OnStreamEnd, no event
  Event event;
};

struct ScriptCode {
  uint32_t image = 0;
  uint64_t vaddr = 0;
  std::vector<uint8_t> bytes;
};

struct EventScript {
  capture::AddressSpaceTimeline timeline;
  std::vector<std::string> image_names;
  std::vector<ScriptFunction> functions;
  std::vector<ScriptCode> code;
  ProfileOptions options;
  std::vector<ScriptEvent> events;
};

absl::StatusOr<EventScript> ParseEventScript(std::string_view text);
absl::StatusOr<EventScript> ReadEventScript(const std::string& path);

// FunctionAt by the rules of docs/call-stacks.md over a list of symbols
// (highest start, then largest size, then name), counting its calls.
class FakeResolver : public FunctionResolver {
 public:
  explicit FakeResolver(std::vector<ScriptFunction> functions)
      : functions_(std::move(functions)) {}
  std::optional<FunctionRange> FunctionAt(uint32_t image,
                                          uint64_t vaddr) override;
  // Whether any symbol lies in the image.
  bool HasFunctions(uint32_t image) override;
  // The symbol at (image, start), if any.
  const ScriptFunction* Find(uint32_t image, uint64_t start) const;
  uint64_t calls() const { return calls_; }
  // Calls per (image, vaddr): the builder must ask once per address.
  const std::map<std::pair<uint32_t, uint64_t>, int>& calls_per_address()
      const {
    return per_address_;
  }

 private:
  std::vector<ScriptFunction> functions_;
  uint64_t calls_ = 0;
  std::map<std::pair<uint32_t, uint64_t>, int> per_address_;
};

// Code bytes from the script's "code" lines.
class ScriptCodeReader : public CodeReader {
 public:
  explicit ScriptCodeReader(const EventScript& script) : script_(script) {}
  absl::StatusOr<absl::Span<const uint8_t>> Read(uint32_t region,
                                                 uint64_t vaddr,
                                                 size_t size) override;

 private:
  const EventScript& script_;
};

// Frame names by docs/call-stacks.md from the script's symbols and image
// names: NAME, [BASENAME+0xOFF], [unknown], [gap].
std::string ScriptFrameName(const EventScript& script, const FrameKey& key);

// Delivers the script's events to `sink`, in batches of at most
// `max_batch` consecutive events of one stream.
void FeedEvents(const std::vector<ScriptEvent>& events, EventSink& sink,
                size_t max_batch = 64);

// Builds the profile of a script sequentially.
Profile BuildProfile(const EventScript& script, size_t max_batch = 64);

// Builds it as parallel decoding would: the events cut before each index in
// `cuts` (ascending), each piece run by its own segment builder, the pieces
// merged in order.
Profile BuildProfileInSegments(const EventScript& script,
                               const std::vector<size_t>& cuts,
                               size_t max_batch = 64);

// The weights of exactly-that-stack (root first, ';'-joined names, [gap]
// leaves and zero weights left out), summed by name text: what folded
// output shows, for asserting in tests.
std::map<std::string, uint64_t> StackWeights(const EventScript& script,
                                             const CallTree& tree,
                                             bool time = false);

// "" when equal, else the first line where `actual` differs from
// `expected`, with its number (gtest's own diff of large texts is far too
// slow).
std::string FirstDifference(const std::string& actual,
                            const std::string& expected);

}  // namespace hwt::analysis::testing

#endif  // HWT_ANALYSIS_TESTING_EVENT_SCRIPT_H_
