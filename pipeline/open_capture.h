// The pipeline's first stage (capture_pipeline.h): a capture on disk (bundle,
// packed bundle, OpenCSD snapshot, perf.data, raw file with --image and
// --cpu) opened, with its address-space timeline built. Every tool starts
// here: hwt-decode and hwt-import stop here, hwt-report and hwt-batch go on.
#ifndef HWT_PIPELINE_OPEN_CAPTURE_H_
#define HWT_PIPELINE_OPEN_CAPTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"

namespace hwt::pipeline {

struct OpenedCapture {
  std::unique_ptr<capture::Capture> capture;
  capture::AddressSpaceTimeline timeline;
};

// Opens `path` (capture::OpenCapture) and builds its timeline.
absl::StatusOr<OpenedCapture> OpenCaptureInput(
    const std::string& path, const capture::InputOptions& options);

// The import's warnings (perf.data losses, images not found), then the
// timeline's.
std::vector<std::string> OpenWarnings(const OpenedCapture& opened);

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_OPEN_CAPTURE_H_
