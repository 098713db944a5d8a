// The open stage; see open_capture.h.
#include "pipeline/open_capture.h"

#include "base/status_macros.h"

namespace hwt::pipeline {

absl::StatusOr<OpenedCapture> OpenCaptureInput(
    const std::string& path, const capture::InputOptions& options) {
  OpenedCapture opened;
  HWT_ASSIGN_OR_RETURN(opened.capture, capture::OpenCapture(path, options));
  HWT_ASSIGN_OR_RETURN(opened.timeline,
                       capture::BuildAddressSpaceTimeline(*opened.capture));
  return opened;
}

std::vector<std::string> OpenWarnings(const OpenedCapture& opened) {
  std::vector<std::string> out = opened.capture->import_warnings();
  const std::vector<std::string>& timeline = opened.timeline.warnings();
  out.insert(out.end(), timeline.begin(), timeline.end());
  return out;
}

}  // namespace hwt::pipeline
