// ProfileSymbols over the Symbolizer; see symbolizer_symbols.h.
#include "report/naming/symbolizer_symbols.h"

#include "absl/strings/str_cat.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

std::string SymbolizerProfileSymbols::FunctionName(uint32_t image,
                                                   uint64_t start) {
  const symbolizer::FunctionSymbol* symbol =
      symbolizer_->FunctionFor(image, start);
  if (symbol != nullptr && symbol->start == start) return symbol->name;
  return symbolizer::UnknownFunctionName(ImagePath(image), start);
}

std::string SymbolizerProfileSymbols::ImagePath(uint32_t image) {
  if (timeline_ != nullptr && image < timeline_->images().size()) {
    return timeline_->images()[image].recorded_path;
  }
  const symbolizer::ImageInfo* info = symbolizer_->GetImageInfo(image);
  return info != nullptr ? info->display_path : absl::StrCat("image", image);
}

bool SymbolizerProfileSymbols::IsKernelImage(uint32_t image) {
  return timeline_ != nullptr && image < timeline_->images().size() &&
         timeline_->images()[image].kernel;
}

std::vector<std::vector<SourceFrame>> SymbolizerProfileSymbols::SourceFrames(
    absl::Span<const CodeAddress> addresses) {
  std::vector<symbolizer::ImageAddress> query;
  query.reserve(addresses.size());
  for (const CodeAddress& a : addresses) query.push_back({a.image, a.vaddr});
  const std::vector<const std::vector<symbolizer::Frame>*> found =
      symbolizer_->SymbolizeBatch(query);
  std::vector<std::vector<SourceFrame>> out(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    for (const symbolizer::Frame& f : *found[i]) {
      out[i].push_back(SourceFrame{f.function, f.file, f.line, f.inlined});
    }
  }
  return out;
}

std::optional<SymbolAt> SymbolizerProfileSymbols::SymbolContaining(
    uint32_t image, uint64_t vaddr) {
  const symbolizer::FunctionSymbol* symbol =
      symbolizer_->FunctionFor(image, vaddr);
  if (symbol == nullptr) return std::nullopt;
  return SymbolAt{symbol->name, symbol->start, symbol->size};
}

}  // namespace hwt::report
