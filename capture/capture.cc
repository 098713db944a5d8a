// The Capture class (inputs of every tool) and the parsers of the
// command-line forms --image FILE[@BIAS] and --cpu F/M[/S].
#include "capture/capture.h"

#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace hwt::capture {
namespace {

bool IsReadableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), R_OK) == 0;
}

std::string JoinPath(const std::string& dir, const std::string& rest) {
  if (rest.empty()) return dir;
  if (rest[0] == '/') return dir.empty() ? rest : dir + rest;
  if (dir.empty()) return rest;
  return dir.back() == '/' ? dir + rest : dir + "/" + rest;
}

std::optional<uint64_t> ParseNumber(std::string_view text) {
  uint64_t value = 0;
  std::string s(text);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (absl::SimpleHexAtoi(s.substr(2), &value)) return value;
    return std::nullopt;
  }
  if (absl::SimpleAtoi(s, &value)) return value;
  return std::nullopt;
}

}  // namespace

absl::StatusOr<ImageSpec> ParseImageSpec(std::string_view text) {
  ImageSpec spec;
  size_t at = text.rfind('@');
  // A file name may itself contain '@': only a numeric suffix is a bias.
  if (at != std::string_view::npos) {
    if (auto bias = ParseNumber(text.substr(at + 1))) {
      spec.path = std::string(text.substr(0, at));
      spec.bias = *bias;
      spec.has_bias = true;
    }
  }
  if (spec.path.empty()) spec.path = std::string(text);
  if (spec.path.empty()) {
    return absl::InvalidArgumentError(
        "--image: expected FILE[@BIAS], got an empty file name");
  }
  return spec;
}

absl::StatusOr<CpuIdentity> ParseCpuSpec(std::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(std::string(text), '/');
  CpuIdentity cpu;
  cpu.arch = "x86_64";
  cpu.vendor = "GenuineIntel";
  uint32_t values[3] = {0, 0, 0};
  bool ok = parts.size() == 2 || parts.size() == 3;
  for (size_t i = 0; ok && i < parts.size(); ++i) {
    ok = absl::SimpleAtoi(parts[i], &values[i]);
  }
  if (!ok || values[0] == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--cpu: expected FAMILY/MODEL[/STEPPING] in decimal (e.g. 6/85/4), "
        "got '%s'",
        text));
  }
  cpu.family = values[0];
  cpu.model = values[1];
  cpu.stepping = values[2];
  return cpu;
}

Capture::Capture(InputKind kind, std::string source_path, std::string root,
                 Manifest manifest, std::vector<Record> records,
                 InputOptions options, std::optional<TempDir> unpacked)
    : kind_(kind),
      source_path_(std::move(source_path)),
      root_(std::move(root)),
      manifest_(std::move(manifest)),
      records_(std::move(records)),
      options_(std::move(options)),
      unpacked_(std::move(unpacked)) {
  if (options_.cpu.has_value()) manifest_.cpu = *options_.cpu;
}

std::string Capture::BufferPath(size_t buffer_index) const {
  const std::string& file = manifest_.buffers.at(buffer_index).file;
  if (!file.empty() && file[0] == '/') return file;
  return JoinPath(root_, file);
}

absl::StatusOr<MappedFile> Capture::MapBuffer(size_t buffer_index) const {
  if (buffer_index >= manifest_.buffers.size()) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: no buffer %u", source_path_, buffer_index));
  }
  return MappedFile::Open(BufferPath(buffer_index));
}

std::vector<BufferChunk> Capture::BufferChunks(size_t buffer_index) const {
  const BufferInfo& info = manifest_.buffers.at(buffer_index);
  if (!info.chunks.empty()) return info.chunks;
  BufferChunk whole;
  whole.offset = 0;
  whole.size = info.size;
  whole.data_lost_before = false;
  return {whole};
}

std::optional<std::string> Capture::ResolveImage(
    const std::string& recorded_path, const std::string& build_id) const {
  // 1. A copy in the bundle, by build-id, else by original path.
  for (const BundledImage& image : manifest_.images) {
    bool match = !build_id.empty() ? image.build_id == build_id
                                   : image.original_path == recorded_path;
    if (!match) continue;
    std::string file = JoinPath(root_, image.file);
    if (IsReadableFile(file)) return file;
  }
  if (build_id.empty()) {
    // Recorded paths usually come without a build-id: a bundled copy of the
    // same path is still the right file.
    for (const BundledImage& image : manifest_.images) {
      if (image.original_path != recorded_path) continue;
      std::string file = JoinPath(root_, image.file);
      if (IsReadableFile(file)) return file;
    }
  }
  // 2. Under --sysroot (like hwt(8) -R): no fallback to the host's file,
  // which would be a different build.
  if (!options_.sysroot.empty()) {
    std::string file = JoinPath(options_.sysroot, recorded_path);
    if (IsReadableFile(file)) return file;
    return std::nullopt;
  }
  // 3. The path itself (analysis on the traced machine).
  if (IsReadableFile(recorded_path)) return recorded_path;
  return std::nullopt;
}

}  // namespace hwt::capture
