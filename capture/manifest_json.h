// Manifest <-> manifest.json (docs/capture-format.md is the specification).
// Reading validates everything and names the file and the field path in each
// error; writing produces what reading accepts. Writers and readers share
// ValidateManifest so that no writer can produce a bundle a reader rejects.
#ifndef HWT_CAPTURE_MANIFEST_JSON_H_
#define HWT_CAPTURE_MANIFEST_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "capture/manifest.h"

namespace hwt::capture {

// Limits beyond which a manifest is rejected as absurd (or hostile).
inline constexpr size_t kMaxBuffers = 4096;
inline constexpr size_t kMaxChunksPerBuffer = size_t{1} << 22;
inline constexpr size_t kMaxImages = 65536;
inline constexpr size_t kMaxMemoryDumps = 65536;
inline constexpr size_t kMaxCoreSightSources = 4096;
inline constexpr size_t kMaxPathLength = 4096;
inline constexpr uint64_t kMaxBufferSize = uint64_t{1} << 40;  // 1 TiB
inline constexpr uint64_t kMaxManifestFileSize = uint64_t{64} << 20;

// The value of the manifest's "format" field.
inline constexpr std::string_view kManifestFormatName = "hwt-capture";

// "upstream" / "cheribsd".
std::string_view RecordNumberingName(RecordNumbering numbering);
std::optional<RecordNumbering> ParseRecordNumbering(std::string_view name);
std::optional<TraceMode> ParseTraceMode(std::string_view name);

struct FormatVersion {
  int major = 0;
  int minor = 0;
};
// Parses "MAJOR.MINOR" (decimal, no sign, no spaces).
std::optional<FormatVersion> ParseFormatVersion(std::string_view text);
// OK for 1.x; an InvalidArgument error otherwise ("capture format 2.0 is newer
// than this hwt (reads 1.x); upgrade hwt").
absl::Status CheckFormatVersion(const FormatVersion& version,
                                std::string_view where);

// The manifest as JSON text: pretty printed, keys in specification order,
// 64-bit values as "0x..." strings, ends with a newline. Always written as
// the current format version (kFormatMajorVersion.kFormatMinorVersion).
std::string ManifestToJson(const Manifest& manifest);

// Parses and validates manifest.json text. `where` names the file in errors
// ("x.hwt/manifest.json"). Unknown fields are ignored; a newer minor version
// is read, a newer major version refused. Does not look at the file system
// (see ValidateManifestFiles).
absl::StatusOr<Manifest> ParseManifest(std::string_view text,
                                       std::string_view where);

// The checks that need no file system: required values, ranges and counts,
// unique buffer ids and files, relative paths that stay inside the bundle,
// backend configuration matching the backend, chunks inside their buffer.
absl::Status ValidateManifest(const Manifest& manifest, std::string_view where);

// The checks against a bundle directory: every file the manifest names exists
// below `root` and is a regular file, each buffer's size equals its file's
// size, memory dumps fit in their files.
absl::Status ValidateManifestFiles(const Manifest& manifest,
                                   const std::string& root,
                                   std::string_view where);

// Why `path` is not a safe bundle-relative path (empty, absolute, contains a
// ".." component or a NUL), or nullopt when it is fine.
std::optional<std::string> UnsafeBundlePathReason(std::string_view path);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_MANIFEST_JSON_H_
