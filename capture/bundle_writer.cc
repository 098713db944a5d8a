// Writes capture bundles atomically and packs them; see bundle_writer.h and
// docs/capture-format.md.
#include "capture/bundle_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/bundle_archive.h"
#include "capture/elf_file.h"
#include "capture/manifest_json.h"
#include "capture/records_jsonl.h"

namespace hwt::capture {
namespace {

constexpr size_t kCopyBlock = size_t{1} << 20;
std::atomic<uint64_t> g_aside_counter{0};

// Splits "a/b/x.hwt/" into ("a/b", "x.hwt").
std::pair<std::string, std::string> SplitDir(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  size_t slash = dir.rfind('/');
  if (slash == std::string::npos) return {".", dir};
  if (slash == 0) return {"/", dir.substr(1)};
  return {dir.substr(0, slash), dir.substr(slash + 1)};
}

// Creates the directories of `relative` (a file path) below `root`.
absl::Status MakeParents(const std::string& root, const std::string& relative) {
  size_t slash = relative.rfind('/');
  if (slash == std::string::npos) return absl::OkStatus();
  return MakeDirsBelow(root, relative.substr(0, slash));
}

// Creates `path` (which must not exist), fills it and fsyncs it.
absl::Status WriteNewFile(const std::string& path, std::string_view data) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        ErrnoMessage(path, "cannot create", errno));
  }
  absl::Status status = WriteAllToFd(fd, data, path);
  if (status.ok() && fsync(fd) != 0 && errno != EINVAL) {
    status = absl::DataLossError(ErrnoMessage(path, "fsync failed", errno));
  }
  close(fd);
  return status;
}

absl::Status CopyFile(const std::string& source, const std::string& dest) {
  int in = open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    return absl::NotFoundError(
        ErrnoMessage(source, "cannot open image to bundle", errno));
  }
  int out = open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    int err = errno;
    close(in);
    return absl::PermissionDeniedError(
        ErrnoMessage(dest, "cannot create", err));
  }
  std::vector<char> block(kCopyBlock);
  absl::Status status;
  while (status.ok()) {
    ssize_t n = read(in, block.data(), block.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      status = absl::DataLossError(ErrnoMessage(source, "read failed", errno));
      break;
    }
    if (n == 0) break;
    status = WriteAllToFd(
        out, std::string_view(block.data(), static_cast<size_t>(n)), dest);
  }
  if (status.ok() && fsync(out) != 0 && errno != EINVAL) {
    status = absl::DataLossError(ErrnoMessage(dest, "fsync failed", errno));
  }
  close(in);
  close(out);
  return status;
}

void SyncDirectory(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);  // best effort: durability, not correctness
  close(fd);
}

// A file name for an image without a build-id: its base name, made safe.
std::string SafeBaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (char& c : base) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != '-' && c != '+') {
      c = '_';
    }
  }
  if (base.empty() || base == "." || base == "..") base = "image";
  return base;
}

bool IsReserved(const std::string& path) {
  return path == "manifest.json" || path == "records.jsonl" ||
         absl::StartsWith(path, "buffers/") || path == "buffers" ||
         absl::StartsWith(path, "images/") || path == "images";
}

struct PlannedImage {
  std::string source;
  std::string file;  // relative
};

// The manifest as it will be written (current format version, bundle file
// names) and the image files to copy.
struct BundlePlan {
  Manifest manifest;
  std::vector<PlannedImage> copies;
};

