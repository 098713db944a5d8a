// Folded stacks (Brendan Gregg's format, read by flamegraph.pl, inferno,
// speedscope, Perfetto) from a call tree: one line per unique stack, frame
// names root first joined by ';', a space, the weight; lines sorted
// bytewise, as docs/call-stacks.md specifies (the recorder's ground truth is
// compared with this output byte for byte). Names come from a FrameNamer so
// that analysis/ stays name-free (hwt-report's is ProfileNames::Name, which
// follows the naming rules of docs/call-stacks.md).
#ifndef HWT_REPORT_PROFILE_FOLDED_H_
#define HWT_REPORT_PROFILE_FOLDED_H_

#include <cstdint>
#include <functional>
#include <string>

#include "analysis/frame.h"
#include "analysis/profile.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {

using FrameNamer = std::function<std::string(const analysis::FrameKey&)>;

enum class FoldedWeight { kInstructions, kTime };

struct FoldedOptions {
  FoldedWeight weight = FoldedWeight::kInstructions;
};

// The folded text of `tree` (a thread's tree or the merged one). Calls the
// namer once per unique frame. Lines of weight 0 and [gap] leaves are left
// out; stacks with equal text share one line.
std::string FoldedStacks(const analysis::CallTree& tree,
                         const FrameNamer& namer,
                         const FoldedOptions& options = {});

// The folded text of a named tree (hwt-report's: frames named, inline frames
// split off by BuildNamedTree, weights chosen): one line per stack of the
// tree's own weights. Lines of weight 0 and [gap] frames are left out;
// stacks with equal text share one line.
std::string FoldedStacks(const NamedTree& tree, const FrameTable& frames);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_FOLDED_H_
