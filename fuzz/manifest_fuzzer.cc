// Fuzzes the bundle manifest reader (capture/manifest_json.h): JSON parsing,
// field types, ranges, counts and paths. Seeds: testdata/capture/manifests
// (valid and broken manifests) plus the manifests of testdata bundles.
//
// Checks: no crash, no hang; a refusal names the file; an accepted manifest
// passes ValidateManifest, names only safe bundle-relative paths, and
// survives a round trip (write, read again, write: the same text).
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"
#include "capture/manifest_json.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::fuzz::Fail;

constexpr char kWhere[] = "fuzz.hwt/manifest.json";

void CheckPath(const std::string& path, const char* what) {
  if (auto reason = hwt::capture::UnsafeBundlePathReason(path)) {
    Fail(absl::StrFormat("accepted manifest has an unsafe %s path \"%s\": %s",
                         what, path, *reason));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto manifest = hwt::capture::ParseManifest(text, kWhere);
  if (!manifest.ok()) {
    HWT_FUZZ_CHECK(
        hwt::fuzz::Contains(manifest.status().message(), kWhere),
        "error does not name the file: " + manifest.status().ToString());
    return 0;
  }
  hwt::fuzz::CheckOk(hwt::capture::ValidateManifest(*manifest, kWhere),
                     "ValidateManifest of an accepted manifest");
  for (const auto& buffer : manifest->buffers) CheckPath(buffer.file, "buffer");
  for (const auto& image : manifest->images) CheckPath(image.file, "image");
  for (const auto& dump : manifest->memory) CheckPath(dump.file, "memory");

  const std::string json = hwt::capture::ManifestToJson(*manifest);
  auto again = hwt::capture::ParseManifest(json, kWhere);
  if (!again.ok()) {
    Fail("the written manifest is refused: " + again.status().ToString() +
         "\n" + json);
  }
  const std::string json_again = hwt::capture::ManifestToJson(*again);
  if (json_again != json) {
    Fail("manifest round trip differs:\n" + json + "\n---\n" + json_again);
  }
  return 0;
}
