// hwt-report's export flags (--pprof, --bolt, --autofdo, --profgen,
// --llvm-sample, --chrome-trace) and what each one writes: the mapping from
// a requested flag to its exporter, so that the driver appends the rendered
// files to its outputs. The flags' rows are report/driver/report_options.cc.
#ifndef HWT_REPORT_EXPORT_EXPORT_OUTPUTS_H_
#define HWT_REPORT_EXPORT_EXPORT_OUTPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/profile.h"
#include "report/export/export_input.h"
#include "report/profile/call_timeline.h"
#include "report/profile/report_support.h"

namespace hwt::report {

// A flag given = requested; its value is the file ("-" = the default
// destination: -o, stdout, or NAME.SUFFIX when stdout is a terminal).
struct ExportFlags {
  std::string pprof, bolt, autofdo, profgen, llvm_sample, chrome_trace;
  bool any() const {
    return !pprof.empty() || !bolt.empty() || !autofdo.empty() ||
           !profgen.empty() || !llvm_sample.empty() || !chrome_trace.empty();
  }
  // Everything but the timeline needs the block expansion.
  bool needs_expansion() const { return any() && !only_timeline(); }
  bool only_timeline() const {
    return pprof.empty() && bolt.empty() && autofdo.empty() &&
           profgen.empty() && llvm_sample.empty() && !chrome_trace.empty();
  }
};

// One rendered export and where it goes (as the tool's other outputs).
struct ExportOutput {
  std::string what;    // "pprof profile", ...
  std::string file;    // the flag's value
  std::string suffix;  // of the default file name: NAME.SUFFIX
  std::string content;
};

struct ExportContext {
  ExportInput* input = nullptr;
  // The tree pprof exports: the merged call tree after the filters.
  const analysis::CallTree* tree = nullptr;
  // --chrome-trace: the recorded call timeline and its threads' names.
  const CallTimeline* timeline = nullptr;
  std::vector<std::string> thread_names;
  // The trace's time unit (ChooseWeightUnit with use_time): pprof's second
  // value and the timeline's axis when the profile has timing.
  WeightUnit time_unit;
  std::string only_image;  // the per-image formats' image ("" = main)
  std::string name;        // the capture's name (metadata)
  size_t max_events = 0;   // the timeline's cap (metadata)
};

// Renders every requested export, in flag order. InvalidArgument when the
// image of a per-image format is not in the capture.
absl::StatusOr<std::vector<ExportOutput>> RenderExportOutputs(
    const ExportFlags& flags, const ExportContext& context);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_EXPORT_OUTPUTS_H_
