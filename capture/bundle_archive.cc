// Packing and safe unpacking of bundle archives with libarchive; see
// bundle_archive.h.
#include "capture/bundle_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::capture {
namespace {

constexpr size_t kIoBlock = size_t{1} << 20;

struct ReadArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
using ReadArchive = std::unique_ptr<archive, ReadArchiveDeleter>;
using WriteArchive = std::unique_ptr<archive, WriteArchiveDeleter>;

std::string ArchiveError(archive* a) {
  const char* message = archive_error_string(a);
  return message != nullptr ? message : "unknown libarchive error";
}

absl::StatusOr<ReadArchive> OpenForReading(const std::string& path) {
  ReadArchive a(archive_read_new());
  if (!a) return absl::ResourceExhaustedError("archive_read_new failed");
  archive_read_support_format_tar(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) !=
      ARCHIVE_OK) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": cannot open as an archive: ", ArchiveError(a.get())));
  }
  return a;
}

// Entry path made relative and checked; empty for the archive's "." entry.
absl::StatusOr<std::string> SafeEntryPath(const std::string& archive_path,
                                          const char* raw,
                                          const UnpackLimits& limits) {
  if (raw == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        archive_path, ": an entry has a name that cannot be decoded"));
  }
  std::string name(raw);
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(archive_path, ": entry \"", name, "\": ", std::string(why),
                     "; refusing to unpack"));
  };
  if (name.empty()) return refuse("empty name");
  if (name[0] == '/') return refuse("absolute path");
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return refuse("path contains \"..\"");
    parts.emplace_back(part);
  }
  if (parts.size() > limits.max_depth) return refuse("path too deep");
  return absl::StrJoin(parts, "/");
}

// --- Packing
// -------------------------------------------------------------------

struct PackItem {
  std::string relative;  // below the packed directory
  bool is_dir = false;
  uint64_t size = 0;
};

absl::Status ListTree(const std::string& root, const std::string& relative,
                      std::vector<PackItem>* items) {
  std::string dir_path = relative.empty() ? root : root + "/" + relative;
  DIR* dir = opendir(dir_path.c_str());
  if (dir == nullptr) {
    return absl::NotFoundError(
        ErrnoMessage(dir_path, "cannot read directory", errno));
  }
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir)) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    names.emplace_back(entry->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string child = relative.empty() ? name : relative + "/" + name;
    std::string full = root + "/" + child;
    struct stat st;
    if (lstat(full.c_str(), &st) != 0) {
      return absl::NotFoundError(ErrnoMessage(full, "cannot stat", errno));
    }
    if (S_ISDIR(st.st_mode)) {
      items->push_back({child, true, 0});
      HWT_RETURN_IF_ERROR(ListTree(root, child, items));
    } else if (S_ISREG(st.st_mode)) {
      items->push_back({child, false, static_cast<uint64_t>(st.st_size)});
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          full,
          ": not a regular file or directory (links and special files "
          "are not packed)"));
    }
  }
  return absl::OkStatus();
}

struct WriteTarget {
  AtomicFileWriter* writer;
  absl::Status status;
};

la_ssize_t WriteCallback(archive*, void* client, const void* data,
                         size_t size) {
  auto* target = static_cast<WriteTarget*>(client);
  absl::Status status = target->writer->Write(
      std::string_view(static_cast<const char*>(data), size));
  if (!status.ok()) {
    target->status = status;
    return -1;
  }
  return static_cast<la_ssize_t>(size);
}

}  // namespace

std::string_view ArchiveKindName(ArchiveKind kind) {
  switch (kind) {
    case ArchiveKind::kTar:
      return "tar";
    case ArchiveKind::kZstd:
      return "zstd";
    case ArchiveKind::kGzip:
      return "gzip";
    case ArchiveKind::kNone:
      return "none";
  }
  return "none";
}

// A tar cut inside its first header (before "ustar" at offset 257): a
// name (printable, then NULs) and an octal mode field. Without this a cut
// tar was read as a raw trace (its NULs look like CoreSight frames). Found
// by tests/hostile.
namespace {
bool LooksLikeCutTarHeader(absl::Span<const uint8_t> head) {
  if (head.size() < 108 || head[0] < 0x20 || head[0] >= 0x7f) return false;
  bool ended = false;
  for (size_t i = 0; i < 100; ++i) {
    if (head[i] == 0) {
      ended = true;
    } else if (ended || head[i] < 0x20 || head[i] >= 0x7f) {
      return false;
    }
  }
  for (size_t i = 100; i < 107; ++i) {
    if (head[i] != ' ' && (head[i] < '0' || head[i] > '7')) return false;
  }
  return head[107] == 0 || head[107] == ' ';
}
}  // namespace

