// --flame (the default output): the interactive SVG flame graph of the
// model's named tree (report/profile/flame_svg.h); of --diff BASE NEW, the
// differential flame graph: the new profile's shape, coloured by the change
// of every stack.
#include "absl/strings/str_cat.h"
#include "report/common/text_util.h"
#include "report/listing/decode_stats.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/profile/flame_svg.h"

namespace hwt::report {
namespace {

class FlameOutput : public Renderer {
 public:
  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    const analysis::ProfileStats& stats = model.profile->stats;
    FlameOptions flame =
        model.FlameFromFlags("Flame Graph", "Icicle Graph", model.unit.name);
    flame.subtitle = model.Subtitle();
    flame.scale = model.unit.scale;
    if (stats.gaps != 0) {
      flame.notes = absl::StrCat(
          Thousands(stats.gaps), stats.gaps == 1 ? " trace gap" : " trace gaps",
          " cut stacks (the frames say where); the code after a gap starts a "
          "new stack. ",
          DecodeErrorMessage(model.decode));
    }
    sink.Add(
        {"flame graph", request.value, true, "flame.svg",
         RenderFlameSvg(model.named_tree(), model.names().frames(), flame)});
    return absl::OkStatus();
  }

  bool RendersDiff() const override { return true; }
  absl::Status RenderDiff(DiffReportModel& model, const OutputRequest& request,
                          OutputSink& sink) override {
    const ReportFlags& flags = model.options();
    FlameOptions flame = FlameOptionsFromFlags(
        flags, model.min_width_px(), "Differential Flame Graph",
        "Differential Icicle Graph", "instructions");
    flame.subtitle =
        absl::StrCat(model.base_name(), " -> ", model.new_name(),
                     ": widths are the new profile, red grew and blue shrank ",
                     flags.absolute ? "(counts)" : "(shares of each total)");
    flame.node_delta = model.Deltas();
    sink.Add(
        {"differential flame graph", request.value, true, "diff.svg",
         RenderFlameSvg(model.new_tree(), model.new_names().frames(), flame)});
    return absl::OkStatus();
  }

  int DefaultPriority(const ReportModel&) const override { return 1; }
};

HWT_REGISTER_OUTPUT("flame", FlameOutput);

}  // namespace
}  // namespace hwt::report
