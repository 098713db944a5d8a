// The function of an address, by the rule of docs/call-stacks.md
// ("Functions"): among the symbols whose range contains the address, the one
// with the highest start, then the largest size, then the raw name that sorts
// first; a size-0 symbol covers its address up to the next function symbol's
// start in the same section (the section end when it is the last one, one
// byte when it lies in no section). PLT entries are size-0 symbols of their
// PLT section. The table precomputes the winner of every address interval,
// so a lookup is one binary search.
#ifndef HWT_SYMBOLIZER_FUNCTION_TABLE_H_
#define HWT_SYMBOLIZER_FUNCTION_TABLE_H_

#include <cstdint>
#include <vector>

#include "symbolizer/symbolizer.h"

namespace hwt::symbolizer {

struct FunctionCandidate {
  FunctionSymbol symbol;  // symbol.size = the ELF st_size (0 allowed)
  bool in_section = false;
  uint64_t section_start = 0;  // the section's address range, which also
  uint64_t section_end = 0;    // identifies it (symbols may come from a
                               // debug file with its own section indexes)
};

class FunctionTable {
 public:
  FunctionTable() = default;
  explicit FunctionTable(std::vector<FunctionCandidate> candidates);

  // The winning function at vaddr; nullptr when no range contains it.
  const FunctionSymbol* Find(uint64_t vaddr) const;

  // All functions (duplicates of the same name, start and size removed),
  // sorted by (start, raw_name); sizes are the covered extents.
  const std::vector<FunctionSymbol>& functions() const { return functions_; }

 private:
  struct Interval {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t function = 0;  // index into functions_
  };
  std::vector<FunctionSymbol> functions_;
  std::vector<Interval> intervals_;  // disjoint, sorted
};

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_FUNCTION_TABLE_H_
