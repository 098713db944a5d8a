// --spe: the SPE sample report of an SPE capture (report/spe/spe_report.h):
// latency distributions, events, operation types, data sources, and
// samples, latencies and miss rates per function and instruction, data
// cache lines, pages and data symbols; text or --format json, --rows per
// list. It reads SPE's extension of the profile (analysis/spe_extension.h),
// and is the default output of an SPE capture.
#include "analysis/spe_extension.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"
#include "report/spe/spe_report.h"

namespace hwt::report {
namespace {

class SpeOutput : public Renderer {
 public:
  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    const auto* spe = model.Extension<analysis::SpeExtension>();
    if (spe == nullptr) {
      return absl::InvalidArgumentError(
          "--spe: the SPE sample report needs an SPE capture (a saved "
          "profile keeps the samples, not their SPE records)");
    }
    SpeReportOptions options;
    options.top = model.options().rows;
    const analysis::SpeProfile& profile = spe->result().profile;
    const bool json = model.options().format == "json";
    sink.Add({"SPE report", request.value, json, json ? "spe.json" : "spe.txt",
              json ? FormatSpeReportJson(profile, model.symbols, options)
                   : FormatSpeReportText(profile, model.symbols, options)});
    return absl::OkStatus();
  }

  // An SPE capture's report of its own, before the flame graph.
  int DefaultPriority(const ReportModel& model) const override {
    return model.Extension<analysis::SpeExtension>() != nullptr ? 2 : 0;
  }
};

HWT_REGISTER_OUTPUT("spe", SpeOutput);

}  // namespace
}  // namespace hwt::report
