// The functions of one ELF image as docs/call-stacks.md defines them: FUNC
// and GNU_IFUNC symbols of .symtab (else .dynsym) with their address ranges,
// plus a NAME@plt pseudo-function per PLT entry, resolved per address by the
// document's tie-break rules. Read with LLVM's libObject directly: this is
// the ground truth's own implementation, independent of symbolizer/.
#ifndef HWT_RECORDER_FUNCTION_TABLE_H_
#define HWT_RECORDER_FUNCTION_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hwt::recorder {

struct FunctionSymbol {
  uint64_t start = 0;    // ELF virtual address
  uint64_t end = 0;      // exclusive
  std::string name;      // demangled; PLT entries end in "@plt"
  std::string raw_name;  // as in the symbol table (tie-breaks sort by it)
};

class FunctionTable {
 public:
  static constexpr int32_t kNone = -1;

  // Reads `path`; `name` is used in error messages.
  static absl::StatusOr<FunctionTable> Load(const std::string& path);

  // The function covering `vaddr` (an index into symbols()), or kNone.
  int32_t Find(uint64_t vaddr) const;

  const std::vector<FunctionSymbol>& symbols() const { return symbols_; }

  // Builds a table from symbols given directly (tests).
  static FunctionTable FromSymbols(std::vector<FunctionSymbol> symbols);

 private:
  void Resolve();

  std::vector<FunctionSymbol> symbols_;
  // Elementary intervals: [bounds_[i], bounds_[i+1]) belongs to winners_[i].
  std::vector<uint64_t> bounds_;
  std::vector<int32_t> winners_;
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_FUNCTION_TABLE_H_
