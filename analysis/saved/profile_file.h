// Reading and writing .hwtprof files (docs/profile-format.md): the magic
// "HWTPROF\n", then one zstd stream of length-delimited protobuf chunks
// (analysis/saved/hwtprof.proto). Large sections are cut into chunks of a
// few MiB, so no message comes near protobuf's 2 GiB limit however large a
// merged profile grows. Files are written atomically; reading validates
// every index and order the model promises and names the file and the
// chunk in its errors; a newer major version is refused, unknown fields and
// chunk kinds of a newer minor version are skipped.
#ifndef HWT_ANALYSIS_SAVED_PROFILE_FILE_H_
#define HWT_ANALYSIS_SAVED_PROFILE_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/saved/saved_profile.h"

namespace hwt::analysis {

inline constexpr std::string_view kProfileMagic = "HWTPROF\n";

// Whether `bytes` (the start of a file) is a saved profile.
bool LooksLikeProfile(absl::Span<const uint8_t> bytes);
// Whether the file at `path` starts with the magic (false if unreadable).
bool IsProfileFile(const std::string& path);

// The bytes of the file for `profile`.
std::string SerializeProfile(const SavedProfile& profile);
// Writes `profile` to `path` atomically (temporary file, then rename).
absl::Status WriteProfileFile(const std::string& path,
                              const SavedProfile& profile);

// Parses and validates the bytes of a file; `name` (the path) prefixes
// every error. InvalidArgument for a malformed or truncated file,
// FailedPrecondition for a newer major version.
absl::StatusOr<SavedProfile> ParseProfile(absl::Span<const uint8_t> bytes,
                                          const std::string& name);
absl::StatusOr<SavedProfile> ReadProfileFile(const std::string& path);

// The writer and the captures of a file, without the rest (reads only the
// chunks that hold them): what resuming a batch and its summaries need.
struct ProfileHeader {
  std::string writer;
  int major = 0;
  int minor = 0;
  std::vector<CaptureSource> sources;
};
absl::StatusOr<ProfileHeader> ReadProfileHeader(const std::string& path);

// The model's invariants (indices in range, canonical orders, trees in
// preorder with consistent totals); the first violation, described.
absl::Status ValidateProfile(const SavedProfile& profile);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SAVED_PROFILE_FILE_H_
