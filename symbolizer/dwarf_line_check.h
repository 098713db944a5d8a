// A pre-check of DWARF v5 line table headers before LLVM parses them. LLVM 19
// reaches llvm_unreachable (undefined behaviour, a crash in practice) when a
// v5 directory/file entry format names a form it does not know, and
// dereferences empty optionals for non-constant forms of numeric fields; both
// happen with corrupt or hostile files. This walks the header and accepts it
// only if every entry format is one LLVM handles and every entry fits.
#ifndef HWT_SYMBOLIZER_DWARF_LINE_CHECK_H_
#define HWT_SYMBOLIZER_DWARF_LINE_CHECK_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace hwt::symbolizer {

// Checks the line table header at `offset` of the (decompressed) .debug_line
// contents. Returns "" when LLVM may parse it, else why not. Headers of
// versions other than 5 have no entry formats and are left to LLVM.
std::string CheckLineTableHeader(std::string_view debug_line, uint64_t offset,
                                 bool little_endian);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DWARF_LINE_CHECK_H_