ArchiveKind SniffArchive(absl::Span<const uint8_t> head) {
  if (head.size() >= 4 && head[0] == 0x28 && head[1] == 0xb5 &&
      head[2] == 0x2f && head[3] == 0xfd) {
    return ArchiveKind::kZstd;
  }
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
    return ArchiveKind::kGzip;
  }
  if (head.size() >= 262 && memcmp(head.data() + 257, "ustar", 5) == 0) {
    return ArchiveKind::kTar;
  }
  if (head.size() < 512 && LooksLikeCutTarHeader(head)) {
    return ArchiveKind::kTar;
  }
  return ArchiveKind::kNone;
}

ArchiveKind CompressionForPath(std::string_view path) {
  absl::string_view p(path.data(), path.size());
  if (absl::EndsWith(p, ".zst") || absl::EndsWith(p, ".tzst")) {
    return ArchiveKind::kZstd;
  }
  if (absl::EndsWith(p, ".gz") || absl::EndsWith(p, ".tgz")) {
    return ArchiveKind::kGzip;
  }
  return ArchiveKind::kTar;
}

bool IsTarArchive(const std::string& path) {
  auto a = OpenForReading(path);
  if (!a.ok()) return false;
  archive_entry* entry = nullptr;
  int r = archive_read_next_header(a->get(), &entry);
  return r == ARCHIVE_OK || r == ARCHIVE_WARN || r == ARCHIVE_EOF;
}

