// --html: the interactive HTML report (report/html/): overview, flame
// graph, functions, disassembly and hot spots of a profile (with the SPE
// tables of an SPE capture, and the captures of a saved profile or a batch);
// of --diff BASE NEW, the differential report.
#include "analysis/spe_extension.h"
#include "report/html/diff_model.h"
#include "report/html/profile_model.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/tree/profile_diff.h"

namespace hwt::report {
namespace {

class HtmlOutput : public Renderer {
 public:
  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override {
    return {.hot_paths = true, .source_lines = true};
  }

  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    html::ProfileModelInputs in;
    in.capture = model.capture;
    in.saved = model.saved;
    in.captures = model.capture_rows;
    in.time_unit = model.time_unit;
    in.title = model.name;
    in.profile = model.profile;
    in.tree = &model.tree;
    in.expansion = &model.expansion();
    in.names = &model.names();
    in.symbolizer = model.symbolizer;
    in.unit = model.unit;
    in.tree_options = model.tree_options();
    in.hot = model.Hot();
    in.streams = model.streams;
    in.stats = model.stream_stats;
    in.filters = model.filters;
    if (const auto* spe = model.Extension<analysis::SpeExtension>()) {
      in.spe = &spe->result();
    }
    sink.Add({"HTML report", request.value, true, "report.html",
              html::RenderProfileReport(in, Options(model.min_width_px))});
    return absl::OkStatus();
  }

  bool RendersDiff() const override { return true; }
  absl::Status RenderDiff(DiffReportModel& model, const OutputRequest& request,
                          OutputSink& sink) override {
    DiffOptions diff_options;
    diff_options.absolute = model.options().absolute;
    diff_options.rows = 500;
    html::DiffModelInputs in;
    in.base_name = model.base_name();
    in.new_name = model.new_name();
    in.tree = &model.new_tree();
    in.frames = &model.new_names().frames();
    in.delta = model.Deltas();
    in.absolute = model.options().absolute;
    in.changes = DiffJson(DiffProfiles(model.base(), model.now(), diff_options),
                          diff_options);
    sink.Add({"differential HTML report", request.value, true,
              "diff.report.html",
              html::RenderDiffReport(in, Options(model.min_width_px()))});
    return absl::OkStatus();
  }

 private:
  // --min-width prunes the page's tree as it does the SVG's frames.
  static html::HtmlOptions Options(double min_width_px) {
    html::HtmlOptions options;
    options.prune_fraction = min_width_px / FlameOptions().width;
    return options;
  }
};

HWT_REGISTER_OUTPUT("html", HtmlOutput);

}  // namespace
}  // namespace hwt::report
