// The output directory and its locks; see out_dir.h.
#include "batch/out_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/stable_hash.h"
#include "base/status_macros.h"

namespace hwt::batch {
namespace {

constexpr char kSubmissionLock[] = ".hwt-batch.slurm.lock";

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
    const std::string holder(absl::StripTrailingAsciiWhitespace(pid));
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

absl::Status MakeLayout(const std::string& path) {
  HWT_RETURN_IF_ERROR(MakeDirs(path));
  HWT_RETURN_IF_ERROR(MakeDirs(path + "/profiles"));
  return MakeDirs(path + "/rows");
}

// The directory's lock (exclusive or shared), then an exclusive `second`
// lock file described as `what` in its message.
absl::StatusOr<std::pair<int, int>> LockPair(const std::string& path,
                                             bool exclusive,
                                             const std::string& second,
                                             const std::string& what) {
  auto main_lock = Lock(path + "/.hwt-batch.lock", exclusive, path);
  if (!main_lock.ok()) {
    // Shared holders write no pid; a waiting submission names itself in
    // its own lock file (emptied when it lets go).
    auto submitter = ReadFileToString(path + "/" + kSubmissionLock);
    const std::string pid(
        absl::StripTrailingAsciiWhitespace(submitter.ok() ? *submitter : ""));
    if (pid.empty()) return main_lock.status();
    return absl::FailedPreconditionError(absl::StrCat(
        path, " is in use by hwt-batch slurm (pid ", pid,
        "), whose job is queued or running; wait for it to finish, or use "
        "another -o"));
  }
  const int lock = *main_lock;
  if (second.empty()) return std::make_pair(lock, -1);
  auto locked = Lock(path + "/" + second, true, what);
  if (!locked.ok()) {
    close(lock);
    return locked.status();
  }
  return std::make_pair(lock, *locked);
}

}  // namespace

absl::StatusOr<OutDir> OutDir::Open(const std::string& path,
                                    std::optional<std::pair<int, int>> shard) {
  HWT_RETURN_IF_ERROR(MakeLayout(path));
  std::string second, what;
  if (shard) {
    second = absl::StrFormat(".hwt-batch.shard-%d-of-%d.lock", shard->first,
                             shard->second);
    what =
        absl::StrFormat("%s (shard %d/%d)", path, shard->first, shard->second);
  }
  HWT_ASSIGN_OR_RETURN(auto fds,
                       LockPair(path, !shard.has_value(), second, what));
  return OutDir(path, fds.first, !shard.has_value(), fds.second);
}

absl::StatusOr<OutDir> OutDir::OpenForSubmission(const std::string& path) {
  HWT_RETURN_IF_ERROR(MakeLayout(path));
  HWT_ASSIGN_OR_RETURN(auto fds,
                       LockPair(path, /*exclusive=*/false, kSubmissionLock,
                                path + " (a Slurm submission)"));
  return OutDir(path, fds.first, /*exclusive=*/false, fds.second);
}

OutDir::OutDir(OutDir&& other) noexcept
    : path_(std::move(other.path_)),
      lock_fd_(other.lock_fd_),
      exclusive_(other.exclusive_),
      second_lock_fd_(other.second_lock_fd_) {
  other.lock_fd_ = other.second_lock_fd_ = -1;
}

OutDir::~OutDir() {
  // Exclusive locks hold their holder's pid: empty them, so that a message
  // never names a batch that has ended. (The second lock is exclusive.)
  if (second_lock_fd_ >= 0) {
    (void)!ftruncate(second_lock_fd_, 0);
    close(second_lock_fd_);
  }
  if (lock_fd_ >= 0) {
    if (exclusive_) (void)!ftruncate(lock_fd_, 0);
    close(lock_fd_);
  }
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
