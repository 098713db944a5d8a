// What the report renderers need to name a profile: function names, image
// paths and kinds, and the source frames (DWARF inline frames, file:line) at
// an address. SymbolizerProfileSymbols (symbolizer_symbols.h) answers from
// the project's Symbolizer; tests answer from a hand-written table. Callers
// (ProfileNames) ask once per unique function or address, never per
// executed instruction.
#ifndef HWT_REPORT_NAMING_PROFILE_SYMBOLS_H_
#define HWT_REPORT_NAMING_PROFILE_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace hwt::report {

struct SourceFrame {
  std::string function;
  std::string file;  // empty when there is no line information
  uint32_t line = 0;
  bool inlined = false;  // all but the last frame of an address
};

struct CodeAddress {
  uint32_t image = 0;
  uint64_t vaddr = 0;
};

// A symbol of an image: its name and ELF range.
struct SymbolAt {
  std::string name;
  uint64_t start = 0;
  uint64_t size = 0;
};

class ProfileSymbols {
 public:
  virtual ~ProfileSymbols() = default;
  // Name of the function symbol starting at `start` of `image` (as the
  // profile's frames give it).
  virtual std::string FunctionName(uint32_t image, uint64_t start) = 0;
  // The image's path as the traced system saw it.
  virtual std::string ImagePath(uint32_t image) = 0;
  virtual bool IsKernelImage(uint32_t image) { return false; }
  // Per address: the frames there, innermost (inlined) first and the
  // containing function last; empty when unknown (no DWARF, no image).
  virtual std::vector<std::vector<SourceFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) {
    return std::vector<std::vector<SourceFrame>>(addresses.size());
  }
  // The symbol of `image` that contains `vaddr` (SPE's data addresses), if
  // one is known.
  virtual std::optional<SymbolAt> SymbolContaining(uint32_t image,
                                                   uint64_t vaddr) {
    return std::nullopt;
  }
};

}  // namespace hwt::report

#endif  // HWT_REPORT_NAMING_PROFILE_SYMBOLS_H_
