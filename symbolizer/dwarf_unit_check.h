// A pre-check of a DWARF unit's DIEs before LLVM extracts them. LLVM 19 moves
// its offset by fixed attribute sizes and block lengths without checking them
// against the section, then decodes the next LEB128 from a pointer past the
// section's end: its end check (p == end) never fires and it reads wild
// memory (found by fuzz/elf_symbolize_fuzzer; llvm-dwarfdump-19 crashes the
// same way). This walks the DIEs the way DWARFUnit::extractDIEsToVector does,
// with LLVM's own abbreviations and form sizes, and accepts the unit only if
// every read stays inside the unit.
#ifndef HWT_SYMBOLIZER_DWARF_UNIT_CHECK_H_
#define HWT_SYMBOLIZER_DWARF_UNIT_CHECK_H_

#include <string>

namespace llvm {
class DWARFUnit;
}  // namespace llvm

namespace hwt::symbolizer {

// Returns "" when LLVM may extract the DIEs of `unit`, else why not. Reads
// nothing past the unit: the abbreviation code, every attribute's form
// (through DW_FORM_indirect), block lengths and strings are bounds-checked,
// and an unknown abbreviation code, an unknown form or an LEB128 LLVM would
// refuse makes the unit unusable. Cost: one pass over the unit's bytes.
std::string CheckUnitDies(const llvm::DWARFUnit& unit);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DWARF_UNIT_CHECK_H_
