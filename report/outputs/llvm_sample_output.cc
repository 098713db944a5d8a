// --llvm-sample: an LLVM sample profile of one image (for clang's
// -fprofile-sample-use), from exact branch counts.
// The format is report/export's (export_output.h).
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"

namespace hwt::report {
namespace {

class LlvmSampleOutput : public ExportRenderer {
 public:
  LlvmSampleOutput() : ExportRenderer(ExportFormat::kLlvmSample) {}
};

HWT_REGISTER_OUTPUT("llvm-sample", LlvmSampleOutput);

}  // namespace
}  // namespace hwt::report
