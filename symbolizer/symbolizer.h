// The symbolizer interface: (image, ELF address) -> function, inline frames,
// file:line. Function names come from the symbol tables (fast, sorted);
// inline frames and lines from DWARF through LLVM, only where asked and
// cached per unique (image, address). Implementation: symbolizer.cc.
//
// Which function an address belongs to follows docs/call-stacks.md
// ("Functions") exactly; function_table.h implements that rule.
//
// Thread-safety: a Symbolizer is not thread-safe; use it from one thread (or
// lock around it). Once all images are added, FunctionFor(), FunctionAt(),
// FindFunctions() and ReadCode() only read and may run concurrently with each
// other, but not with AddImage(), GetImageInfo(), Symbolize() or
// SymbolizeBatch() (those fill caches and LLVM's lazily parsed DWARF).
#ifndef HWT_SYMBOLIZER_SYMBOLIZER_H_
#define HWT_SYMBOLIZER_SYMBOLIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::symbolizer {

struct SymbolizerOptions {
  bool demangle = true;
  bool inline_frames = true;  // DWARF inline frames (--no-inline turns off)
  bool line_info = true;      // file:line from DWARF
  // Root of the traced system's files for debug file lookups:
  // SYSROOT/usr/lib/debug/.build-id/..., SYSROOT/usr/lib/debug/DIR/LINK.
  // Empty = this machine ("/").
  std::string sysroot;
  // Extra directories searched for build-id and .gnu_debuglink debug files
  // (as given, not under sysroot), after SYSROOT/usr/lib/debug.
  std::vector<std::string> debug_dirs;
  // Use the .symtab of a separate debug file when it has more function
  // symbols than the image's own tables (a stripped image otherwise only has
  // .dynsym). Off: function names come from the image file alone.
  bool debug_file_symbols = true;
};

// One frame at an address; a symbolized address has the innermost (inlined)
// frame first and the enclosing real function last.
struct Frame {
  std::string function;  // demangled unless --no-demangle; "[image+0xoff]"
                         // when unknown, "[unknown]" outside every image
  std::string file;      // absolute path; empty when no line info
  uint32_t line = 0;     // 0 when unknown
  bool inlined = false;  // true for all but the last frame
  // From DWARF only (0 / empty otherwise), for exporters whose consumers
  // key lines by them (LLVM sample profiles): the line table's
  // discriminator, the function's own first line (DW_AT_decl_line of the
  // subprogram) and its linkage (mangled) name.
  uint32_t discriminator = 0;
  uint32_t start_line = 0;
  std::string linkage_name;
};

// A function of one image: an ELF FUNC/GNU_IFUNC symbol or a PLT entry.
struct FunctionSymbol {
  std::string name;      // as printed (demangled per options); "NAME@plt"
  std::string raw_name;  // as in the symbol table; "NAME@plt" for PLT
  uint64_t start = 0;    // ELF vaddr (ARM: Thumb bit cleared)
  // The extent [start, start + size) the function covers by the rule: the
  // symbol size, or for a size-0 symbol or PLT entry the distance to the next
  // function symbol in the same section (or to the section end). Other
  // functions may win addresses inside it (a nested symbol with a higher
  // start): always ask per address.
  uint64_t size = 0;
  bool plt = false;    // a PLT entry
  bool thumb = false;  // ARM: Thumb code (the symbol value had bit 0 set)
};

// What AddImage found for one image, for diagnostics and reports.
struct ImageInfo {
  enum class SymbolSource { kNone, kSymtab, kDebugFileSymtab, kDynsym };

