// The timeline export: the exact call/return timeline of every thread as
// Chrome trace-event JSON (what Perfetto's UI, chrome://tracing and
// speedscope open): one complete event ("ph":"X") per call, nested per
// thread, with the trace's time when it has timing (microseconds), else the
// thread's instruction count as the time axis (1 instruction = 1 us; the
// metadata says so). The timeline comes from the profile builder's own
// stacks (report/tree/call_timeline.h), bounded by its event cap; what
// was cut is said in the metadata.
#ifndef HWT_REPORT_EXPORT_CHROME_TRACE_H_
#define HWT_REPORT_EXPORT_CHROME_TRACE_H_

#include <string>
#include <vector>

#include "report/naming/symbolized_profile.h"
#include "report/tree/call_timeline.h"

namespace hwt::report {

struct ChromeTraceOptions {
  std::string name;            // the capture's name (metadata)
  double time_scale = 1.0;     // clock unit -> microseconds (by_time only)
  std::string time_unit = "";  // what the clock counts: "ns", "ticks"
  size_t max_events = 0;       // the cap the recorder had (metadata)
  // What the clock counts when it is not time: "instruction", or a sampled
  // profile's "sample".
  std::string count_unit = "instruction";
};

// `thread_names`: one per timeline thread (as speedscope names them).
std::string RenderChromeTrace(const CallTimeline& timeline,
                              const std::vector<std::string>& thread_names,
                              ProfileNames& names,
                              const ChromeTraceOptions& options);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_CHROME_TRACE_H_
