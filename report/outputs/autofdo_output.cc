// --autofdo: AutoFDO's text profile of one image (create_llvm_prof
// --profiler=text), from exact branch counts.
// The format is report/export's (export_output.h).
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"

namespace hwt::report {
namespace {

class AutoFdoOutput : public ExportRenderer {
 public:
  AutoFdoOutput() : ExportRenderer(ExportFormat::kAutoFdo) {}
};

HWT_REGISTER_OUTPUT("autofdo", AutoFdoOutput);

}  // namespace
}  // namespace hwt::report
