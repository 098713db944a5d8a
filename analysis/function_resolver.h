// Function boundaries for call-stack reconstruction, without names. analysis/
// sits below symbolizer/, so it asks through this interface (the symbolizer
// implements it from ELF symbol tables; tests implement it by hand).
#ifndef HWT_ANALYSIS_FUNCTION_RESOLVER_H_
#define HWT_ANALYSIS_FUNCTION_RESOLVER_H_

#include <cstdint>
#include <optional>

namespace hwt::analysis {

// [start, end) in ELF virtual addresses of one image.
struct FunctionRange {
  uint64_t start = 0;
  uint64_t end = 0;
};

class FunctionResolver {
 public:
  virtual ~FunctionResolver() = default;
  // The function of image `image` (index into the address-space timeline's
  // images()) containing ELF address `vaddr`; nullopt when no symbol covers
  // it. Called once per unique address, not per instruction: implementations
  // may be slow-ish but must be deterministic.
  virtual std::optional<FunctionRange> FunctionAt(uint32_t image,
                                                  uint64_t vaddr) = 0;
  // False promises that FunctionAt() gives nullopt for every address of
  // `image` (no symbols: a memory dump, a stripped file, a missing one), so
  // callers may skip asking per address; a CoreSight snapshot's images have
  // no symbols, and there one call per new block was a tenth of the
  // profile's own cost. True (the default) promises nothing.
  virtual bool HasFunctions(uint32_t image) {
    (void)image;
    return true;
  }
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_FUNCTION_RESOLVER_H_
