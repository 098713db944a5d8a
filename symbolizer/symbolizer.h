// The symbolizer interface: (image, ELF address) -> function, inline frames,
// file:line. Function names come from the symbol tables (fast, sorted);
// inline frames and lines from DWARF through LLVM, only where asked and
// cached per unique (image, address). Implementation: symbolizer.cc.
#ifndef HWT_SYMBOLIZER_SYMBOLIZER_H_
#define HWT_SYMBOLIZER_SYMBOLIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/function_resolver.h"

namespace hwt::symbolizer {

struct SymbolizerOptions {
  bool demangle = true;
  bool inline_frames = true;  // DWARF inline frames (--no-inline turns off)
  bool line_info = true;      // file:line from DWARF
  std::string sysroot;        // prefix for debug file lookups
  // Extra directories searched for .gnu_debuglink / build-id debug files
  // (always: /usr/lib/debug under sysroot).
  std::vector<std::string> debug_dirs;
};

// One frame at an address; a symbolized address has the innermost (inlined)
// frame first and the enclosing real function last.
struct Frame {
  std::string function;  // demangled unless --no-demangle; "[image+0xoff]"
                         // when unknown
  std::string file;      // empty when no line info
  uint32_t line = 0;
  bool inlined = false;  // true for all but the last frame
};

struct FunctionSymbol {
  std::string name;      // as printed (demangled per options)
  std::string raw_name;  // as in the symbol table
  uint64_t start = 0;    // ELF vaddr
  uint64_t size = 0;
};

class Symbolizer : public analysis::FunctionResolver {
 public:
  static std::unique_ptr<Symbolizer> Create(SymbolizerOptions options);
  ~Symbolizer() override = default;

  // Registers an image under `image_id` (the address-space timeline's index).
  // `file` empty = image missing: its addresses print as [path+0xoff].
  // Returns an error only for a file that exists but is not a usable ELF.
  virtual absl::Status AddImage(uint32_t image_id, const std::string& file,
                                const std::string& display_path) = 0;

  // Fast path: the function symbol containing vaddr (symbol tables + PLT).
  virtual const FunctionSymbol* FunctionFor(uint32_t image_id,
                                            uint64_t vaddr) = 0;

  // Full symbolization (cached per (image, vaddr)): inline frames innermost
  // first, then the function. Never empty: unknown code gives one frame
  // "[image+0xoff]" (or "[unknown]" for kNoImage).
  virtual const std::vector<Frame>& Symbolize(uint32_t image_id,
                                              uint64_t vaddr) = 0;

  // analysis::FunctionResolver
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t image,
                                                    uint64_t vaddr) override;

  static constexpr uint32_t kNoImage = 0xffffffffu;
};

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_SYMBOLIZER_H_