absl::StatusOr<BundlePlan> PlanBundle(const BundleContents& contents) {
  BundlePlan plan;
  Manifest& manifest = plan.manifest;
  manifest = contents.manifest;
  manifest.major_version = kFormatMajorVersion;
  manifest.minor_version = kFormatMinorVersion;
  manifest.buffers.clear();
  for (const BufferContents& buffer : contents.buffers) {
    BufferInfo info = buffer.info;
    info.file = absl::StrCat("buffers/", info.id, ".bin");
    info.size = buffer.data.size();
    manifest.buffers.push_back(std::move(info));
  }
  manifest.images.clear();
  std::map<std::string, std::string> file_by_build_id;
  for (size_t i = 0; i < contents.images.size(); ++i) {
    const ImageToBundle& image = contents.images[i];
    std::string build_id = absl::AsciiStrToLower(image.build_id);
    if (build_id.empty()) {
      absl::StatusOr<ElfInfo> elf = ReadElfFile(image.source_file);
      if (!elf.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("image ", image.original_path, " (", image.source_file,
                         "): ", elf.status().message()));
      }
      build_id = elf->build_id;
    }
    BundledImage bundled;
    bundled.build_id = build_id;
    bundled.original_path = image.original_path;
    if (!build_id.empty()) {
      auto [it, added] =
          file_by_build_id.emplace(build_id, absl::StrCat("images/", build_id));
      if (added) plan.copies.push_back({image.source_file, it->second});
      bundled.file = it->second;
    } else {
      bundled.file = absl::StrCat("images/no-build-id/", i, "-",
                                  SafeBaseName(image.original_path));
      plan.copies.push_back({image.source_file, bundled.file});
    }
    manifest.images.push_back(std::move(bundled));
  }
  return plan;
}

// The extra files: safe paths, none of the format's own, none twice, and
// every memory dump among them.
absl::Status CheckExtraFiles(const std::string& dir, const std::string& where,
                             const BundleContents& contents,
                             const Manifest& manifest) {
  std::set<std::string> extra_paths;
  for (const auto& [path, data] : contents.extra_files) {
    if (std::optional<std::string> reason = UnsafeBundlePathReason(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat(dir, ": extra file: ", *reason));
    }
    if (IsReserved(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat(dir, ": extra file \"", path,
                       "\" would replace a file the bundle format defines"));
    }
    if (!extra_paths.insert(path).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(dir, ": extra file \"", path, "\" given twice"));
    }
  }
  for (size_t i = 0; i < manifest.memory.size(); ++i) {
    if (extra_paths.count(manifest.memory[i].file) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": memory[", i, "].file: \"", manifest.memory[i].file,
          "\" is not among the bundle's extra files"));
    }
  }
  return absl::OkStatus();
}

// Whether the bundle may go to `final_path`: absent, or (with `overwrite`) a
// bundle already.
absl::Status CheckDestination(const std::string& dir,
                              const std::string& final_path, bool overwrite) {
  if (!PathExists(final_path)) return absl::OkStatus();
  if (!overwrite) {
    return absl::AlreadyExistsError(
        absl::StrCat(dir,
                     ": already exists; not replacing it (remove it or ask to "
                     "overwrite)"));
  }
  if (!PathExists(final_path + "/manifest.json")) {
    return absl::FailedPreconditionError(absl::StrCat(
        dir,
        ": exists and is not a capture bundle (no manifest.json); not "
        "replacing it"));
  }
  return absl::OkStatus();
}

// Every file of the bundle below `root`, the manifest last (a directory
// with a manifest is a complete bundle).
absl::Status WriteBundleFiles(const std::string& root,
                              const BundleContents& contents,
                              const BundlePlan& plan) {
  const Manifest& manifest = plan.manifest;
  for (size_t i = 0; i < contents.buffers.size(); ++i) {
    HWT_RETURN_IF_ERROR(MakeParents(root, manifest.buffers[i].file));
    HWT_RETURN_IF_ERROR(WriteNewFile(root + "/" + manifest.buffers[i].file,
                                     contents.buffers[i].data));
  }
  for (const PlannedImage& copy : plan.copies) {
    HWT_RETURN_IF_ERROR(MakeParents(root, copy.file));
    HWT_RETURN_IF_ERROR(CopyFile(copy.source, root + "/" + copy.file));
  }
  for (const auto& [path, data] : contents.extra_files) {
    HWT_RETURN_IF_ERROR(MakeParents(root, path));
    HWT_RETURN_IF_ERROR(WriteNewFile(root + "/" + path, data));
  }
  HWT_RETURN_IF_ERROR(WriteNewFile(
      root + "/records.jsonl",
      RecordsToJsonl(contents.records, manifest.record_numbering)));
  HWT_RETURN_IF_ERROR(
      WriteNewFile(root + "/manifest.json", ManifestToJson(manifest)));
  SyncDirectory(root);
  return absl::OkStatus();
}

