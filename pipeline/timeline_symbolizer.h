// The symbolizer of a capture: every image of its address-space timeline
// registered under its timeline index, so that (image, ELF address) pairs of
// the profile, the listings and the exports name the same images.
#ifndef HWT_PIPELINE_TIMELINE_SYMBOLIZER_H_
#define HWT_PIPELINE_TIMELINE_SYMBOLIZER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "symbolizer/symbolizer.h"

namespace hwt::pipeline {

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

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_TIMELINE_SYMBOLIZER_H_
