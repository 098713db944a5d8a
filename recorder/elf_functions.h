// The ground truth's own function boundaries: a minimal ELF64 (little-endian,
// x86-64) symbol-table reader that applies the function rules of
// docs/call-stacks.md. It is deliberately separate from symbolizer/ (which
// the analysis side uses through LLVM): the two implement the same rules
// independently, so that a bug in one shows up as a difference in the e2e
// tests instead of making truth and profile agree wrongly. Tested against
// binutils (readelf, nm, objdump) in elf_functions_test.cc.
//
// Rules (docs/call-stacks.md, Functions): functions are the defined FUNC and
// GNU_IFUNC symbols of the richest symbol table (the image's .symtab, or a
// separate debug file's .symtab found by build-id or .gnu_debuglink when it
// has more function symbols, else .dynsym), plus one size-0 pseudo-symbol
// NAME@plt per PLT entry (in .plt, .plt.sec, .plt.got, as objdump labels
// them). A size-0 symbol covers up to the next higher function start in its
// section, or to the section's end. An address belongs to the covering
// symbol with the highest start, then the largest covered size, then the
// bytewise first raw name. Itanium names ("_Z...") are demangled with the
// C++ runtime's abi::__cxa_demangle (the part before a version suffix).
#ifndef HWT_RECORDER_ELF_FUNCTIONS_H_
#define HWT_RECORDER_ELF_FUNCTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hwt::recorder {

struct ElfFunction {
  uint64_t start = 0;
  uint64_t size = 0;  // st_size (0 for PLT entries and size-0 symbols)
  uint64_t end = 0;   // what it covers: start + size, or the size-0 rule
  std::string raw_name;
  std::string name;  // demangled
};

struct ElfFunctionOptions {
  // Where separate debug files are looked for (build-id and debuglink).
  std::string debug_root = "/usr/lib/debug";
  bool demangle = true;
};

class ElfFunctionTable {
 public:
  // Reads `path` (and its debug file). Errors name the file and the offset.
  static absl::StatusOr<ElfFunctionTable> Read(
      const std::string& path, const ElfFunctionOptions& options = {});

  // The function covering ELF virtual address `vaddr`, or null.
  const ElfFunction* Find(uint64_t vaddr) const;

  // Every function symbol and PLT entry, sorted by start then raw name.
  const std::vector<ElfFunction>& functions() const { return functions_; }
  // Where the symbols came from: ".symtab", ".dynsym" or the debug file.
  const std::string& source() const { return source_; }

 private:
  struct Range {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t function = 0;
  };
  void BuildRanges();

  std::vector<ElfFunction> functions_;
  std::vector<Range> ranges_;  // disjoint, sorted
  std::string source_;
};

// The name of code no symbol covers: "[BASENAME+0xVADDR]".
std::string UncoveredCodeName(const std::string& image_path, uint64_t vaddr);

// abi::__cxa_demangle of an Itanium name ("_Z...") before its version suffix
// ('@...'), the suffix kept; any other name, or one that does not demangle,
// as it is.
std::string DemangleSymbol(const std::string& raw);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_ELF_FUNCTIONS_H_
