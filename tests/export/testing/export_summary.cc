// ProfileSummary: open, profile and expand a capture as hwt-report does,
// then list the counts the exports are made from.
#include "tests/export/testing/export_summary.h"

#include <utility>

#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "base/status_macros.h"
#include "pipeline/symbolizer_resolver.h"
#include "pipeline/timeline_symbolizer.h"
#include "report/export/control_flow.h"
#include "report/export/export_input.h"
#include "report/naming/symbolized_profile.h"
#include "report/naming/symbolizer_symbols.h"
#include "symbolizer/symbolizer.h"
#include "tools/tool_common.h"

namespace hwt::export_test {

namespace analysis = hwt::analysis;
namespace report = hwt::report;

namespace {

nlohmann::json Summarize(report::ExportInput& input, uint32_t image) {
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
  return out;
}

}  // namespace

absl::StatusOr<nlohmann::json> ProfileSummary(const std::string& capture,
                                              const std::string& only_image) {
  hwt::tools::InputFlags flags;
  flags.input = capture;
  HWT_ASSIGN_OR_RETURN(hwt::tools::OpenedInput input,
                       hwt::tools::OpenInput(flags, "export test", true));
  auto symbolizer = hwt::symbolizer::Symbolizer::Create({});
  pipeline::RegisterTimelineImages(input.timeline, *symbolizer);
  pipeline::SymbolizerResolver resolver(*symbolizer);
  HWT_ASSIGN_OR_RETURN(
      auto profiled,
      analysis::ProfileCapture(*input.capture, input.timeline, resolver, {}));
  const analysis::Profile& profile = profiled.profile;
  analysis::ImageCodeReader reader(input.timeline);
  const analysis::BlockExpansion expansion =
      analysis::ExpandBlocks(profile, reader);
  report::SymbolizerProfileSymbols symbols(symbolizer.get(), &input.timeline);
  report::LiveExportInput export_input(profile, expansion, input.timeline,
                                       *symbolizer, symbols);
  HWT_ASSIGN_OR_RETURN(const uint32_t image,
                       report::SelectExportImage(export_input, only_image));
  return Summarize(export_input, image);
}

}  // namespace hwt::export_test
