// --profgen: llvm-profgen's unsymbolized profile of one image, from exact
// branch counts.
// The format is report/export's (export_output.h).
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"

namespace hwt::report {
namespace {

class ProfgenOutput : public ExportRenderer {
 public:
  ProfgenOutput() : ExportRenderer(ExportFormat::kProfgen) {}
};

HWT_REGISTER_OUTPUT("profgen", ProfgenOutput);

}  // namespace
}  // namespace hwt::report
