// ProfileSymbols over the project's Symbolizer, for images registered under
// the address-space timeline's indices (pipeline/timeline_symbolizer.h does
// that).
#ifndef HWT_REPORT_NAMING_SYMBOLIZER_SYMBOLS_H_
#define HWT_REPORT_NAMING_SYMBOLIZER_SYMBOLS_H_

#include <optional>
#include <string>
#include <vector>

#include "capture/address_space.h"
#include "report/naming/profile_symbols.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

class SymbolizerProfileSymbols : public ProfileSymbols {
 public:
  SymbolizerProfileSymbols(symbolizer::Symbolizer* symbolizer,
                           const capture::AddressSpaceTimeline* timeline)
      : symbolizer_(symbolizer), timeline_(timeline) {}

  std::string FunctionName(uint32_t image, uint64_t start) override;
  std::string ImagePath(uint32_t image) override;
  bool IsKernelImage(uint32_t image) override;
  std::vector<std::vector<SourceFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) override;
  // The symbolizer knows function symbols only: data inside code (literal
  // pools, jump tables) is found, STT_OBJECT variables are not yet.
  std::optional<SymbolAt> SymbolContaining(uint32_t image,
                                           uint64_t vaddr) override;

 private:
  symbolizer::Symbolizer* symbolizer_;
  const capture::AddressSpaceTimeline* timeline_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_NAMING_SYMBOLIZER_SYMBOLS_H_
