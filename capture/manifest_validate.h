// The manifest's validation, apart from reading its JSON (manifest_json.h):
// the checks on values every reader and writer shares (so that no writer can
// produce a bundle a reader rejects), the checks against a bundle's files,
// and the limits beyond which a manifest is rejected as absurd (or hostile).
// Every error names the file and the field path ("buffers[2].size").
#ifndef HWT_CAPTURE_MANIFEST_VALIDATE_H_
#define HWT_CAPTURE_MANIFEST_VALIDATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "capture/manifest.h"

namespace hwt::capture {

// Limits beyond which a manifest is rejected as absurd (or hostile).
inline constexpr size_t kMaxBuffers = 4096;
inline constexpr size_t kMaxChunksPerBuffer = size_t{1} << 22;
inline constexpr size_t kMaxImages = 65536;
inline constexpr size_t kMaxMemoryDumps = 65536;
inline constexpr size_t kMaxImportProblems = 65536;
inline constexpr size_t kMaxCoreSightSources = 4096;
inline constexpr size_t kMaxPathLength = 4096;
inline constexpr uint64_t kMaxBufferSize = uint64_t{1} << 40;  // 1 TiB
inline constexpr uint64_t kMaxManifestFileSize = uint64_t{64} << 20;

// The checks that need no file system: required values, ranges and counts,
// unique buffer ids and files, relative paths that stay inside the bundle,
// backend configuration matching the backend, chunks inside their buffer.
// `where` names the file in errors.
absl::Status ValidateManifest(const Manifest& manifest, std::string_view where);

// The checks against a bundle directory: every file the manifest names exists
// below `root` and is a regular file, each buffer's size equals its file's
// size, memory dumps fit in their files.
absl::Status ValidateManifestFiles(const Manifest& manifest,
                                   const std::string& root,
                                   std::string_view where);

// Why root/file, once symbolic links are resolved, is not inside `root`
// (a link to /etc/shadow as a buffer file), or nullopt when it is inside
// or cannot be resolved (the caller's stat reports a missing file).
std::optional<std::string> LeavesDirectoryReason(const std::string& root,
                                                 const std::string& file);

// Why `path` is not a safe bundle-relative path (empty, absolute, contains a
// ".." component or a NUL), or nullopt when it is fine.
std::optional<std::string> UnsafeBundlePathReason(std::string_view path);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_MANIFEST_VALIDATE_H_
