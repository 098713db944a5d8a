// The capture fuzzers' shared checks; see capture_checks.h.
#include "fuzz/capture_checks.h"

#include <filesystem>

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
  // Nothing an opened capture reads leaves it: a relative buffer or memory
  // dump path, symbolic links resolved, stays inside the capture's root.
  if (!raw) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical((*capture)->root(), ec);
    auto inside = [&](const std::string& file) {
      if (file.empty() || file[0] == '/') return;
      const fs::path real = fs::weakly_canonical(root / file, ec);
      const std::string r = root.generic_string(), p = real.generic_string();
      if (p.compare(0, r.size(), r) != 0 ||
          (p.size() > r.size() && p[r.size()] != '/')) {
        Fail(absl::StrFormat("%s resolves to %s, outside the capture's root %s",
                             file, p, r));
      }
    };
    for (const capture::BufferInfo& b : manifest.buffers) inside(b.file);
    for (const capture::MemoryDump& d : manifest.memory) inside(d.file);
  }
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
