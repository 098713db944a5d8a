// hwt-report on an SPE capture: the SPE sample report (text or JSON),
// folded stacks, the flame graph, the HTML report and the pprof profile of
// its samples.
#include <memory>

#include "absl/strings/str_cat.h"
#include "analysis/spe_profile.h"
#include "base/file_util.h"
#include "report/common/symbolizer_resolver.h"
#include "report/common/text_util.h"
#include "report/driver/report_internal.h"
#include "report/export/export_input.h"
#include "report/export/pprof.h"
#include "report/html/spe_model.h"
#include "report/profile/folded.h"
#include "report/profile/symbolizer_symbols.h"
#include "report/spe/spe_report.h"
#include "report/spe/spe_symbolizer_source.h"

namespace hwt::report::driver {
namespace {

// The options the table marks control-flow only that are given.
bool ControlFlowOptionsGiven(const ReportFlags& given) {
  ReportFlags flags = given;
  return !SetOptions(ReportOptionTable(), flags, [](const OptionInfo& info) {
            return info.control_flow_only;
          }).empty();
}

OutputSpec SpeFlame(const RunContext& run,
                    const std::vector<SpeSampleStack>& stacks,
                    uint64_t samples) {
  FrameTable frames;
  const NamedTree tree =
      NamedTreeFromStacks(stacks, frames, [](std::string_view root) {
        return CategoryOfImage(root, root == "[kernel]");
      });
  FlameOptions flame =
      FlameFromFlags(run, "SPE Flame Graph", "SPE Icicle Graph", "samples");
  flame.subtitle =
      absl::StrCat(BaseName(run.flags.input.input), ": ", Thousands(samples),
                   " samples by image and function");
  return {"flame graph", run.flags.flame, true, "flame.svg",
          RenderFlameSvg(tree, frames, flame)};
}

// Exit 1 when runs of the trace could not be decoded.
int SpeExit(const spe::SpeStats& total) {
  if (total.skipped_ranges == 0) return kExitOk;
  PrintError(kTool,
             absl::StrCat(Thousands(total.skipped_ranges),
                          " undecodable runs, ", Thousands(total.bytes_skipped),
                          " bytes skipped: see hwt-decode --stats"));
  return kExitDecodeErrors;
}

}  // namespace

int RunSpe(const RunContext& run, const OpenedInput& input,
           symbolizer::Symbolizer& symbolizer) {
  const ReportFlags& options = run.flags;
  if (ControlFlowOptionsGiven(options)) {
    return Usage(
        "SPE captures have samples, not control flow: only the SPE report "
        "(text or --format json), --folded, --flame, --html, --pprof and "
        "--top N apply; the other exports are for PT and CoreSight");
  }
  SymbolizerResolver resolver(symbolizer);
  auto result =
      analysis::ProfileSpeCapture(*input.capture, input.timeline, &resolver);
  if (!result.ok()) return Fail(kTool, result.status());
  SymbolizerSymbolSource symbols(&symbolizer);
  SpeReportOptions spe_options;
  if (options.top != 0) spe_options.top = options.top;
  std::vector<OutputSpec> outputs;
  if (!options.folded.empty()) {
    outputs.push_back({"folded stacks", options.folded, false, "folded",
                       FormatSpeFolded(result->profile, &symbols)});
  }
  if (!options.flame.empty()) {
    outputs.push_back(SpeFlame(run, SpeSampleStacks(result->profile, &symbols),
                               result->profile.samples));
  }
  if (!options.html.empty()) {
    html::SpeModelInputs model;
    model.capture = input.capture.get();
    model.title = BaseName(options.input.input);
    model.result = &*result;
    model.symbols = &symbols;
    html::HtmlOptions html_options;
    html_options.prune_fraction = run.min_width_px / FlameOptions().width;
    outputs.push_back({"HTML report", options.html, true, "report.html",
                       html::RenderSpeReport(model, html_options)});
  }
  if (!options.exports.pprof.empty()) {
    // The images, names and frames of the capture; no control flow.
    const analysis::Profile no_profile;
    const analysis::BlockExpansion no_expansion;
    SymbolizerProfileSymbols names(&symbolizer, &input.timeline);
    LiveExportInput export_input(no_profile, no_expansion, input.timeline,
                                 symbolizer, names);
    PprofOptions pprof;
    pprof.comment = BaseName(options.input.input);
    auto file = RenderSpePprof(export_input, result->profile, pprof);
    if (!file.ok()) return Fail(kTool, file.status());
    outputs.push_back(
        {"pprof profile", options.exports.pprof, true, "pb.gz", *file});
  }
  if (outputs.empty() || options.top != 0) {
    const bool json = options.format == "json";
    outputs.push_back(
        {"SPE report", "-", json, json ? "spe.json" : "spe.txt",
         json ? FormatSpeReportJson(result->profile, &symbols, spe_options)
              : FormatSpeReportText(result->profile, &symbols, spe_options)});
  }
  const int rc = WriteOutputs(outputs, run);
  if (rc != kExitOk) return rc;
  return SpeExit(result->stats.total);
}

}  // namespace hwt::report::driver