// Renames the finished temporary directory to `final_path`, replacing an
// old bundle there: moved aside first, put back if the rename fails.
absl::Status MoveIntoPlace(TempDir& temp, const std::string& parent,
                           const std::string& name,
                           const std::string& final_path) {
  const std::string& root = temp.path();
  if (PathExists(final_path)) {
    std::string aside = absl::StrFormat("%s/.%s.old.%d.%d", parent, name,
                                        getpid(), g_aside_counter.fetch_add(1));
    if (rename(final_path.c_str(), aside.c_str()) != 0) {
      return absl::PermissionDeniedError(
          ErrnoMessage(final_path, "cannot move the old bundle aside", errno));
    }
    if (rename(root.c_str(), final_path.c_str()) != 0) {
      int err = errno;
      rename(aside.c_str(), final_path.c_str());
      return absl::PermissionDeniedError(
          ErrnoMessage(final_path, "cannot rename the bundle into place", err));
    }
    temp.Release();
    std::error_code ignored;
    std::filesystem::remove_all(aside, ignored);
  } else {
    if (rename(root.c_str(), final_path.c_str()) != 0) {
      return absl::PermissionDeniedError(ErrnoMessage(
          final_path, "cannot rename the bundle into place", errno));
    }
    temp.Release();
  }
  SyncDirectory(parent);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteBundle(const std::string& dir, const BundleContents& contents,
                         bool overwrite) {
  const std::string where = absl::StrCat(dir, "/manifest.json");
  // 1. The manifest as it will be written, and the plan of every file.
  HWT_ASSIGN_OR_RETURN(BundlePlan plan, PlanBundle(contents));
  // 2. Validate before touching the file system: the reader's rules.
  HWT_RETURN_IF_ERROR(ValidateManifest(plan.manifest, where));
  HWT_RETURN_IF_ERROR(ValidateRecords(contents.records, plan.manifest,
                                      absl::StrCat(dir, "/records.jsonl")));
  HWT_RETURN_IF_ERROR(CheckExtraFiles(dir, where, contents, plan.manifest));
  // 3. Where it goes.
  auto [parent, name] = SplitDir(dir);
  if (name.empty() || name == "." || name == "..") {
    return absl::InvalidArgumentError(
        absl::StrCat(dir, ": not a usable bundle directory name"));
  }
  const std::string final_path = parent + "/" + name;
  HWT_RETURN_IF_ERROR(CheckDestination(dir, final_path, overwrite));
  // 4. Everything into a sibling temporary directory (removed on any error or
  // signal), then one rename.
  HWT_ASSIGN_OR_RETURN(
      TempDir temp, TempDir::CreateIn(parent, absl::StrCat(".", name, ".tmp")));
  chmod(temp.path().c_str(), 0755);
  HWT_RETURN_IF_ERROR(WriteBundleFiles(temp.path(), contents, plan));
  return MoveIntoPlace(temp, parent, name, final_path);
}

absl::Status PackBundle(const std::string& bundle_dir,
                        const std::string& path) {
  const std::string manifest_path = bundle_dir + "/manifest.json";
  HWT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(manifest_path));
  HWT_ASSIGN_OR_RETURN(Manifest manifest, ParseManifest(text, manifest_path));
  HWT_RETURN_IF_ERROR(
      ValidateManifestFiles(manifest, bundle_dir, manifest_path));
  return PackDirectory(bundle_dir, SplitDir(bundle_dir).second, path,
                       CompressionForPath(path));
}

}  // namespace hwt::capture
