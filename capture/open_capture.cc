// OpenCapture(): recognises what the user named (bundle directory, packed
// bundle, bare raw trace file, OpenCSD snapshot, Linux perf.data) and loads
// it into a Capture, validating everything it reads.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/bundle_archive.h"
#include "capture/capture.h"
#include "capture/manifest_json.h"
#include "capture/opencsd_snapshot.h"
#include "capture/perf/perf_import.h"
#include "capture/perf/perf_tokenizer.h"
#include "capture/raw_detect.h"
#include "capture/records_jsonl.h"

namespace hwt::capture {
namespace {

std::string Absolute(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) return path;
  std::string text = absolute.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// Reads a file of at most `limit` bytes.
absl::StatusOr<std::string> ReadBounded(const std::string& path, uint64_t limit,
                                        const std::string& shown) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(ErrnoMessage(shown, "cannot read", errno));
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %d bytes is larger than the %u-byte limit", shown,
                        st.st_size, limit));
  }
  return ReadFileToString(path);
}

// Loads the bundle whose files are below `root`. `shown_root` is how errors
// name that directory (for packed bundles: the archive and the path inside).
absl::StatusOr<std::unique_ptr<Capture>> LoadBundle(
    InputKind kind, const std::string& source_path, const std::string& root,
    const std::string& shown_root, InputOptions options,
    std::optional<TempDir> unpacked) {
  const std::string manifest_where = shown_root + "/manifest.json";
  HWT_ASSIGN_OR_RETURN(std::string manifest_text,
                       ReadBounded(root + "/manifest.json",
                                   kMaxManifestFileSize, manifest_where));
  HWT_ASSIGN_OR_RETURN(Manifest manifest,
                       ParseManifest(manifest_text, manifest_where));
  HWT_RETURN_IF_ERROR(ValidateManifestFiles(manifest, root, manifest_where));

  std::vector<Record> records;
  const std::string records_path = root + "/records.jsonl";
  if (IsRegularFile(records_path)) {
    const std::string records_where = shown_root + "/records.jsonl";
    HWT_ASSIGN_OR_RETURN(
        std::string text,
        ReadBounded(records_path, kMaxRecordsFileSize, records_where));
    HWT_ASSIGN_OR_RETURN(records,
                         ParseRecordsJsonl(text, manifest, records_where));
  }

  if (options.backend && *options.backend != manifest.backend) {
    return absl::InvalidArgumentError(
        absl::StrCat(manifest_where, ": --backend ",
                     std::string(BackendName(*options.backend)),
                     " contradicts the capture's backend ",
                     std::string(BackendName(manifest.backend))));
  }
  if (options.cpu) options.cpu = MergeCpuIdentity(manifest.cpu, *options.cpu);
  return std::make_unique<Capture>(kind, source_path, root, std::move(manifest),
                                   std::move(records), std::move(options),
                                   std::move(unpacked));
}

absl::StatusOr<std::unique_ptr<Capture>> OpenPacked(
    const std::string& path, const InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(TempDir temp, TempDir::Create("hwt-capture"));
  HWT_RETURN_IF_ERROR(UnpackArchive(path, temp.path()));
  // manifest.json at the top, or in the archive's single top directory (how
  // PackBundle and `tar cf x.tar x.hwt` lay it out).
  std::string root = temp.path();
  std::string shown = path;
  if (!IsRegularFile(root + "/manifest.json")) {
    std::vector<std::string> tops;
    std::error_code error;
    for (std::filesystem::directory_iterator it(root, error), end;
         !error && it != end; it.increment(error)) {
      tops.push_back(it->path().filename().string());
    }
    if (tops.size() != 1 ||
        !IsRegularFile(root + "/" + tops[0] + "/manifest.json")) {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          ": packed bundle without manifest.json (looked at the top of the "
          "archive and in its single top-level directory)"));
    }
    root += "/" + tops[0];
    shown += "/" + tops[0];
  }
  return LoadBundle(InputKind::kPackedBundle, path, root, shown, options,
                    std::move(temp));
}

