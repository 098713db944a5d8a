// DWARF inline frames and file:line for one image, through
// llvm::DWARFContext (simpler and cheaper than LLVMSymbolizer, which would
// re-read the symbol tables we already have). DWARF problems are counted and
// the first one kept, never printed. Not thread-safe: LLVM parses lazily.
#ifndef HWT_SYMBOLIZER_DWARF_FRAMES_H_
#define HWT_SYMBOLIZER_DWARF_FRAMES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "symbolizer/elf_image.h"
#include "symbolizer/symbolizer.h"

namespace llvm {
class DWARFContext;
}  // namespace llvm

namespace hwt::symbolizer {

class DwarfFrames {
 public:
  // `source` (the image or its debug file) must outlive this object.
  explicit DwarfFrames(const ElfImage& source);
  ~DwarfFrames();

  // The inline chain at vaddr, innermost first, the outermost being the
  // DWARF subprogram (callers replace its name by the symbol table's). File
  // and line only when `line_info`. Empty when DWARF does not cover vaddr.
  std::vector<Frame> InlineFrames(uint64_t vaddr, bool line_info,
                                  bool demangle);

  // The line-table location of vaddr (innermost source position), function
  // name left empty; nullopt when none.
  std::optional<Frame> LineAt(uint64_t vaddr);

  uint64_t error_count() const { return state_->errors; }
  const std::string& first_error() const { return state_->first_error; }

 private:
  // False when no unit covers vaddr, or (with one error counted per unit)
  // when LLVM 19 is known to crash on that unit: see dwarf_line_check.h.
  bool UnitIsUsable(uint64_t vaddr);
  // Once, before the first query: whether LLVM may extract the DIEs of every
  // unit (dwarf_unit_check.h). If not, one error is counted and the DWARF
  // context dropped.
  bool AllUnitsChecked();

  struct ErrorState {
    uint64_t errors = 0;
    std::string first_error;
  };
  std::unique_ptr<ErrorState> state_;  // stable for LLVM's handlers
  std::unique_ptr<llvm::DWARFContext> context_;
  absl::flat_hash_map<uint64_t, bool> usable_units_;  // by unit offset
  bool units_checked_ = false;
};

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DWARF_FRAMES_H_
