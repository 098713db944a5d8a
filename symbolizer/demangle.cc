// Demangling through llvm::demangle; see demangle.h.
#include "symbolizer/demangle.h"

#include "llvm/Demangle/Demangle.h"

namespace hwt::symbolizer {

std::string DisplayName(std::string_view raw, bool demangle) {
  if (!demangle || raw.empty()) return std::string(raw);
  const size_t at = raw.find('@');
  const std::string_view base = raw.substr(0, at);
  if (base.empty()) return std::string(raw);
  std::string out = llvm::demangle(base);
  if (at != std::string_view::npos) out.append(raw.substr(at));
  return out;
}

}  // namespace hwt::symbolizer
