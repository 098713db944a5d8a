// The pipelines the benchmark suite times and the parallel-equality tests
// check, as a user runs them: decode a capture into its per-stream
// statistics (hwt-decode --stats), and profile it into folded stacks
// (hwt-report --folded: ProfileCapture + report::FoldedStacks). Also the
// baseline every figure is compared with: libipt's bare block decoder over a
// shared image section cache, producing nothing.
#ifndef HWT_BENCH_BENCH_PIPELINE_H_
#define HWT_BENCH_BENCH_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/capture_profile.h"
#include "analysis/function_resolver.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "recorder/synthetic_capture.h"
#include "report/profile/folded.h"
#include "symbolizer/symbolizer.h"

namespace hwt::bench {

// Function boundaries from a fixed sorted list (synthetic programs).
class RangeResolver : public analysis::FunctionResolver {
 public:
  explicit RangeResolver(std::vector<analysis::FunctionRange> ranges);
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t image,
                                                    uint64_t vaddr) override;

 private:
  std::vector<analysis::FunctionRange> ranges_;  // sorted by start
};

// The function boundaries of a synthetic program
// (recorder/synthetic_capture.h).
RangeResolver SyntheticResolver(const recorder::SyntheticProgram& program);

// Frame names for folded stacks as hwt-report gives them: from `symbols`, or
// (null) from a symbolizer of the timeline's images (code without symbols
// as "[image+0xoff]").
report::FrameNamer MakeNamer(symbolizer::Symbolizer* symbols,
                             const capture::AddressSpaceTimeline& timeline);

struct DecodeResult {
  std::vector<StreamStats> stats;
  uint64_t instructions = 0;
  // Intel PT with jobs > 1: the PSB segments planned, committed, dropped.
  uint64_t segments = 0, committed = 0, dropped = 0;
  std::string fast_note;  // CountFast: how the fast path went
};

// hwt-decode --stats: every event into a null sink, the statistics kept.
absl::StatusOr<DecodeResult> DecodeStats(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    const DecoderOptions& options);

// hwt-decode --stats --fast: TraceDecoder::CountInstructions, no events.
absl::StatusOr<DecodeResult> CountFast(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    const DecoderOptions& options);

struct FoldedResult {
  std::string folded;
  std::string profile_text;  // analysis::ProfileToText (with_text only)
  uint64_t instructions = 0;
  std::string engine_note;  // how much of the trace went which way
};

// hwt-report --folded: the capture's profile as folded stacks (merged tree,
// instruction weights).
absl::StatusOr<FoldedResult> ProfileFolded(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    analysis::FunctionResolver& resolver, const report::FrameNamer& namer,
    const analysis::CaptureProfileOptions& options, bool with_text = false);

struct BareResult {
  uint64_t instructions = 0;
  uint64_t blocks = 0;
  uint64_t errors = 0;
};

// libipt's block decoder alone over every buffer chunk of a PT capture, with
// the regions mapped at the start of each buffer in one shared image section
// cache, default flags, events drained, no output.
absl::StatusOr<BareResult> BareLibipt(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline);

}  // namespace hwt::bench

#endif  // HWT_BENCH_BENCH_PIPELINE_H_
