// --speedscope: speedscope's JSON (report/profile/speedscope.h): the
// call/return timeline of every thread when the input is a capture, and
// the merged profile with inline frames and source lines.
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/speedscope.h"

namespace hwt::report {
namespace {

class SpeedscopeOutput : public Renderer {
 public:
  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override {
    return {.call_timeline = true, .source_lines = true};
  }

  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    SpeedscopeOptions speedscope;
    speedscope.name = model.name;
    speedscope.unit = model.unit.speedscope_unit;
    speedscope.scale = model.unit.scale;
    sink.Add(
        {"speedscope profile", request.value, true, "speedscope.json",
         RenderSpeedscope(model.named_tree(), model.call_timeline(),
                          model.thread_names(), model.names(), speedscope)});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("speedscope", SpeedscopeOutput);

}  // namespace
}  // namespace hwt::report
