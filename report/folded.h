// Folded stacks (Brendan Gregg's format, read by flamegraph.pl, inferno,
// speedscope, Perfetto) from a call tree: one line per unique stack, frame
// names root first joined by ';', a space, the weight; lines sorted
// bytewise, as docs/call-stacks.md specifies (the recorder's ground truth is
// compared with this output byte for byte). Names come from a FrameNamer so
// that analysis/ stays name-free (hwt-report's is ProfileNames::Name, which
// follows the naming rules of docs/call-stacks.md).
#ifndef HWT_REPORT_FOLDED_H_
#define HWT_REPORT_FOLDED_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analysis/block_expansion.h"
#include "analysis/frame.h"
#include "analysis/profile.h"

namespace hwt::report {

using FrameNamer = std::function<std::string(const analysis::FrameKey&)>;

enum class FoldedWeight { kInstructions, kTime };

// Optional expansion of inline frames: a node's own instructions are split
// by the DWARF inline frames of each instruction address and appear as extra
// leaf frames below the node's function. (Calls made from inlined code stay
// below the real function.)
struct FoldedInlines {
  const analysis::Profile* profile = nullptr;
  const analysis::BlockExpansion* expansion = nullptr;
  // Inline frames at (image, vaddr), outermost first, the real function
  // excluded; empty when the address is not inlined code.
  std::function<std::vector<std::string>(uint32_t image, uint64_t vaddr)>
      frames;
};

struct FoldedOptions {
  FoldedWeight weight = FoldedWeight::kInstructions;
  // Instruction weight only; null: no inline frames.
  const FoldedInlines* inlines = nullptr;
};

// The folded text of `tree` (a thread's tree or the merged one). Calls the
// namer once per unique frame. Lines of weight 0 and [gap] leaves are left
// out; stacks with equal text share one line.
std::string FoldedStacks(const analysis::CallTree& tree,
                         const FrameNamer& namer,
                         const FoldedOptions& options = {});

// Writes FoldedStacks atomically (no half-written file on error).
absl::Status WriteFoldedStacks(const std::string& path,
                               const analysis::CallTree& tree,
                               const FrameNamer& namer,
                               const FoldedOptions& options = {});

}  // namespace hwt::report

#endif  // HWT_REPORT_FOLDED_H_
