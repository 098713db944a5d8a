// The exports of report/export as outputs: one renderer class per format
// (exports.h's RenderExport over the model's export input and its tree
// after the filters), each registered by its own file (pprof_output.cc,
// bolt_output.cc, ...). The per-image formats need exact branch counts and
// refuse a sampled profile; pprof exports samples with their latency.
#ifndef HWT_REPORT_OUTPUTS_EXPORT_OUTPUT_H_
#define HWT_REPORT_OUTPUTS_EXPORT_OUTPUT_H_

#include <string>

#include "report/export/exports.h"
#include "report/outputs/output.h"
#include "report/outputs/report_model.h"

namespace hwt::report {

// The trace's time in an export: pprof's unit, and the timeline's.
struct ExportTimeUnit {
  std::string pprof_unit = "ticks";  // "nanoseconds" or "ticks"
  double to_pprof = 1.0;             // profile time -> pprof_unit
  std::string clock_unit = "ticks";  // "ns" or "ticks"
  double to_micros = 1.0;            // profile time -> microseconds (ns)
};
ExportTimeUnit ExportTimeUnitOf(const WeightUnit& time_unit);

class ExportRenderer : public Renderer {
 public:
  explicit ExportRenderer(ExportFormat format) : format_(format) {}

  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override;
  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override;

 private:
  ExportFormat format_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_OUTPUTS_EXPORT_OUTPUT_H_
