// --bolt: BOLT's pre-aggregated profile of one image (llvm-bolt --pa), from
// exact branch counts.
// The format is report/export's (export_output.h).
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"

namespace hwt::report {
namespace {

class BoltOutput : public ExportRenderer {
 public:
  BoltOutput() : ExportRenderer(ExportFormat::kBolt) {}
};

HWT_REGISTER_OUTPUT("bolt", BoltOutput);

}  // namespace
}  // namespace hwt::report
