// The exports as outputs; see export_output.h.
#include "report/outputs/export_output.h"

#include <utility>

#include "base/status_macros.h"
#include "report/export/saved_export_input.h"

namespace hwt::report {

ExportTimeUnit ExportTimeUnitOf(const WeightUnit& time_unit) {
  ExportTimeUnit out;
  if (time_unit.name == "ns") {
    out.pprof_unit = "nanoseconds";
    out.to_pprof = time_unit.scale;
    out.clock_unit = "ns";
    out.to_micros = time_unit.scale / 1000.0;
  }
  return out;
}

OutputNeeds ExportRenderer::Needs(const OutputRequest&,
                                  const ReportFlags&) const {
  return {.exact_counts = format_ != ExportFormat::kPprof};
}

absl::Status ExportRenderer::Render(ReportModel& model,
                                    const OutputRequest& request,
                                    OutputSink& sink) {
  if (model.saved != nullptr) {
    HWT_RETURN_IF_ERROR(CheckExportable(*model.saved));
  }
  ExportRequest export_request;
  export_request.only_image = model.options().image;
  PprofOptions& pprof = export_request.pprof;
  pprof.with_time = model.profile->has_time;
  pprof.comment = model.name;
  if (model.sampled()) {
    // Samples, and the time of a sample is its latency.
    pprof.count_type = "samples";
    pprof.time_type = "latency";
    pprof.time_unit = "cycles";
  } else {
    const ExportTimeUnit time = ExportTimeUnitOf(model.time_unit);
    pprof.time_unit = time.pprof_unit;
    pprof.time_scale = time.to_pprof;
  }
  HWT_ASSIGN_OR_RETURN(
      std::string content,
      RenderExport(format_, model.export_input(), model.tree, export_request));
  sink.Add({std::string(ExportDescription(format_)), request.value, true,
            std::string(ExportSuffix(format_)), std::move(content)});
  return absl::OkStatus();
}

}  // namespace hwt::report
