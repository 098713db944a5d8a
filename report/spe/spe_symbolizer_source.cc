// SpeSymbolSource over the Symbolizer; see spe_symbolizer_source.h.
#include "report/spe/spe_symbolizer_source.h"

namespace hwt::report {

std::string SymbolizerSymbolSource::FunctionName(uint32_t image,
                                                 uint64_t start) {
  const symbolizer::FunctionSymbol* symbol =
      symbolizer_->FunctionFor(image, start);
  return symbol == nullptr ? std::string() : symbol->name;
}

std::optional<SpeSymbol> SymbolizerSymbolSource::DataSymbolAt(uint32_t image,
                                                              uint64_t vaddr) {
  const symbolizer::FunctionSymbol* symbol =
      symbolizer_->FunctionFor(image, vaddr);
  if (symbol == nullptr) return std::nullopt;
  return SpeSymbol{symbol->name, symbol->start, symbol->size};
}

}  // namespace hwt::report
