// --chrome-trace: the call/return timeline of every thread as Chrome
// trace-event JSON (report/export/chrome_trace.h), on the trace's time when
// it has timing; a sampled profile's on its samples. It needs the trace's
// order, which saved profiles and merges no longer have.
#include "report/export/chrome_trace.h"
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"

namespace hwt::report {
namespace {

class ChromeTraceOutput : public Renderer {
 public:
  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override {
    return {.call_timeline = true, .requires_call_timeline = true};
  }

  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    const CallTimeline* timeline = model.chrome_timeline();
    if (timeline == nullptr) {
      return absl::InternalError("--chrome-trace: no call timeline recorded");
    }
    const ExportTimeUnit time = ExportTimeUnitOf(model.time_unit);
    ChromeTraceOptions chrome;
    chrome.name = model.name;
    chrome.max_events = model.options().max_events;
    chrome.time_scale = time.to_micros;
    chrome.time_unit = time.clock_unit;
    if (model.sampled()) chrome.count_unit = "sample";
    sink.Add({"Chrome trace", request.value, true, "trace.json",
              RenderChromeTrace(*timeline, model.thread_names(), model.names(),
                                chrome)});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("chrome-trace", ChromeTraceOutput);

}  // namespace
}  // namespace hwt::report
