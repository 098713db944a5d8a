// The symbolizer as the analysis' FunctionResolver: function boundaries from
// the ELF symbol tables (and PLT) of the images it holds. The adapter lives
// in the pipeline, the first layer above both, so that neither analysis/ nor
// symbolizer/ depends on the other.
#ifndef HWT_PIPELINE_SYMBOLIZER_RESOLVER_H_
#define HWT_PIPELINE_SYMBOLIZER_RESOLVER_H_

#include <cstdint>
#include <optional>

#include "analysis/function_resolver.h"
#include "symbolizer/symbolizer.h"

namespace hwt::pipeline {

class SymbolizerResolver : public analysis::FunctionResolver {
 public:
  explicit SymbolizerResolver(const symbolizer::Symbolizer& symbolizer)
      : symbolizer_(symbolizer) {}

  // FunctionFor()'s [start, start + size).
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t image,
                                                    uint64_t vaddr) override {
    const symbolizer::FunctionSymbol* f = symbolizer_.FunctionFor(image, vaddr);
    if (f == nullptr) return std::nullopt;
    return analysis::FunctionRange{f->start, f->start + f->size};
  }
  bool HasFunctions(uint32_t image) override {
    return symbolizer_.HasFunctions(image);
  }

 private:
  const symbolizer::Symbolizer& symbolizer_;
};

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_SYMBOLIZER_RESOLVER_H_
