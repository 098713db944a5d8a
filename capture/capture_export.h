// Writes any capture (a perf.data import, an OpenCSD snapshot, a bundle) as a
// capture bundle: its manifest and records, the bytes of every buffer, its
// memory dumps, a copy of every ELF image its address-space timeline found
// (named by build-id), and the problems its import found, so that the
// capture can be analysed on another machine and reads there as it read
// here. A directory (NAME.hwt) or, by the name's ending, one packed file
// (.tar, .tar.zst/.tzst, .tar.gz/.tgz). What hwt-import does.
#ifndef HWT_CAPTURE_CAPTURE_EXPORT_H_
#define HWT_CAPTURE_CAPTURE_EXPORT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"

namespace hwt::capture {

struct ExportSummary {
  size_t buffers = 0;
  uint64_t trace_bytes = 0;
  size_t records = 0;
  // Images the timeline did not find are not copied: its warnings name them.
  size_t images_copied = 0;
  // The capture's import problems, carried into the manifest.
  size_t import_problems = 0;
  // Images given with --image FILE@BIAS (or without a bias but matching no
  // recorded build-id): no recorded mapping names them, so the bundle does
  // not map them; they must be given again when the bundle is read.
  std::vector<std::string> not_carried;
};

// Whether `path` names a packed bundle file rather than a directory.
bool IsPackedBundleName(std::string_view path);

// Writes the bundle at `path` atomically: nothing appears there unless all of
// it was written. FailedPrecondition when the capture holds no trace data
// (every AUX area lost) or `path` exists and not `overwrite`.
absl::StatusOr<ExportSummary> ExportBundle(const Capture& capture,
                                           const AddressSpaceTimeline& timeline,
                                           const std::string& path,
                                           bool overwrite);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_CAPTURE_EXPORT_H_
