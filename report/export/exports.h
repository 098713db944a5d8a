// One entry point for the profile exports (all but the timeline, which
// needs the trace's order: chrome_trace.h): a format, the input, the tree
// to export (the merged call tree after filters), and the options; the
// file's bytes come back. What a tool or the report driver maps a flag to.
#ifndef HWT_REPORT_EXPORT_EXPORTS_H_
#define HWT_REPORT_EXPORT_EXPORTS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analysis/profile.h"
#include "report/export/export_input.h"
#include "report/export/pprof.h"

namespace hwt::report {

enum class ExportFormat { kPprof, kBolt, kAutoFdo, kProfgen, kLlvmSample };

struct ExportRequest {
  // The image of the per-image formats (BOLT, AutoFDO, llvm-profgen, LLVM
  // sample): a base name or path; "" = the main executable.
  std::string only_image;
  PprofOptions pprof;
};

// What the format is called in messages ("pprof profile", ...) and the
// suffix of its default file name (NAME.SUFFIX).
std::string_view ExportDescription(ExportFormat format);
std::string_view ExportSuffix(ExportFormat format);

absl::StatusOr<std::string> RenderExport(ExportFormat format,
                                         ExportInput& input,
                                         const analysis::CallTree& tree,
                                         const ExportRequest& request);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_EXPORTS_H_