  std::string display_path;  // path as the traced process saw it
  std::string file;          // file read on this machine; empty if missing
  bool missing = true;       // no usable file: addresses print [base+0xoff]
  std::string missing_reason;
  std::string arch;        // LLVM triple arch name: x86_64, i386, aarch64, arm
  uint16_t machine = 0;    // ELF e_machine
  std::string build_id;    // lowercase hex; empty if none
  std::string debug_file;  // separate debug file used; empty if none
  SymbolSource symbol_source = SymbolSource::kNone;
  size_t function_count = 0;  // symbol-table functions (aliases included)
  size_t plt_count = 0;       // PLT entries
  bool has_dwarf = false;     // .debug_info in the image or its debug file
  // Problems LLVM reported while reading the DWARF so far (the lookups
  // concerned give fewer frames or no line).
  uint64_t dwarf_errors = 0;
  std::string first_dwarf_error;
};

// One address to symbolize.
struct ImageAddress {
  uint32_t image = 0;
  uint64_t vaddr = 0;
};

// A function found by name, for --annotate.
struct FunctionMatch {
  uint32_t image_id = 0;
  const FunctionSymbol* symbol = nullptr;  // owned by the Symbolizer
};

enum class NameMatch {
  kExact,  // name or raw_name equals the pattern
  kRegex,  // POSIX extended regex found anywhere in name or raw_name
};

class Symbolizer {
 public:
  static std::unique_ptr<Symbolizer> Create(SymbolizerOptions options);
  virtual ~Symbolizer() = default;

  // Registers an image under `image_id` (the address-space timeline's index).
  // `file` empty or not existing = image missing: its addresses print as
  // [basename(display_path)+0xoff] and GetImageInfo() says why. Returns an
  // error (naming the file) only for a file that exists but is not a usable
  // ELF, and for an image_id registered twice; the image then counts as
  // missing. Files registered under several ids are loaded once.
  virtual absl::Status AddImage(uint32_t image_id, const std::string& file,
                                const std::string& display_path) = 0;

  // nullptr for an image_id never added.
  virtual const ImageInfo* GetImageInfo(uint32_t image_id) const = 0;

  // Fast path: the function symbol containing vaddr (symbol tables + PLT),
  // nullptr when none covers it. The pointer stays valid for the lifetime of
  // the Symbolizer.
  virtual const FunctionSymbol* FunctionFor(uint32_t image_id,
                                            uint64_t vaddr) const = 0;
  // Whether FunctionFor() can find anything in the image: false for an
  // image_id never added, a missing image and one without function symbols
  // or PLT entries, whose every address is unknown code.
  virtual bool HasFunctions(uint32_t image_id) const = 0;

  // Full symbolization (cached per (image, vaddr)): inline frames innermost
  // first, then the function, whose name is always FunctionFor()'s. Never
  // empty: unknown code gives one frame "[image+0xoff]" (or "[unknown]" for
  // kNoImage or an image_id never added). The reference stays valid for the
  // lifetime of the Symbolizer.
  virtual const std::vector<Frame>& Symbolize(uint32_t image_id,
                                              uint64_t vaddr) = 0;

  // Symbolize() for many addresses at once, visiting them sorted by
  // (image, vaddr) for locality in DWARF. Result i belongs to addresses[i].
  virtual std::vector<const std::vector<Frame>*> SymbolizeBatch(
      absl::Span<const ImageAddress> addresses) = 0;

  // All functions whose name matches, ordered by (image_id, start, raw_name).
  // Errors: invalid regex.
  virtual absl::StatusOr<std::vector<FunctionMatch>> FindFunctions(
      const std::string& pattern, NameMatch match) const = 0;

  // The bytes at [vaddr, vaddr + size) of the image file (its loadable,
  // file-backed contents), e.g. a function to disassemble. Errors: missing
  // image, range not fully backed by the file.
  virtual absl::StatusOr<std::vector<uint8_t>> ReadCode(
      uint32_t image_id, uint64_t vaddr, uint64_t size) const = 0;

  static constexpr uint32_t kNoImage = 0xffffffffu;
};

// The name printed for unknown code: "[basename(path)+0xOFF]", OFF in
// lowercase hex.
std::string UnknownFunctionName(const std::string& display_path,
                                uint64_t vaddr);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_SYMBOLIZER_H_
