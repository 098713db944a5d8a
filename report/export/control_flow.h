// What the exporters share: where an image's addresses are in its file, which
// image an export is for, and the control flow of one image as the
// branch-profile formats (BOLT, AutoFDO, llvm-profgen) want it: ranges of
// instructions that ran straight through, taken branches with exact counts,
// and the places where one block ran into the next without a branch. All of
// it from the profile's unique blocks and block successions (exact: every
// branch of the trace is counted, none is sampled).
#ifndef HWT_REPORT_EXPORT_CONTROL_FLOW_H_
#define HWT_REPORT_EXPORT_CONTROL_FLOW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "report/export/export_input.h"

namespace hwt::report {

// The file offset of ELF address `vaddr` (nullopt outside the file bytes of
// every PT_LOAD segment).
std::optional<uint64_t> FileOffsetOf(const ExportImage& image, uint64_t vaddr);
// The first executable PT_LOAD segment (lowest address), or null.
const ExportSegment* FirstExecutableSegment(const ExportImage& image);

// The image an export is for: the one matching `only_image` (base name or
// path), else the main executable: the user-code image (not a shared object,
// not the kernel) that ran the most instructions. InvalidArgument saying
// which images exist when none fits.
absl::StatusOr<uint32_t> SelectExportImage(ExportInput& input,
                                           std::string_view only_image);

// Instructions [begin, end] (end: the last instruction's address) ran
// straight through `count` times; `after_return` of them were entered by a
// return (the rest by a branch, a fall-through, or the start of the trace).
struct FlowRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t count = 0;
  uint64_t after_return = 0;
};

// A taken branch (jump, taken conditional, call, return) from the
// instruction at `from` to `to`. An end outside the image has its image
// index (or analysis::kNoImage) and its own address.
struct FlowBranch {
  uint32_t from_image = analysis::kNoImage;
  uint64_t from = 0;
  uint32_t to_image = analysis::kNoImage;
  uint64_t to = 0;
  hwt::BranchKind kind = hwt::BranchKind::kNone;
  uint64_t count = 0;
};

// The block ending at `from` (an instruction that does not branch, or a
// conditional branch not taken) ran on into the one at `to`.
struct FlowContinuation {
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t count = 0;
};

// Taken branches of the image whose target the trace does not show (the
// trace stopped or lost data right after them, or an address filter left
// the target untraced): the block's count less its branch successions.
struct UnfollowedBranch {
  uint64_t from = 0;
  hwt::BranchKind kind = hwt::BranchKind::kNone;
  uint64_t count = 0;
};

struct ImageFlow {
  uint32_t image = analysis::kNoImage;
  std::vector<FlowRange> ranges;                // by (begin, end)
  std::vector<FlowBranch> branches;             // by (from, to): either end
  std::vector<FlowContinuation> continuations;  // by (from, to)
  std::vector<UnfollowedBranch> unfollowed;     // by from
  // Instructions of the image (the sum of range lengths times counts);
  // equal to the profile's when every block expanded.
  uint64_t instructions = 0;
};

// The control flow of `image`: ranges from its blocks, branches and
// continuations from the block successions with an end in it.
ImageFlow CollectImageFlow(const analysis::Profile& profile,
                           const analysis::BlockExpansion& expansion,
                           uint32_t image);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_CONTROL_FLOW_H_
