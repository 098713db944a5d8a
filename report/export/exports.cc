// RenderExport: the format switch.
#include "report/export/exports.h"

#include "base/status_macros.h"
#include "report/export/branch_profiles.h"
#include "report/export/control_flow.h"
#include "report/export/llvm_sample.h"

namespace hwt::report {

std::string_view ExportDescription(ExportFormat format) {
  switch (format) {
    case ExportFormat::kPprof:
      return "pprof profile";
    case ExportFormat::kBolt:
      return "BOLT pre-aggregated profile";
    case ExportFormat::kAutoFdo:
      return "AutoFDO text profile";
    case ExportFormat::kProfgen:
      return "llvm-profgen unsymbolized profile";
    case ExportFormat::kLlvmSample:
      return "LLVM sample profile";
  }
  return "";
}

std::string_view ExportSuffix(ExportFormat format) {
  switch (format) {
    case ExportFormat::kPprof:
      return "pb.gz";
    case ExportFormat::kBolt:
      return "bolt.pa";
    case ExportFormat::kAutoFdo:
      return "afdo.txt";
    case ExportFormat::kProfgen:
      return "profgen.txt";
    case ExportFormat::kLlvmSample:
      return "prof";
  }
  return "";
}

absl::StatusOr<std::string> RenderExport(ExportFormat format,
                                         ExportInput& input,
                                         const analysis::CallTree& tree,
                                         const ExportRequest& request) {
  if (format == ExportFormat::kPprof) {
    return RenderPprof(input, tree, request.pprof);
  }
  HWT_ASSIGN_OR_RETURN(const uint32_t image,
                       SelectExportImage(input, request.only_image));
  const ImageFlow flow =
      CollectImageFlow(input.profile(), input.expansion(), image);
  switch (format) {
    case ExportFormat::kBolt:
      return RenderBoltProfile(input.image(image), flow);
    case ExportFormat::kAutoFdo:
      return RenderAutoFdoText(input.image(image), flow);
    case ExportFormat::kProfgen:
      return RenderProfgenProfile(input.image(image), flow);
    case ExportFormat::kLlvmSample:
      return RenderSampleProfileText(BuildSampleProfile(input, flow));
    case ExportFormat::kPprof:
      break;
  }
  return absl::InternalError("unknown export format");
}

}  // namespace hwt::report
