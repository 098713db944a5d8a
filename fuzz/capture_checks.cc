// The capture fuzzers' shared checks; see capture_checks.h.
#include "fuzz/capture_checks.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capture/address_space.h"
#include "fuzz/fuzz_support.h"

namespace hwt::fuzz {

void CheckOpensAsATool(const std::string& input,
                       const capture::InputOptions& options, const char* noun) {
  auto capture = capture::OpenCapture(input, options);
  if (!capture.ok()) {
    HWT_FUZZ_CHECK(Contains(capture.status().message(), input),
                   absl::StrCat("OpenCapture error does not name the ", noun,
                                ": ", capture.status().ToString()));
    return;
  }
  const auto& manifest = (*capture)->manifest();
  const bool raw = (*capture)->kind() == capture::InputKind::kRawFile;
  for (size_t b = 0; b < manifest.buffers.size(); ++b) {
    auto file = (*capture)->MapBuffer(b);
    if (file.ok() && !raw && file->size() != manifest.buffers[b].size) {
      Fail(absl::StrFormat("buffer %d: %u bytes, the manifest says %u", b,
                           file->size(), manifest.buffers[b].size));
    }
  }
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  (void)timeline;
}

}  // namespace hwt::fuzz
