// From an analysed capture to its saved profile (analysis/saved/): the
// profile with the capture's identity and decode statistics, and for every
// image it touched the build-id, segment map, the names the reports print
// (function symbols with their first line, the source frames of every
// executed instruction) and the code bytes of every executed block, so that
// a saved profile reports on a machine that has none of the images. The
// result is canonical (it went through the merge), so saving a capture and
// merging it alone give the same file.
#ifndef HWT_PIPELINE_PROFILE_SAVING_H_
#define HWT_PIPELINE_PROFILE_SAVING_H_

#include <string>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "analysis/saved/saved_profile.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "symbolizer/symbolizer.h"

namespace hwt::pipeline {

struct SaveOptions {
  std::string name;         // the capture's name; "" = its base name
  std::string fingerprint;  // identity of input + analysis ("" = none)
  std::string analysis;     // the analysis options, as text
  std::string writer;       // "hwt 0.1.0 (hwt-report)"
};

// The version of the toolkit, "0.1.0".
std::string ToolVersion();

// The capture's identity (manifest fields, labels) and decode statistics.
analysis::CaptureSource CaptureSourceOf(
    const capture::Capture& capture, const analysis::CaptureProfile& profiled,
    const SaveOptions& options);

// `symbolizer` has the timeline's images registered under their indices
// (RegisterTimelineImages) and should give inline frames and lines;
// `expansion` is ExpandBlocks of the profile over the timeline's images.
absl::StatusOr<analysis::SavedProfile> SaveCaptureProfile(
    const analysis::CaptureProfile& profiled, const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    symbolizer::Symbolizer& symbolizer,
    const analysis::BlockExpansion& expansion, const SaveOptions& options);

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_PROFILE_SAVING_H_