absl::StatusOr<std::unique_ptr<Capture>> OpenRaw(const std::string& path,
                                                 InputOptions options,
                                                 std::string_view note) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  if (file.size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": empty file: no trace to decode"));
  }
  std::optional<RawDetection> detection;
  Backend backend;
  if (options.backend) {
    backend = *options.backend;
    if (backend == Backend::kCoreSight) {
      // Only to learn the formatting; the user already named the backend.
      detection = DetectCoreSight(file.bytes()).detection;
    }
  } else {
    absl::StatusOr<RawDetection> detected =
        DetectRawBackend(file.bytes(), path);
    if (!detected.ok()) {
      if (note.empty()) return detected.status();
      return absl::Status(detected.status().code(),
                          absl::StrCat(detected.status().message(), " (",
                                       std::string(note), ")"));
    }
    detection = std::move(*detected);
    backend = detection->backend;
  }

  Manifest manifest;
  manifest.backend = backend;
  manifest.mode = TraceMode::kThread;
  manifest.command = absl::StrCat("raw trace file ", path);
  if (options.cpu) manifest.cpu = *options.cpu;
  BufferInfo buffer;
  buffer.id = 0;
  buffer.file = std::filesystem::path(path).filename().string();
  buffer.size = file.size();
  manifest.buffers.push_back(buffer);
  if (backend == Backend::kCoreSight) {
    CoreSightConfig& cs = manifest.coresight.emplace();
    if (detection && !detection->coresight_formatted) {
      cs.sink = "raw";
      cs.formatted = false;
    } else if (detection && detection->coresight_fsyncs) {
      cs.sink = "tpiu";
      cs.has_fsyncs = true;
    }
    if (detection) {
      for (uint32_t id : detection->coresight_trace_ids) {
        CoreSightSource source;
        source.trace_id = id;
        cs.sources.push_back(source);
      }
    }
  }
  std::string root =
      Absolute(std::filesystem::path(path).parent_path().string().empty()
                   ? "."
                   : std::filesystem::path(path).parent_path().string());
  return std::make_unique<Capture>(InputKind::kRawFile, path, root,
                                   std::move(manifest), std::vector<Record>(),
                                   std::move(options), std::nullopt);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Capture>> OpenCapture(
    const std::string& path, const InputOptions& options) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat(path, ": no such file or directory"));
    }
    return absl::PermissionDeniedError(ErrnoMessage(path, "cannot open", err));
  }
  if (S_ISDIR(st.st_mode)) {
    if (IsRegularFile(path + "/manifest.json")) {
      std::string shown = path;
      while (shown.size() > 1 && shown.back() == '/') shown.pop_back();
      return LoadBundle(InputKind::kBundleDirectory, path, Absolute(path),
                        shown, options, std::nullopt);
    }
    if (IsRegularFile(path + "/snapshot.ini")) {
      return OpenOpenCsdSnapshot(path, options);
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": directory is neither a capture bundle (no manifest.json) "
        "nor an OpenCSD snapshot (no snapshot.ini)"));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file or a directory"));
  }

  // Packed bundles are recognised by content, whatever their name.
  std::string head;
  {
    HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
    head.assign(reinterpret_cast<const char*>(file.data()),
                std::min<size_t>(file.size(), 512));
  }
  const absl::Span<const uint8_t> head_bytes(
      reinterpret_cast<const uint8_t*>(head.data()), head.size());
  if (perf::LooksLikePerfData(head_bytes)) {
    return perf::OpenPerfData(path, options);
  }
  ArchiveKind kind = SniffArchive(head_bytes);
  if (kind != ArchiveKind::kNone) {
    if (IsTarArchive(path)) return OpenPacked(path, options);
    if (kind == ArchiveKind::kTar) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": has a tar header but cannot be read as tar"));
    }
    // Compressed but no tar inside: it may still be a raw trace that happens
    // to start like that; if not, say what it looked like.
    return OpenRaw(path, options,
                   absl::StrCat("the file starts like ",
                                std::string(ArchiveKindName(kind)),
                                "-compressed data but holds no tar archive; "
                                "decompress raw trace files first"));
  }
  return OpenRaw(path, options, "");
}

}  // namespace hwt::capture
