// The model of an SPE capture's HTML report; see spe_model.h.
#include "report/html/spe_model.h"

#include "report/html/capture_model.h"
#include "report/html/html_page.h"
#include "report/spe/spe_report.h"
#include "report/spe/spe_stats_report.h"

namespace hwt::report::html {

nlohmann::json SpeModel(const SpeModelInputs& in, const HtmlOptions& options) {
  const analysis::SpeProfile& profile = in.result->profile;
  nlohmann::json model = {{"format", "hwt-report-html"},
                          {"version", kModelVersion},
                          {"kind", "spe"},
                          {"title", in.title},
                          {"capture", CaptureJson(*in.capture)},
                          {"spe_stats", SpeCaptureStatsJson(in.result->stats)}};
  SpeReportOptions spe;
  spe.top = options.hot_rows;
  model["spe"] = SpeReportJson(profile, in.symbols, spe);
  // The flame graph as hwt-report --flame draws SPE samples: from the
  // folded lines, by image and function.
  FrameTable frames;
  const NamedTree tree = NamedTreeFromFolded(
      FormatSpeFolded(profile, in.symbols), frames, [](std::string_view root) {
        return CategoryOfImage(root, root == "[kernel]");
      });
  AddTree(tree, frames, options.prune_fraction, model);
  model["profile"] = {{"unit", "samples"},
                      {"scale", 1.0},
                      {"weight", "samples"},
                      {"samples", profile.samples}};
  model["limits"] = {{"spe_rows", options.hot_rows}};
  return model;
}

std::string RenderSpeReport(const SpeModelInputs& inputs,
                            const HtmlOptions& options) {
  return RenderPage(inputs.title + " - hwt-report",
                    ModelText(SpeModel(inputs, options)));
}

}  // namespace hwt::report::html
