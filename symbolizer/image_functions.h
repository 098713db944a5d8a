// Chooses an image's function symbols (.symtab, a debug file's .symtab when
// richer, else .dynsym) and adds its PLT entries as NAME@plt, giving the
// FunctionTable that FunctionFor() searches.
#ifndef HWT_SYMBOLIZER_IMAGE_FUNCTIONS_H_
#define HWT_SYMBOLIZER_IMAGE_FUNCTIONS_H_

#include "symbolizer/elf_image.h"
#include "symbolizer/function_table.h"
#include "symbolizer/symbolizer.h"

namespace hwt::symbolizer {

struct ImageFunctions {
  FunctionTable table;
  ImageInfo::SymbolSource source = ImageInfo::SymbolSource::kNone;
  size_t symbol_count = 0;  // functions taken from the chosen symbol table
  size_t plt_count = 0;
};

// `debug` may be null. The debug file's .symtab replaces the image's tables
// when `use_debug_symbols` and it has more function symbols than the image's
// .symtab. A .symtab without function symbols counts as absent (the image
// then falls back to .dynsym).
ImageFunctions BuildImageFunctions(const ElfImage& image, const ElfImage* debug,
                                   bool use_debug_symbols, bool demangle);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_IMAGE_FUNCTIONS_H_
