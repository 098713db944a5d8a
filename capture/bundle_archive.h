// A capture bundle packed as one file: tar, optionally compressed with zstd
// (or gzip), via libarchive. Packing is deterministic and atomic; unpacking
// never writes outside its target directory: entries that are absolute,
// contain "..", are links, devices or FIFOs, repeat a path, or exceed the size
// limits are refused with the archive's name and the entry's path.
#ifndef HWT_CAPTURE_BUNDLE_ARCHIVE_H_
#define HWT_CAPTURE_BUNDLE_ARCHIVE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::capture {

enum class ArchiveKind { kNone, kTar, kZstd, kGzip };

// "tar", "zstd", "gzip", "none".
std::string_view ArchiveKindName(ArchiveKind kind);

// Recognises a packed file by its first bytes: the tar "ustar" magic at offset
// 257 (or, in a file shorter than one header, a tar name and mode field), or
// the zstd (28 b5 2f fd) or gzip (1f 8b) magic. A compressed file may
// still not hold a tar archive (see IsTarArchive).
ArchiveKind SniffArchive(absl::Span<const uint8_t> head);

// Whether the file (decompressed if needed) starts with a tar header.
bool IsTarArchive(const std::string& path);

struct UnpackLimits {
  uint64_t max_total_bytes = uint64_t{64} << 30;  // all file data together
  uint64_t max_entry_bytes = uint64_t{64} << 30;  // one file
  size_t max_entries = 100000;
  size_t max_depth = 32;  // path components
};

// Unpacks `archive_path` into the existing directory `dest` (normally empty).
// On error, `dest` may hold a partial tree: callers unpack into a TempDir.
absl::Status UnpackArchive(const std::string& archive_path,
                           const std::string& dest,
                           const UnpackLimits& limits = {});

// Packs the tree below `dir` (regular files and directories only) into
// `archive_path`, every entry under `top_name`/, sorted, with zero times and
// owners so that the same bundle always packs to the same bytes. Compression
// by `compression` (kTar = none). Written atomically.
absl::Status PackDirectory(const std::string& dir, const std::string& top_name,
                           const std::string& archive_path,
                           ArchiveKind compression);

// The compression a packed file's name asks for: ".zst"/".tzst" zstd,
// ".gz"/".tgz" gzip, anything else plain tar.
ArchiveKind CompressionForPath(std::string_view path);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_BUNDLE_ARCHIVE_H_
