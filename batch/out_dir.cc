// The output directory and its locks; see out_dir.h.
#include "batch/out_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/stable_hash.h"
#include "base/status_macros.h"

namespace hwt::batch {
namespace {

absl::Status MakeDirs(const std::string& path) {
  std::string prefix;
  for (size_t at = 0; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    prefix = path.substr(0, at);
    if (prefix.empty()) continue;
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      return absl::InternalError(
          ErrnoMessage(prefix, "cannot create directory", errno));
    }
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InternalError(absl::StrCat(path, ": not a directory"));
  }
  return absl::OkStatus();
}

// Opens `file` and locks it; the holder's pid is written into exclusive
// locks so that the message can name it.
absl::StatusOr<int> Lock(const std::string& file, bool exclusive,
                         const std::string& what) {
  const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return absl::InternalError(ErrnoMessage(file, "cannot open", errno));
  }
  if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    char pid[32] = {0};
    (void)!pread(fd, pid, sizeof(pid) - 1, 0);
    close(fd);
    std::string holder(pid);
    while (!holder.empty() && (holder.back() == '\n')) holder.pop_back();
    return absl::FailedPreconditionError(
        absl::StrCat(what, " is in use by another hwt-batch",
                     holder.empty() ? "" : absl::StrCat(" (pid ", holder, ")"),
                     "; wait for it to finish, or use another -o"));
  }
  if (exclusive) {
    const std::string pid = absl::StrCat(getpid(), "\n");
    if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  }
  return fd;
}

}  // namespace

absl::StatusOr<OutDir> OutDir::Open(const std::string& path,
                                    std::optional<std::pair<int, int>> shard) {
  HWT_RETURN_IF_ERROR(MakeDirs(path));
  HWT_RETURN_IF_ERROR(MakeDirs(path + "/profiles"));
  HWT_RETURN_IF_ERROR(MakeDirs(path + "/rows"));
  HWT_ASSIGN_OR_RETURN(
      int lock, Lock(path + "/.hwt-batch.lock", !shard.has_value(), path));
  int shard_fd = -1;
  if (shard) {
    auto locked = Lock(
        absl::StrFormat("%s/.hwt-batch.shard-%d-of-%d.lock", path, shard->first,
                        shard->second),
        true,
        absl::StrFormat("%s (shard %d/%d)", path, shard->first, shard->second));
    if (!locked.ok()) {
      close(lock);
      return locked.status();
    }
    shard_fd = *locked;
  }
  return OutDir(path, lock, shard_fd);
}

OutDir::OutDir(OutDir&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(other.lock_fd_),
      shard_fd_(other.shard_fd_) {
  other.lock_fd_ = other.shard_fd_ = -1;
}

OutDir::~OutDir() {
  if (shard_fd_ >= 0) close(shard_fd_);
  if (lock_fd_ >= 0) close(lock_fd_);
}

std::string OutDir::ProfilePath(const std::string& name) const {
  return absl::StrCat(path_, "/profiles/", name, ".hwtprof");
}

std::string OutDir::RowPath(const std::string& name) const {
  return absl::StrCat(path_, "/rows/", name, ".json");
}

std::string OutDir::GroupFile(const std::string& value) {
  std::string safe;
  for (char c : value) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                       c == '.' || c == '=';
    safe += plain ? c : '_';
  }
  if (safe != value || safe.empty() || safe == "." || safe == "..") {
    // Values that differ only in unsafe characters stay apart.
    safe = absl::StrFormat("%s~%08x", safe, StableHash64(value) >> 32);
  }
  return absl::StrCat("groups/", safe, ".hwtprof");
}

absl::Status OutDir::PrepareName(const std::string& name) const {
  const size_t slash = name.rfind('/');
  if (slash == std::string::npos) return absl::OkStatus();
  const std::string dir = name.substr(0, slash);
  HWT_RETURN_IF_ERROR(MakeDirsBelow(path_ + "/profiles", dir));
  return MakeDirsBelow(path_ + "/rows", dir);
}

}  // namespace hwt::batch
