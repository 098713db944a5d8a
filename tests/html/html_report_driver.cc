// hwt-html-driver: writes the HTML report of a capture through the
// libraries, as hwt-report does for its other outputs (open, symbolize,
// profile, expand blocks, name, render), for the HTML report's tests until
// hwt-report itself has --html. Test-only: not installed.
//   hwt-html-driver [--prune F] [--top-rows N] [input flags] INPUT OUT.html
#include <cstdio>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "analysis/spe_profile.h"
#include "base/file_util.h"
#include "base/output.h"
#include "report/common/symbol_names.h"
#include "report/common/symbolizer_resolver.h"
#include "report/html/profile_model.h"
#include "report/html/spe_model.h"
#include "report/profile/report_support.h"
#include "report/profile/symbolizer_symbols.h"
#include "report/spe/spe_symbolizer_source.h"
#include "symbolizer/symbolizer.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-html-driver";
namespace report = hwt::report;
namespace analysis = hwt::analysis;

int Write(const std::string& path, const std::string& page) {
  auto out = hwt::Output::Open(path);
  if (!out.ok()) return hwt::tools::Fail(kTool, out.status());
  out->Write(page);
  const absl::Status status = out->Commit();
  if (!status.ok()) return hwt::tools::Fail(kTool, status);
  return 0;
}

int Run(const hwt::tools::InputFlags& flags, const std::string& path,
        const report::html::HtmlOptions& options) {
  auto input = hwt::tools::OpenInput(flags, kTool, /*quiet=*/true);
  if (!input.ok()) return hwt::tools::Fail(kTool, input.status());
  hwt::symbolizer::SymbolizerOptions sym_options;
  auto symbolizer = hwt::symbolizer::Symbolizer::Create(sym_options);
  report::RegisterTimelineImages(input->timeline, *symbolizer);
  report::SymbolizerResolver resolver(*symbolizer);
  const std::string title = hwt::BaseName(flags.input);
  if (input->capture->manifest().backend == hwt::capture::Backend::kSpe) {
    auto result = analysis::ProfileSpeCapture(*input->capture, input->timeline,
                                              &resolver);
    if (!result.ok()) return hwt::tools::Fail(kTool, result.status());
    report::SymbolizerSymbolSource symbols(symbolizer.get());
    report::html::SpeModelInputs in;
    in.capture = input->capture.get();
    in.title = title;
    in.result = &*result;
    in.symbols = &symbols;
    return Write(path, report::html::RenderSpeReport(in, options));
  }
  auto profiled =
      analysis::ProfileCapture(*input->capture, input->timeline, resolver, {});
  if (!profiled.ok()) return hwt::tools::Fail(kTool, profiled.status());
  const analysis::Profile& profile = profiled->profile;
  analysis::ImageCodeReader reader(input->timeline);
  const analysis::BlockExpansion expansion =
      analysis::ExpandBlocks(profile, reader);
  report::SymbolizerProfileSymbols symbols(symbolizer.get(), &input->timeline);
  report::ProfileNames names(symbols);
  report::html::ProfileModelInputs in;
  in.capture = input->capture.get();
  in.title = title;
  in.profile = &profile;
  in.tree = &profile.merged;
  in.expansion = &expansion;
  in.names = &names;
  in.symbolizer = symbolizer.get();
  in.unit = report::ChooseWeightUnit(false, profile.has_time,
                                     input->capture->manifest());
  // As hwt-report's --folded: inline frames from the expanded blocks.
  in.tree_options.inline_frames = true;
  in.tree_options.profile = &profile;
  in.tree_options.expansion = &expansion;
  in.streams = profiled->streams;
  in.stats = profiled->stats;
  return Write(path, report::html::RenderProfileReport(in, options));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes the HTML report of a capture (test driver).", kTool};
  hwt::tools::InputFlags flags;
  hwt::tools::AddInputFlags(app, &flags);
  std::string out;
  report::html::HtmlOptions options;
  app.add_option("output", out, "the HTML file to write")->required();
  app.add_option("--prune", options.prune_fraction,
                 "leave out tree nodes below this share of the total");
  app.add_option("--top-rows", options.top_rows, "rows per top list");
  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  return Run(flags, out, options);
}
