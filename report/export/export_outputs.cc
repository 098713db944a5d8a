// The mapping of hwt-report's export flags to the exporters (the flags
// themselves are rows of report/driver's option table).
#include "report/export/export_outputs.h"

#include <utility>

#include "base/status_macros.h"
#include "report/export/chrome_trace.h"
#include "report/export/exports.h"
#include "report/profile/report_support.h"
#include "report/profile/symbolized_profile.h"

namespace hwt::report {

namespace {

// The trace's time unit for pprof's second value and the timeline's axis.
struct TimeUnit {
  std::string pprof_unit;  // "nanoseconds" or "ticks"
  double to_pprof = 1.0;   // profile time -> pprof_unit
  std::string clock_unit;  // "ns" or "ticks"
  double to_micros = 1.0;  // profile time -> microseconds (ns only)
};

TimeUnit TimeUnitOf(const ExportContext& context) {
  TimeUnit out;
  const WeightUnit& unit = context.time_unit;
  if (unit.name == "ns") {
    out.pprof_unit = "nanoseconds";
    out.to_pprof = unit.scale;
    out.clock_unit = "ns";
    out.to_micros = unit.scale / 1000.0;
  } else {
    out.pprof_unit = "ticks";
    out.clock_unit = "ticks";
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ExportOutput>> RenderExportOutputs(
    const ExportFlags& flags, const ExportContext& context) {
  std::vector<ExportOutput> outputs;
  const TimeUnit time = TimeUnitOf(context);
  ExportRequest request;
  request.only_image = context.only_image;
  request.pprof.with_time = context.input->profile().has_time;
  request.pprof.time_unit = time.pprof_unit;
  request.pprof.time_scale = time.to_pprof;
  request.pprof.comment = context.name;
  const std::pair<ExportFormat, const std::string*> files[] = {
      {ExportFormat::kPprof, &flags.pprof},
      {ExportFormat::kBolt, &flags.bolt},
      {ExportFormat::kAutoFdo, &flags.autofdo},
      {ExportFormat::kProfgen, &flags.profgen},
      {ExportFormat::kLlvmSample, &flags.llvm_sample}};
  for (const auto& [format, file] : files) {
    if (file->empty()) continue;
    HWT_ASSIGN_OR_RETURN(
        std::string content,
        RenderExport(format, *context.input, *context.tree, request));
    outputs.push_back({std::string(ExportDescription(format)), *file,
                       std::string(ExportSuffix(format)), std::move(content)});
  }
  if (!flags.chrome_trace.empty()) {
    if (context.timeline == nullptr) {
      return absl::InternalError("--chrome-trace: no call timeline recorded");
    }
    ProfileNames names(context.input->symbols());
    ChromeTraceOptions chrome;
    chrome.name = context.name;
    chrome.max_events = context.max_events;
    chrome.time_scale = time.to_micros;
    chrome.time_unit = time.clock_unit;
    outputs.push_back({"Chrome trace", flags.chrome_trace, "trace.json",
                       RenderChromeTrace(*context.timeline,
                                         context.thread_names, names, chrome)});
  }
  return outputs;
}

}  // namespace hwt::report
