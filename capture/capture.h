// A capture as every tool sees it, whatever it came from: a bundle directory
// (NAME.hwt/), the same bundle packed as one tar (optionally zstd) file, or a
// bare raw trace file with the CPU and images given on the command line.
// OpenCapture() validates everything it reads and names the file (and, for
// records, the line) in its errors.
#ifndef HWT_CAPTURE_CAPTURE_H_
#define HWT_CAPTURE_CAPTURE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"
#include "capture/manifest.h"
#include "capture/record.h"

namespace hwt::capture {

// `--image FILE[@BIAS]`: an ELF image mapped at load bias BIAS (0 for non-PIE).
// Without a bias, an image whose build-id a recorded mapping names (perf.data
// MMAP records) serves that mapping, at its recorded address, instead.
// A file that is not ELF is raw memory (capture/raw_memory.h): loaded at BIAS
// as its address, or a page cache pair that carries its own addresses.
struct ImageSpec {
  std::string path;
  uint64_t bias = 0;
  bool has_bias = false;  // "@BIAS" was given
};
// Parses "FILE[@BIAS]" (BIAS decimal or 0x-hex).
absl::StatusOr<ImageSpec> ParseImageSpec(std::string_view text);
// Parses "F/M[/S]" as for --cpu (decimal).
absl::StatusOr<CpuIdentity> ParseCpuSpec(std::string_view text);

// The recorded CPU identity with the fields given on the command line
// replaced; the rest (e.g. CPUID 0x15 when only --cpu F/M/S is given) is kept.
CpuIdentity MergeCpuIdentity(CpuIdentity recorded, const CpuIdentity& given);

// Command-line inputs that complete or override what the capture holds.
struct InputOptions {
  std::optional<Backend> backend;  // raw files: auto-detected when empty
  std::optional<CpuIdentity> cpu;  // overrides the manifest's CPU identity
  std::vector<ImageSpec> images;   // extra images mapped for every buffer
  std::string sysroot;             // prefix for recorded image paths
                                   // (perf's --symfs)
  // perf's build-id cache; empty: $PERF_BUILDID_DIR, else $HOME/.debug.
  std::string buildid_dir;
};

enum class InputKind {
  kBundleDirectory,
  kPackedBundle,
  kRawFile,
  kOpenCsdSnapshot,  // an OpenCSD/DS-5 snapshot directory (snapshot.ini)
  kPerfData,         // a Linux perf.data file (perf or simpleperf)
};

class Capture {
 public:
  Capture(InputKind kind, std::string source_path, std::string root,
          Manifest manifest, std::vector<Record> records, InputOptions options,
          std::optional<TempDir> unpacked);

  InputKind kind() const { return kind_; }
  // What the user named on the command line.
  const std::string& source_path() const { return source_path_; }
  // The directory holding manifest-relative files (the unpacked directory for
  // packed bundles; the raw file's directory for raw files).
  const std::string& root() const { return root_; }
  const Manifest& manifest() const { return manifest_; }
  const std::vector<Record>& records() const { return records_; }
  const InputOptions& options() const { return options_; }

  // Absolute path of a buffer's raw file.
  std::string BufferPath(size_t buffer_index) const;
  // Memory maps a buffer's raw file.
  absl::StatusOr<MappedFile> MapBuffer(size_t buffer_index) const;
  // The chunks of a buffer (one covering the whole file when none recorded).
  std::vector<BufferChunk> BufferChunks(size_t buffer_index) const;

  // Finds the file to read for an image recorded at `recorded_path` with
  // (optional) build-id. Without a build-id: a bundled copy, then sysroot +
  // recorded_path (no fallback), then recorded_path itself. With one, only a
  // file with that build-id is taken, never one found by path alone: a
  // bundled copy, an --image given without a bias, sysroot + recorded_path,
  // the perf build-id cache (.build-id/XX/REST/elf, .build-id/XX/REST,
  // PATH/BUILDID/elf below buildid_dir), recorded_path itself. nullopt when
  // nothing fits; `tried` (optional) then says what was looked at and why it
  // was refused.
  std::optional<std::string> ResolveImage(
      const std::string& recorded_path, const std::string& build_id,
      std::vector<std::string>* tried = nullptr) const;

  // Problems found while importing (perf.data: truncation, lost records,
  // AUXTRACE errors), each with where it was found; for a bundle, the
  // manifest's import_problems (what hwt-import found). Tools print them; a
  // capture with any of them is reported as decoded with errors.
  const std::vector<std::string>& import_warnings() const {
    return import_warnings_;
  }
  void set_import_warnings(std::vector<std::string> warnings) {
    import_warnings_ = std::move(warnings);
  }

 private:
  std::optional<std::string> ResolveByBuildId(
      const std::string& recorded_path, const std::string& build_id,
      std::vector<std::string>* tried) const;
  // The build-id of an ELF file ("" when none or unreadable), cached.
  std::string BuildIdOf(const std::string& file) const;
  std::string BuildIdCacheDir() const;

  InputKind kind_;
  std::string source_path_;
  std::string root_;
  Manifest manifest_;
  std::vector<Record> records_;
  InputOptions options_;
  std::optional<TempDir> unpacked_;
  std::vector<std::string> import_warnings_;
  // ResolveImage's cache: file -> its build-id ("" when none or unreadable).
  mutable std::mutex build_id_mutex_;
  mutable std::map<std::string, std::string> build_ids_;
};

// Opens any supported input. Errors: NotFound (no such path),
// InvalidArgument (malformed manifest/records, unsupported version, unknown
// backend), FailedPrecondition (raw file whose backend cannot be detected).
absl::StatusOr<std::unique_ptr<Capture>> OpenCapture(
    const std::string& path, const InputOptions& options);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_CAPTURE_H_
