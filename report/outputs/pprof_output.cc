// --pprof: a pprof profile (gzip'd profile.proto) of the tree after the
// filters: one sample per (stack, executed instruction), with the trace's time;
// of a sampled profile, its samples and their latency.
// The format is report/export's (export_output.h).
#include "report/outputs/export_output.h"
#include "report/outputs/output_registry.h"

namespace hwt::report {
namespace {

class PprofOutput : public ExportRenderer {
 public:
  PprofOutput() : ExportRenderer(ExportFormat::kPprof) {}
};

HWT_REGISTER_OUTPUT("pprof", PprofOutput);

}  // namespace
}  // namespace hwt::report
