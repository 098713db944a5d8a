// Call trees as indented text: top-down (each frame under its caller, with
// total and self weight and the calls that entered it) and bottom-up (each
// function with the weight it ran itself, and under it the callers through
// which that weight came, innermost first).
#ifndef HWT_REPORT_PROFILE_CALLGRAPH_TEXT_H_
#define HWT_REPORT_PROFILE_CALLGRAPH_TEXT_H_

#include <string>

#include "report/naming/symbolized_profile.h"

namespace hwt::report {

struct CallGraphTextOptions {
  std::string count_name = "instructions";
  double scale = 1.0;  // displayed weights = weights x scale
  // Frames below this share of the total are left out (with their
  // subtrees); 0 keeps everything.
  double min_percent = 0.0;
};

std::string RenderTopDownText(const NamedTree& tree, const FrameTable& frames,
                              const CallGraphTextOptions& options);
std::string RenderBottomUpText(const NamedTree& tree, const FrameTable& frames,
                               const CallGraphTextOptions& options);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_CALLGRAPH_TEXT_H_
