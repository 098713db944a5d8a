// --hot: hot blocks, conditional branches, taken edges, call paths,
// intra-procedural paths and loops (report/profile/hot_report.h), as text or
// --format json, restricted like the tree by --function and --only-image.
#include "base/json_text.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/hot_report.h"

namespace hwt::report {
namespace {

class HotOutput : public Renderer {
 public:
  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override {
    return {.hot_paths = true};
  }

  absl::Status Render(ReportModel& model, const OutputRequest&,
                      OutputSink& sink) override {
    const bool json = model.options().format == "json";
    const nlohmann::json report =
        HotReportJson(*model.profile, model.expansion(), model.tree,
                      model.names(), model.Hot());
    sink.Add({"hot spots", "-", json, json ? "hot.json" : "hot.txt",
              json ? JsonText(report, JsonLayout::kIndented)
                   : RenderHotReportText(report)});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("hot", HotOutput);

}  // namespace
}  // namespace hwt::report
