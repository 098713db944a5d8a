// Symbol names as printed: Itanium (and other LLVM-known) demangling of the
// part before any "@VERSION" / "@plt" suffix, which is kept as is, so that
// "_ZN3foo3barEv@GLIBCXX_3.4" prints as "foo::bar()@GLIBCXX_3.4".
#ifndef HWT_SYMBOLIZER_DEMANGLE_H_
#define HWT_SYMBOLIZER_DEMANGLE_H_

#include <string>
#include <string_view>

namespace hwt::symbolizer {

// `raw` demangled when `demangle` is set and it is a mangled name; otherwise
// `raw` unchanged.
std::string DisplayName(std::string_view raw, bool demangle);

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DEMANGLE_H_
