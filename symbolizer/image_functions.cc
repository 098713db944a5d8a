// Symbol table choice and PLT pseudo-functions; see image_functions.h.
#include "symbolizer/image_functions.h"

#include <limits>
#include <utility>
#include <vector>

#include "symbolizer/demangle.h"

namespace hwt::symbolizer {
namespace {

void SetSection(const ElfImage& from, uint32_t index, FunctionCandidate* c) {
  if (index == 0 || index >= from.sections().size()) return;
  const ElfSection& section = from.sections()[index];
  c->in_section = true;
  c->section_start = section.addr;
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  c->section_end =
      section.size > max - section.addr ? max : section.addr + section.size;
}

}  // namespace

ImageFunctions BuildImageFunctions(const ElfImage& image, const ElfImage* debug,
                                   bool use_debug_symbols, bool demangle) {
  ImageFunctions out;
  const ElfImage* from = nullptr;
  const std::vector<ElfFunctionSymbol>* symbols = nullptr;
  if (!image.symtab_functions().empty()) {
    from = &image;
    symbols = &image.symtab_functions();
    out.source = ImageInfo::SymbolSource::kSymtab;
  }
  if (use_debug_symbols && debug != nullptr &&
      debug->symtab_functions().size() >
          (symbols ? symbols->size() : size_t{0})) {
    from = debug;
    symbols = &debug->symtab_functions();
    out.source = ImageInfo::SymbolSource::kDebugFileSymtab;
  }
  if (symbols == nullptr && !image.dynsym_functions().empty()) {
    from = &image;
    symbols = &image.dynsym_functions();
    out.source = ImageInfo::SymbolSource::kDynsym;
  }

  std::vector<FunctionCandidate> candidates;
  if (symbols != nullptr) {
    out.symbol_count = symbols->size();
    candidates.reserve(symbols->size() + image.plt_entries().size());
    for (const ElfFunctionSymbol& s : *symbols) {
      FunctionCandidate c;
      c.symbol.raw_name = s.name;
      c.symbol.name = DisplayName(s.name, demangle);
      c.symbol.start = s.value;
      c.symbol.size = s.size;
      c.symbol.thumb = s.thumb;
      SetSection(*from, s.section, &c);
      candidates.push_back(std::move(c));
    }
  }
  for (const ElfPltEntry& e : image.plt_entries()) {
    FunctionCandidate c;
    c.symbol.raw_name = e.name + "@plt";
    c.symbol.name = DisplayName(e.name, demangle) + "@plt";
    c.symbol.start = e.address;
    c.symbol.plt = true;
    SetSection(image, e.section, &c);
    candidates.push_back(std::move(c));
  }
  out.plt_count = image.plt_entries().size();
  out.table = FunctionTable(std::move(candidates));
  return out;
}

}  // namespace hwt::symbolizer
