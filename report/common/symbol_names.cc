// Implementation of the capture symbol naming helpers; see symbol_names.h.
#include "report/common/symbol_names.h"

#include "absl/strings/str_format.h"

namespace hwt::report {

std::string FunctionOffsetName(symbolizer::Symbolizer* symbols,
                               const capture::AddressSpaceTimeline& timeline,
                               uint32_t image, uint64_t vaddr) {
  if (symbols != nullptr) {
    if (const symbolizer::FunctionSymbol* fn =
            symbols->FunctionFor(image, vaddr)) {
      if (vaddr == fn->start) return fn->name;
      return absl::StrFormat("%s+0x%x", fn->name, vaddr - fn->start);
    }
  }
  if (image < timeline.images().size()) {
    return symbolizer::UnknownFunctionName(
        timeline.images()[image].recorded_path, vaddr);
  }
  return "[unknown]";
}

}  // namespace hwt::report
