// speedscope's JSON file format (https://www.speedscope.app/file-format-
// schema.json): shared frames {name, file?, line?}; one evented profile per
// thread, the exact call/return timeline (opens and closes balanced, `at`
// non-decreasing; clock = instructions, or time when the trace has it); and
// one sampled profile of the merged call tree (each stack with its own
// weight, inline frames expanded).
#ifndef HWT_REPORT_PROFILE_SPEEDSCOPE_H_
#define HWT_REPORT_PROFILE_SPEEDSCOPE_H_

#include <string>
#include <vector>

#include "decoders/decoder.h"
#include "report/naming/symbolized_profile.h"
#include "report/tree/call_timeline.h"

namespace hwt::report {

struct SpeedscopeOptions {
  std::string name;  // shown as the file's name in speedscope
  // speedscope unit of the weights: "none" (instructions, timestamp ticks)
  // or "nanoseconds".
  std::string unit = "none";
  // Multiplies timeline clocks and weights (e.g. timestamp ticks -> ns).
  double scale = 1.0;
  std::string sampled_name = "all threads";
};

// `timeline` may be null (no evented profiles); `thread_names[i]` names
// timeline->threads[i] (a default name when missing).
std::string RenderSpeedscope(const NamedTree& sampled,
                             const CallTimeline* timeline,
                             const std::vector<std::string>& thread_names,
                             ProfileNames& names,
                             const SpeedscopeOptions& options);

// The threads' names: each stream's name ("buffer 0 (thread 0)"), in CPU
// mode with the context ID the thread ran under.
std::vector<std::string> SpeedscopeThreadNames(
    const CallTimeline& timeline, const std::vector<StreamInfo>& streams,
    bool cpu_mode);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_SPEEDSCOPE_H_
