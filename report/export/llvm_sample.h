// The LLVM sample profile export (text format, what clang's
// -fprofile-sample-use and llvm-profdata read), computed from exact
// per-instruction counts and the DWARF line tables of one image. The rules
// are llvm-profgen's, so that both agree on the same trace
// (docs/exports.md):
//   - a line's count (per line offset from the function's first line and
//     base discriminator) is the maximum over its instructions, each count
//     multiplied by its discriminator's duplication factor;
//   - a function's (and an inlined call site's) total is the sum over its
//     instructions, inlined code included, of count times instruction size
//     in bytes (llvm-profgen counts totals per byte);
//   - a branch to a function's entry is a call: it counts as a call target
//     at the branch's line and as the callee's head samples;
//   - code without line information (no DWARF) is left out.
#ifndef HWT_REPORT_EXPORT_LLVM_SAMPLE_H_
#define HWT_REPORT_EXPORT_LLVM_SAMPLE_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "report/export/control_flow.h"
#include "report/export/export_input.h"

namespace hwt::report {

// One function's samples (a top-level function, or a function inlined at a
// call site of its caller).
struct SampleFunction {
  std::string name;  // linkage name
  uint64_t total = 0;
  uint64_t head = 0;  // top-level functions only
  // (line offset, base discriminator) -> count.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> body;
  std::map<std::pair<uint32_t, uint32_t>, std::map<std::string, uint64_t>>
      calls;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, SampleFunction> inlined;
};

using SampleProfile = std::map<std::string, SampleFunction>;

// The samples of `flow`'s image (the flow gives the branches; the counts
// come from the input's expansion).
SampleProfile BuildSampleProfile(ExportInput& input, const ImageFlow& flow);

// The text format: "name:total:head", then " offset[.disc]: count
// [callee:count ...]" and " offset[.disc]: inlinee:total" with its lines one
// space further in.
std::string RenderSampleProfileText(const SampleProfile& profile);

// LLVM's discriminator encoding (DILocation): the base discriminator and
// the duplication factor.
uint32_t BaseDiscriminator(uint32_t discriminator);
uint32_t DuplicationFactor(uint32_t discriminator);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_LLVM_SAMPLE_H_
