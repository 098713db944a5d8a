// Writes a capture bundle directory (NAME.hwt/) atomically: everything is
// written into a sibling temporary directory which is renamed into place last,
// so a reader never sees a partial bundle. Optionally packs it into one file.
#ifndef HWT_CAPTURE_BUNDLE_WRITER_H_
#define HWT_CAPTURE_BUNDLE_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "capture/manifest.h"
#include "capture/record.h"

namespace hwt::capture {

struct BufferContents {
  BufferInfo info;   // info.file and info.size are filled in by the writer
  std::string data;  // raw trace bytes
};

struct ImageToBundle {
  std::string source_file;    // file to copy
  std::string original_path;  // path on the traced machine
  std::string build_id;       // empty: computed from the ELF when present
};

struct BundleContents {
  Manifest manifest;  // buffers/images are filled from the fields below
  std::vector<Record> records;
  std::vector<BufferContents> buffers;
  std::vector<ImageToBundle> images;
  // Extra files stored verbatim under the bundle root (e.g. ground truth),
  // as (relative path, contents).
  std::vector<std::pair<std::string, std::string>> extra_files;
};

// Writes `contents` as a bundle directory at `dir` (replacing nothing: fails if
// `dir` exists unless `overwrite`).
absl::Status WriteBundle(const std::string& dir, const BundleContents& contents,
                         bool overwrite = false);

// Packs a bundle directory into one file: tar, or tar+zstd when `path` ends in
// ".zst"/".tzst". Written atomically.
absl::Status PackBundle(const std::string& bundle_dir, const std::string& path);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_BUNDLE_WRITER_H_