absl::Status UnpackArchive(const std::string& archive_path,
                           const std::string& dest,
                           const UnpackLimits& limits) {
  HWT_ASSIGN_OR_RETURN(ReadArchive a, OpenForReading(archive_path));
  std::vector<char> block(kIoBlock);
  uint64_t total = 0;
  size_t entries = 0;
  while (true) {
    archive_entry* entry = nullptr;
    int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      return absl::InvalidArgumentError(absl::StrCat(
          archive_path, ": not a valid tar archive: ", ArchiveError(a.get())));
    }
    if (++entries > limits.max_entries) {
      return absl::InvalidArgumentError(
          absl::StrCat(archive_path, ": more than ", limits.max_entries,
                       " entries; refusing to unpack"));
    }
    const char* raw_name = archive_entry_pathname(entry);
    const std::string shown = raw_name != nullptr ? raw_name : "?";
    auto refuse = [&](std::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat(archive_path, ": entry \"", shown,
                       "\": ", std::string(why), "; refusing to unpack"));
    };
    if (archive_entry_hardlink(entry) != nullptr) return refuse("hard link");
    const mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFLNK) return refuse("symbolic link");
    if (type != AE_IFREG && type != AE_IFDIR) {
      return refuse("device, FIFO or other special file");
    }
    HWT_ASSIGN_OR_RETURN(std::string relative,
                         SafeEntryPath(archive_path, raw_name, limits));
    if (type == AE_IFDIR) {
      HWT_RETURN_IF_ERROR(MakeDirsBelow(dest, relative));
      continue;
    }
    if (relative.empty()) return refuse("a file with an empty name");
    if (archive_entry_size_is_set(entry) &&
        static_cast<uint64_t>(archive_entry_size(entry)) >
            limits.max_entry_bytes) {
      return refuse(absl::StrFormat("%d bytes is above the %u-byte limit",
                                    archive_entry_size(entry),
                                    limits.max_entry_bytes));
    }
    size_t slash = relative.rfind('/');
    if (slash != std::string::npos) {
      HWT_RETURN_IF_ERROR(MakeDirsBelow(dest, relative.substr(0, slash)));
    }
    std::string out_path = dest + "/" + relative;
    int fd = open(out_path.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == EEXIST) return refuse("the path appears twice");
      return absl::PermissionDeniedError(
          ErrnoMessage(out_path, "cannot create", errno));
    }
    uint64_t entry_bytes = 0;
    absl::Status status;
    while (status.ok()) {
      la_ssize_t n = archive_read_data(a.get(), block.data(), block.size());
      if (n == 0) break;
      if (n < 0) {
        status = absl::InvalidArgumentError(
            absl::StrCat(archive_path, ": entry \"", shown,
                         "\": cannot read data: ", ArchiveError(a.get())));
        break;
      }
      entry_bytes += static_cast<uint64_t>(n);
      total += static_cast<uint64_t>(n);
      if (entry_bytes > limits.max_entry_bytes) {
        status = refuse(absl::StrFormat("more than %u bytes of data",
                                        limits.max_entry_bytes));
        break;
      }
      if (total > limits.max_total_bytes) {
        status = absl::InvalidArgumentError(absl::StrFormat(
            "%s: more than %u bytes of unpacked data; refusing to unpack",
            archive_path, limits.max_total_bytes));
        break;
      }
      status = WriteAllToFd(
          fd, std::string_view(block.data(), static_cast<size_t>(n)), out_path);
    }
    if (close(fd) != 0 && status.ok()) {
      status =
          absl::DataLossError(ErrnoMessage(out_path, "close failed", errno));
    }
    HWT_RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::Status PackDirectory(const std::string& dir, const std::string& top_name,
                           const std::string& archive_path,
                           ArchiveKind compression) {
  std::vector<PackItem> items;
  HWT_RETURN_IF_ERROR(ListTree(dir, "", &items));
  HWT_ASSIGN_OR_RETURN(AtomicFileWriter writer,
                       AtomicFileWriter::Create(archive_path));
  WriteArchive a(archive_write_new());
  if (!a) return absl::ResourceExhaustedError("archive_write_new failed");
  // pax (restricted): plain ustar headers unless a name or size needs more.
  archive_write_set_format_pax_restricted(a.get());
  // No padding to 10240-byte blocks: zeros after a zstd frame are not zstd.
  archive_write_set_bytes_in_last_block(a.get(), 1);
  int r = ARCHIVE_OK;
  if (compression == ArchiveKind::kZstd) {
    r = archive_write_add_filter_zstd(a.get());
  } else if (compression == ArchiveKind::kGzip) {
    r = archive_write_add_filter_gzip(a.get());
    if (r == ARCHIVE_OK) {
      // No file name or time in the gzip header: reproducible output.
      archive_write_set_filter_option(a.get(), "gzip", "timestamp", nullptr);
    }
  }
  if (r != ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat(
        archive_path, ": cannot set up compression: ", ArchiveError(a.get())));
  }
  WriteTarget target{&writer, absl::OkStatus()};
  if (archive_write_open(a.get(), &target, nullptr, &WriteCallback, nullptr) !=
      ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat(
        archive_path, ": cannot start the archive: ", ArchiveError(a.get())));
  }
  auto failure = [&](std::string_view what) {
    if (!target.status.ok()) return target.status;
    return absl::InternalError(absl::StrCat(
        archive_path, ": ", std::string(what), ": ", ArchiveError(a.get())));
  };
  std::vector<PackItem> all;
  all.push_back({"", true, 0});  // the top directory itself
  all.insert(all.end(), items.begin(), items.end());
  std::vector<char> block(kIoBlock);
  for (const PackItem& item : all) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(
        archive_entry_new(), archive_entry_free);
    std::string name = item.relative.empty() ? top_name + "/"
                                             : top_name + "/" + item.relative +
                                                   (item.is_dir ? "/" : "");
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_filetype(entry.get(), item.is_dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), item.is_dir ? 0755 : 0644);
    archive_entry_set_size(
        entry.get(), static_cast<la_int64_t>(item.is_dir ? 0 : item.size));
    archive_entry_set_mtime(entry.get(), 0, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK) {
      return failure(absl::StrCat("cannot write the header of ", name));
    }
    if (item.is_dir) continue;
    std::string source = dir + "/" + item.relative;
    int fd = open(source.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      return absl::NotFoundError(ErrnoMessage(source, "cannot open", errno));
    }
    uint64_t copied = 0;
    absl::Status status;
    while (status.ok()) {
      ssize_t n = read(fd, block.data(), block.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        status =
            absl::DataLossError(ErrnoMessage(source, "read failed", errno));
        break;
      }
      if (n == 0) break;
      copied += static_cast<uint64_t>(n);
      if (copied > item.size) {
        status = absl::DataLossError(
            absl::StrCat(source, ": grew while being packed"));
        break;
      }
      if (archive_write_data(a.get(), block.data(), static_cast<size_t>(n)) !=
          n) {
        status = failure(absl::StrCat("cannot write the data of ", name));
      }
    }
    close(fd);
    HWT_RETURN_IF_ERROR(status);
    if (copied != item.size) {
      return absl::DataLossError(
          absl::StrCat(source, ": shrank while being packed"));
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    return failure("cannot finish the archive");
  }
  HWT_RETURN_IF_ERROR(target.status);
  return writer.Commit();
}

}  // namespace hwt::capture
