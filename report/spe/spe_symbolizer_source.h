// SpeSymbolSource over the project's Symbolizer (images registered under the
// address-space timeline's indices). Built only where the symbolizer library
// is (see CMakeLists.txt). The Symbolizer answers function symbols only:
// DataSymbolAt() finds data inside code symbols (literal pools, jump tables)
// and nothing for STT_OBJECT variables until the Symbolizer offers a
// data-symbol lookup.
#ifndef HWT_REPORT_SPE_SPE_SYMBOLIZER_SOURCE_H_
#define HWT_REPORT_SPE_SPE_SYMBOLIZER_SOURCE_H_

#include "report/spe/spe_symbols.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

class SymbolizerSymbolSource : public SpeSymbolSource {
 public:
  explicit SymbolizerSymbolSource(symbolizer::Symbolizer* symbolizer)
      : symbolizer_(symbolizer) {}
  std::string FunctionName(uint32_t image, uint64_t start) override;
  std::optional<SpeSymbol> DataSymbolAt(uint32_t image,
                                        uint64_t vaddr) override;

 private:
  symbolizer::Symbolizer* symbolizer_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_SYMBOLIZER_SOURCE_H_
