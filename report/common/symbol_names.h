// Names addresses of a capture for listings and reports: a Symbolizer loaded
// with every image of the address-space timeline (image index = timeline
// image index), and "function+0xoff" formatting for an (image, vaddr) pair.
#ifndef HWT_REPORT_COMMON_SYMBOL_NAMES_H_
#define HWT_REPORT_COMMON_SYMBOL_NAMES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

// Adds every image of `timeline` to `symbolizer` under its timeline index.
// Problems (an image that is not a usable ELF) are returned as warnings: the
// image's addresses then print as [image+0xoff].
std::vector<std::string> RegisterTimelineImages(
    const capture::AddressSpaceTimeline& timeline,
    symbolizer::Symbolizer& symbolizer);

// A new symbolizer with RegisterTimelineImages() done; its warnings are
// appended to `warnings` (may be null). Only a failure of the symbolizer
// itself is an error.
absl::StatusOr<std::unique_ptr<symbolizer::Symbolizer>>
CreateSymbolizerForTimeline(const capture::AddressSpaceTimeline& timeline,
                            const symbolizer::SymbolizerOptions& options,
                            std::vector<std::string>* warnings);

// "main+0x1a", "main" at offset 0, "[libc.so.6+0x2a1b0]" when no symbol
// covers it. `symbols` may be null (then always the bracketed form).
std::string FunctionOffsetName(symbolizer::Symbolizer* symbols,
                               const capture::AddressSpaceTimeline& timeline,
                               uint32_t image, uint64_t vaddr);

}  // namespace hwt::report

#endif  // HWT_REPORT_COMMON_SYMBOL_NAMES_H_
