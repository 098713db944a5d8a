// --folded: folded stacks (report/profile/folded.h) of the model's named
// tree, whose inline frames were looked up in one batch; of --diff BASE NEW,
// difffolded stacks (both weights per stack, FlameGraph's difffolded.pl
// format).
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/folded.h"
#include "report/tree/profile_diff.h"

namespace hwt::report {
namespace {

class FoldedOutput : public Renderer {
 public:
  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    sink.Add({"folded stacks", request.value, false, "folded",
              FoldedStacks(model.named_tree(), model.names().frames())});
    return absl::OkStatus();
  }

  bool RendersDiff() const override { return true; }
  absl::Status RenderDiff(DiffReportModel& model, const OutputRequest& request,
                          OutputSink& sink) override {
    sink.Add({"difffolded stacks", request.value, false, "diff.folded",
              DiffFolded(model.base_tree(), model.base_names().frames(),
                         model.new_tree(), model.new_names().frames())});
    return absl::OkStatus();
  }
};

HWT_REGISTER_OUTPUT("folded", FoldedOutput);

}  // namespace
}  // namespace hwt::report
