// Limits the .hwtprof writer and reader share (internal to analysis/saved/).
#ifndef HWT_ANALYSIS_SAVED_PROFILE_FILE_INTERNAL_H_
#define HWT_ANALYSIS_SAVED_PROFILE_FILE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::analysis::internal {

// Items per chunk: a chunk stays a few MiB (wide rows: 64 Ki, narrow: 256
// Ki), far below protobuf's 2 GiB message limit.
inline constexpr size_t kMaxBlocksPerChunk = 64 * 1024;
inline constexpr size_t kMaxItemsPerChunk = 256 * 1024;
// Strings and code bytes per chunk.
inline constexpr size_t kMaxBytesPerChunk = 4 << 20;
// What a reader accepts: no chunk over 64 MiB, and no more decompressed
// bytes than 256 MiB or 1000 times the file, whichever is more (a small
// hostile file cannot make the reader allocate gigabytes).
inline constexpr uint64_t kMaxChunkBytes = 64 << 20;
inline constexpr uint64_t kMinDecompressedLimit = 256ull << 20;
inline constexpr uint64_t kMaxCompressionRatio = 1000;

// The chunks of a file as serialised messages, in order (tests check sizes
// and craft files of newer versions with them).
absl::StatusOr<std::vector<std::string>> ReadChunkPayloads(
    absl::Span<const uint8_t> bytes);
// A file made of these chunk messages.
std::string FileOfChunkPayloads(const std::vector<std::string>& payloads);

}  // namespace hwt::analysis::internal

#endif  // HWT_ANALYSIS_SAVED_PROFILE_FILE_INTERNAL_H_
