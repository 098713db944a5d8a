// Names addresses of a capture for listings and reports: "function+0xoff"
// for an (image, vaddr) pair, from a symbolizer holding the timeline's
// images under their timeline indices (pipeline/timeline_symbolizer.h).
#ifndef HWT_REPORT_COMMON_SYMBOL_NAMES_H_
#define HWT_REPORT_COMMON_SYMBOL_NAMES_H_

#include <string>

#include "capture/address_space.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

// "main+0x1a", "main" at offset 0, "[libc.so.6+0x2a1b0]" when no symbol
// covers it. `symbols` may be null (then always the bracketed form).
std::string FunctionOffsetName(symbolizer::Symbolizer* symbols,
                               const capture::AddressSpaceTimeline& timeline,
                               uint32_t image, uint64_t vaddr);

}  // namespace hwt::report

#endif  // HWT_REPORT_COMMON_SYMBOL_NAMES_H_
