// The Capture class (inputs of every tool) and the parsers of the
// command-line forms --image FILE[@BIAS] and --cpu F/M[/S].
#include "capture/capture.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"

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

CpuIdentity MergeCpuIdentity(CpuIdentity recorded, const CpuIdentity& given) {
  if (!given.arch.empty()) recorded.arch = given.arch;
  if (!given.vendor.empty()) recorded.vendor = given.vendor;
  if (given.family != 0) {
    recorded.family = given.family;
    recorded.model = given.model;
    recorded.stepping = given.stepping;
  }
  if (given.cpuid_15_eax != 0 || given.cpuid_15_ebx != 0) {
    recorded.cpuid_15_eax = given.cpuid_15_eax;
    recorded.cpuid_15_ebx = given.cpuid_15_ebx;
    recorded.cpuid_15_ecx = given.cpuid_15_ecx;
  }
  if (given.nominal_frequency_hz != 0) {
    recorded.nominal_frequency_hz = given.nominal_frequency_hz;
  }
  if (given.midr != 0) recorded.midr = given.midr;
  return recorded;
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
      unpacked_(std::move(unpacked)),
      // A bundle converted from perf.data carries what its import found.
      import_warnings_(manifest_.import_problems) {
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

std::string Capture::BuildIdOf(const std::string& file) const {
  std::lock_guard<std::mutex> lock(build_id_mutex_);
  auto it = build_ids_.find(file);
  if (it != build_ids_.end()) return it->second;
  std::string id;
  if (IsReadableFile(file)) {
    auto elf = ReadElfFile(file);
    if (elf.ok()) id = elf->build_id;
  }
  build_ids_.emplace(file, id);
  return id;
}

std::string Capture::BuildIdCacheDir() const {
  if (!options_.buildid_dir.empty()) return options_.buildid_dir;
  if (const char* env = getenv("PERF_BUILDID_DIR"); env && *env) return env;
  if (const char* home = getenv("HOME"); home && *home) {
    return std::string(home) + "/.debug";
  }
  return "";
}

std::optional<std::string> Capture::ResolveByBuildId(
    const std::string& recorded_path, const std::string& build_id,
    std::vector<std::string>* tried) const {
  std::vector<std::string> candidates;
  for (const BundledImage& image : manifest_.images) {
    if (BuildIdsMatch(image.build_id, build_id)) {
      candidates.push_back(JoinPath(root_, image.file));
    }
  }
  for (const ImageSpec& spec : options_.images) {
    if (!spec.has_bias) candidates.push_back(spec.path);
  }
  if (!options_.sysroot.empty()) {
    candidates.push_back(JoinPath(options_.sysroot, recorded_path));
  }
  const std::string cache = BuildIdCacheDir();
  const std::string id = TrimBuildId(build_id);
  if (!cache.empty() && id.size() > 2) {
    const std::string link =
        absl::StrCat(cache, "/.build-id/", id.substr(0, 2), "/", id.substr(2));
    candidates.push_back(link + "/elf");
    candidates.push_back(link);
    if (!recorded_path.empty() && recorded_path[0] == '/') {
      candidates.push_back(
          absl::StrCat(cache, recorded_path, "/", build_id, "/elf"));
    }
  }
  if (options_.sysroot.empty()) candidates.push_back(recorded_path);
  for (const std::string& file : candidates) {
    if (!IsReadableFile(file)) continue;
    const std::string found = BuildIdOf(file);
    if (BuildIdsMatch(found, build_id)) return file;
    if (tried != nullptr && file != recorded_path + "/elf") {
      tried->push_back(absl::StrFormat("%s has build-id %s", file,
                                       found.empty() ? "(none)" : found));
    }
  }
  if (tried != nullptr) {
    tried->push_back(absl::StrFormat(
        "no file with that build-id in the bundle, --image%s or %s",
        options_.sysroot.empty() ? "" : ", --sysroot " + options_.sysroot,
        cache.empty() ? "the recorded path" : cache));
  }
  return std::nullopt;
}

std::optional<std::string> Capture::ResolveImage(
    const std::string& recorded_path, const std::string& build_id,
    std::vector<std::string>* tried) const {
  if (!build_id.empty()) {
    return ResolveByBuildId(recorded_path, build_id, tried);
  }
  // 1. A copy in the bundle, by original path.
  for (const BundledImage& image : manifest_.images) {
    if (image.original_path != recorded_path) continue;
    std::string file = JoinPath(root_, image.file);
    if (IsReadableFile(file)) return file;
  }
  // 2. Under --sysroot (like hwt(8) -R): no fallback to the host's file,
  // which would be a different build.
  if (!options_.sysroot.empty()) {
    std::string file = JoinPath(options_.sysroot, recorded_path);
    if (IsReadableFile(file)) return file;
    if (tried != nullptr) tried->push_back(file);
    return std::nullopt;
  }
  // 3. The path itself (analysis on the traced machine).
  if (IsReadableFile(recorded_path)) return recorded_path;
  if (tried != nullptr) tried->push_back(recorded_path);
  return std::nullopt;
}

}  // namespace hwt::capture
