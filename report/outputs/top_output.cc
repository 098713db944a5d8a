// --top N: the N functions with the most self and total weight
// (report/profile/top_table.h) of the tree after the filters, as text or
// --format json; of --diff BASE NEW, the N functions that changed most.
#include "analysis/tree_functions.h"
#include "base/json_text.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/top_table.h"
#include "report/tree/profile_diff.h"

namespace hwt::report {
namespace {

class TopOutput : public Renderer {
 public:
  absl::Status Render(ReportModel& model, const OutputRequest&,
                      OutputSink& sink) override {
    const bool json = model.options().format == "json";
    TopOptions top;
    top.rows = model.options().top;
    top.count_name = model.unit.name;
    top.weight = model.unit.weight;
    top.scale = model.unit.scale;
    const analysis::TreeFunctions functions =
        analysis::FunctionsOfTree(model.tree);
    sink.Add({"top functions", "-", json, json ? "top.json" : "top.txt",
              json ? JsonText(TopTableJson(functions, model.names(), top),
                              JsonLayout::kIndented)
                   : RenderTopTable(functions, model.names(), top)});
    return absl::OkStatus();
  }

  bool RendersDiff() const override { return true; }
  absl::Status RenderDiff(DiffReportModel& model, const OutputRequest&,
                          OutputSink& sink) override {
    DiffOptions options;
    options.absolute = model.options().absolute;
    options.rows = model.options().top;
    const ProfileDiff diff = DiffProfiles(model.base(), model.now(), options);
    const bool json = model.options().format == "json";
    sink.Add({"changed functions", "-", json, json ? "diff.json" : "diff.txt",
              json ? JsonText(DiffJson(diff, options), JsonLayout::kIndented)
                   : RenderDiffText(diff, options)});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("top", TopOutput);

}  // namespace
}  // namespace hwt::report
