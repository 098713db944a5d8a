// hwt-export-driver: a test-only front end over report/export until
// hwt-report carries the export flags (its option table, report/driver/):
// opens a capture as hwt-report does, profiles it, expands its blocks and
// writes the requested exports atomically. The round-trip tests
// (export_consumers_test.cc) run it and feed its files to the real tools.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "base/output.h"
#include "nlohmann/json.hpp"
#include "report/common/symbol_names.h"
#include "report/common/symbolizer_resolver.h"
#include "report/export/chrome_trace.h"
#include "report/export/control_flow.h"
#include "report/export/export_input.h"
#include "report/export/exports.h"
#include "report/profile/call_timeline.h"
#include "report/profile/report_support.h"
#include "report/profile/symbolized_profile.h"
#include "report/profile/symbolizer_symbols.h"
#include "symbolizer/symbolizer.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-export-driver";
namespace report = hwt::report;
namespace analysis = hwt::analysis;

struct Options {
  hwt::tools::InputFlags input;
  std::vector<std::pair<report::ExportFormat, std::string>> exports;
  std::string pprof, bolt, autofdo, profgen, llvm_sample, chrome_trace;
  std::string only_image;
  std::string summary;
  size_t max_events = 5'000'000;
};

int Write(const std::string& file, const std::string& what,
          const std::string& content) {
  auto out = hwt::Output::Open(file);
  if (!out.ok()) return hwt::tools::Fail(kTool, out.status());
  out->Write(content);
  absl::Status status = out->Commit();
  if (!status.ok()) {
    hwt::tools::PrintError(kTool, std::string(status.message()));
    return hwt::tools::kExitInternal;
  }
  fprintf(stderr, "%s: wrote %s (%s)\n", kTool, file.c_str(), what.c_str());
  return hwt::tools::kExitOk;
}

// What the round-trip tests compare the consumers' results with: the
// profile's own counts, for the export image (per instruction, per taken
// branch) and per function of every image.
std::string Summary(report::ExportInput& input, uint32_t image) {
  nlohmann::json out;
  const analysis::Profile& profile = input.profile();
  out["instructions"] = profile.stats.instructions;
  out["image"] = input.image(image).path;
  nlohmann::json insns = nlohmann::json::array();
  for (const analysis::InstructionStats& i : input.expansion().instructions) {
    if (i.image == image && i.count != 0) {
      insns.push_back(
          {i.vaddr, i.count, i.length, i.conditional, i.taken, i.not_taken});
    }
  }
  out["insns"] = std::move(insns);
  const report::ImageFlow flow =
      report::CollectImageFlow(profile, input.expansion(), image);
  nlohmann::json branches = nlohmann::json::array();
  for (const report::FlowBranch& b : flow.branches) {
    if (b.from_image == image && b.to_image == image) {
      branches.push_back({b.from, b.to, b.count});
    }
  }
  out["branches"] = std::move(branches);
  report::ProfileNames names(input.symbols());
  nlohmann::json functions = nlohmann::json::array();
  for (const analysis::FunctionStats& f : profile.functions) {
    if (f.frame.kind != analysis::FrameKind::kFunction) continue;
    functions.push_back({{"name", names.Name(f.frame)},
                         {"image", f.frame.image == image},
                         {"start", f.frame.start},
                         {"self", f.self_insns},
                         {"total", f.total_insns},
                         {"calls", f.calls}});
  }
  out["functions"] = std::move(functions);
  return out.dump() + "\n";
}

int Run(const Options& options) {
  auto input = hwt::tools::OpenInput(options.input, kTool, /*quiet=*/false);
  if (!input.ok()) return hwt::tools::Fail(kTool, input.status());
  hwt::symbolizer::SymbolizerOptions sym_options;
  sym_options.sysroot = options.input.sysroot;
  auto symbolizer = hwt::symbolizer::Symbolizer::Create(sym_options);
  report::RegisterTimelineImages(input->timeline, *symbolizer);

  analysis::CaptureProfileOptions profile_options;
  std::unique_ptr<report::CallTimelineRecorder> recorder;
  if (!options.chrome_trace.empty()) {
    recorder =
        std::make_unique<report::CallTimelineRecorder>(options.max_events);
    profile_options.observer = recorder.get();
  }
  report::SymbolizerResolver resolver(*symbolizer);
  auto profiled = analysis::ProfileCapture(*input->capture, input->timeline,
                                           resolver, profile_options);
  if (!profiled.ok()) return hwt::tools::Fail(kTool, profiled.status());
  const analysis::Profile& profile = profiled->profile;
  analysis::ImageCodeReader reader(input->timeline);
  const analysis::BlockExpansion expansion =
      analysis::ExpandBlocks(profile, reader);
  report::SymbolizerProfileSymbols symbols(symbolizer.get(), &input->timeline);
  report::LiveExportInput export_input(profile, expansion, input->timeline,
                                       *symbolizer, symbols);
  report::ExportRequest request;
  request.only_image = options.only_image;
  const std::pair<report::ExportFormat, const std::string*> files[] = {
      {report::ExportFormat::kPprof, &options.pprof},
      {report::ExportFormat::kBolt, &options.bolt},
      {report::ExportFormat::kAutoFdo, &options.autofdo},
      {report::ExportFormat::kProfgen, &options.profgen},
      {report::ExportFormat::kLlvmSample, &options.llvm_sample}};
  for (const auto& [format, file] : files) {
    if (file->empty()) continue;
    auto content =
        report::RenderExport(format, export_input, profile.merged, request);
    if (!content.ok()) return hwt::tools::Fail(kTool, content.status());
    const int rc =
        Write(*file, std::string(report::ExportDescription(format)), *content);
    if (rc != 0) return rc;
  }
  if (!options.summary.empty()) {
    auto image = report::SelectExportImage(export_input, options.only_image);
    if (!image.ok()) return hwt::tools::Fail(kTool, image.status());
    const int rc =
        Write(options.summary, "summary", Summary(export_input, *image));
    if (rc != 0) return rc;
  }
  if (recorder) {
    const report::CallTimeline timeline = recorder->Finish(false);
    report::ProfileNames names(symbols);
    report::ChromeTraceOptions chrome;
    chrome.name = hwt::BaseName(options.input.input);
    chrome.max_events = options.max_events;
    const int rc = Write(
        options.chrome_trace, "Chrome trace",
        report::RenderChromeTrace(
            timeline,
            report::SpeedscopeThreadNames(timeline, profiled->streams, false),
            names, chrome));
    if (rc != 0) return rc;
  }
  return hwt::TotalStats(profiled->stats).errors != 0
             ? hwt::tools::kExitDecodeErrors
             : hwt::tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Test driver of report/export: writes the exports of a capture.",
               kTool};
  Options options;
  hwt::tools::AddInputFlags(app, &options.input);
  app.add_option("--pprof", options.pprof, "FILE");
  app.add_option("--bolt", options.bolt, "FILE");
  app.add_option("--autofdo", options.autofdo, "FILE");
  app.add_option("--profgen", options.profgen, "FILE");
  app.add_option("--llvm-sample", options.llvm_sample, "FILE");
  app.add_option("--chrome-trace", options.chrome_trace, "FILE");
  app.add_option("--only-image", options.only_image, "NAME");
  app.add_option("--summary", options.summary, "FILE: the counts, as JSON");
  app.add_option("--max-events", options.max_events, "N");
  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  return Run(options);
}
