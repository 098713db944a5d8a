// Implementation of the file helpers; see file_util.h.
#include "base/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace hwt {
namespace {

// Paths to remove when the process is interrupted. Signal handlers may only
// touch lock-free state, so this is a fixed table of atomically published
// C strings. A slot is reserved first, then its kind is set, then its
// malloc'ed path is published: the handler only reads slots whose path is
// set, and never sees the kind of a slot being filled by someone else.
constexpr int kCleanupSlots = 256;
// Each slot names the process that registered it: a child forked before
// exec inherits the table and the handlers, and a signal it gets must not
// remove its parent's files (found by tests/hostile: a SIGINT between fork
// and exec removed the parent's temporary directory).
struct CleanupSlot {
  std::atomic<bool> reserved{false};
  std::atomic<bool> is_dir{false};
  std::atomic<pid_t> owner{0};
  std::atomic<char*> path{nullptr};
};
CleanupSlot g_cleanup[kCleanupSlots];
std::atomic<bool> g_handlers_installed{false};

void RemoveTreeBestEffort(const char* path) {
  DIR* dir = opendir(path);
  if (dir != nullptr) {
    while (dirent* entry = readdir(dir)) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
        continue;
      char child[4096];
      int n = snprintf(child, sizeof(child), "%s/%s", path, entry->d_name);
      if (n <= 0 || n >= static_cast<int>(sizeof(child))) continue;
      struct stat st;
      if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) {
        RemoveTreeBestEffort(child);
      } else {
        unlink(child);
      }
    }
    closedir(dir);
  }
  rmdir(path);
}

void CleanupOnSignal(int sig) {
  for (auto& slot : g_cleanup) {
    char* path = slot.path.load();
    if (path == nullptr || slot.owner.load() != getpid()) continue;
    if (slot.is_dir.load()) {
      RemoveTreeBestEffort(path);
    } else {
      unlink(path);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void InstallHandlersOnce() {
  bool expected = false;
  if (!g_handlers_installed.compare_exchange_strong(expected, true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current;
    if (sigaction(sig, nullptr, &current) == 0 &&
        current.sa_handler == SIG_IGN) {
      continue;  // Respect nohup and friends.
    }
    struct sigaction action = {};
    action.sa_handler = CleanupOnSignal;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

int RegisterCleanup(const std::string& path, bool is_dir) {
  InstallHandlersOnce();
  char* copy = strdup(path.c_str());
  for (int i = 0; i < kCleanupSlots; ++i) {
    bool expected = false;
    if (!g_cleanup[i].reserved.compare_exchange_strong(expected, true)) {
      continue;
    }
    g_cleanup[i].is_dir.store(is_dir);
    g_cleanup[i].owner.store(getpid());
    g_cleanup[i].path.store(copy);
    return i;
  }
  free(copy);  // Table full: cleanup on signal is best effort.
  return -1;
}

// Holds SIGINT, SIGTERM and SIGHUP back while a temporary file or directory
// is created and registered for cleanup: a signal in between would leave it
// behind (found by tests/hostile, interrupting hwt-emulate the moment its
// temporary bundle directory appeared). A held signal is delivered when the
// scope ends, to the handler, which then removes the registered path.
class TerminationSignalsHeld {
 public:
  TerminationSignalsHeld() {
    InstallHandlersOnce();
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~TerminationSignalsHeld() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  TerminationSignalsHeld(const TerminationSignalsHeld&) = delete;
  TerminationSignalsHeld& operator=(const TerminationSignalsHeld&) = delete;

 private:
  sigset_t old_;
};

void UnregisterCleanup(int slot) {
  if (slot < 0) return;
  char* path = g_cleanup[slot].path.exchange(nullptr);
  free(path);
  g_cleanup[slot].reserved.store(false);
}

// Maps a temp path to its cleanup slot; kept beside the writer/dir objects.
int SlotFor(const std::string& path) {
  for (int i = 0; i < kCleanupSlots; ++i) {
    char* p = g_cleanup[i].path.load();
    if (p != nullptr && path == p) return i;
  }
  return -1;
}

std::atomic<uint64_t> g_temp_counter{0};

// Opens `path` for reading; a missing file is NotFound, anything else
// (permissions, loops, ...) PermissionDenied.
absl::StatusOr<int> OpenReadOnly(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string message = ErrnoMessage(path, "cannot open", err);
    return err == ENOENT ? absl::NotFoundError(message)
                         : absl::PermissionDeniedError(message);
  }
  return fd;
}

}  // namespace

std::string ErrnoMessage(std::string_view path, std::string_view what,
                         int err) {
  return absl::StrFormat("%s: %s: %s", path, what, strerror(err));
}

absl::Status WriteAllToFd(int fd, std::string_view data,
                          std::string_view path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::DataLossError(ErrnoMessage(path, "write failed", errno));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<std::vector<std::string>> SortedDirectoryNames(
    const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    return absl::PermissionDeniedError(
        ErrnoMessage(path, "cannot read directory", errno));
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status MakeDirsBelow(const std::string& root,
                           const std::string& relative) {
  std::string path = root;
  for (absl::string_view part : absl::StrSplit(relative, '/')) {
    if (part.empty()) continue;
    absl::StrAppend(&path, "/", part);
    if (mkdir(path.c_str(), 0755) != 0) {
      if (errno != EEXIST) {
        return absl::PermissionDeniedError(
            ErrnoMessage(path, "cannot create directory", errno));
      }
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": exists and is not a directory"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(int fd, OpenReadOnly(path));
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory, expected a file"));
  }
  std::string data;
  char chunk[1 << 16];
  while (true) {
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      return absl::DataLossError(ErrnoMessage(path, "read failed", err));
    }
    if (n == 0) break;
    data.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return data;
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(int fd, OpenReadOnly(path));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return absl::InternalError(ErrnoMessage(path, "fstat failed", err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file"));
  }
  MappedFile file;
  file.path_ = path;
  file.size_ = static_cast<size_t>(st.st_size);
  if (file.size_ > 0) {
    void* map = mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      int err = errno;
      close(fd);
      return absl::ResourceExhaustedError(
          ErrnoMessage(path, "mmap failed", err));
    }
    file.data_ = static_cast<const uint8_t*>(map);
  }
  close(fd);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      path_(std::move(other.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    path_ = std::move(other.path_);
  }
  return *this;
}

MappedFile::~MappedFile() { Reset(); }

void MappedFile::Reset() {
  if (data_ != nullptr) {
    munmap(const_cast<uint8_t*>(data_), size_);
  }
  data_ = nullptr;
  size_ = 0;
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::string temp_path,
                                   int fd)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {}

absl::StatusOr<AtomicFileWriter> AtomicFileWriter::Create(
    const std::string& path) {
  std::string temp_path =
      absl::StrCat(path, ".tmp.", getpid(), ".", g_temp_counter.fetch_add(1));
  TerminationSignalsHeld held;
  int fd =
      open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        ErrnoMessage(path, "cannot create output file", errno));
  }
  RegisterCleanup(temp_path, /*is_dir=*/false);
  return AtomicFileWriter(path, std::move(temp_path), fd);
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      fd_(std::exchange(other.fd_, -1)),
      buffer_(std::move(other.buffer_)),
      first_error_(std::move(other.first_error_)) {
  other.temp_path_.clear();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(temp_path_.c_str());
    UnregisterCleanup(SlotFor(temp_path_));
  }
}

absl::Status AtomicFileWriter::Write(std::string_view data) {
  if (!first_error_.ok()) return first_error_;
  if (fd_ < 0) return absl::FailedPreconditionError("writer already closed");
  buffer_.append(data);
  if (buffer_.size() < (1 << 20)) return absl::OkStatus();
  return Flush();
}

absl::Status AtomicFileWriter::Flush() {
  if (!first_error_.ok()) return first_error_;
  first_error_ = WriteAllToFd(fd_, buffer_, path_);
  buffer_.clear();
  return first_error_;
}

absl::Status AtomicFileWriter::Commit() {
  if (fd_ < 0) return absl::FailedPreconditionError("writer already closed");
  if (!buffer_.empty()) Flush().IgnoreError();  // Commit reports first_error_.
  if (first_error_.ok() && fsync(fd_) != 0 && errno != EINVAL) {
    first_error_ =
        absl::DataLossError(ErrnoMessage(path_, "fsync failed", errno));
  }
  close(fd_);
  fd_ = -1;
  int slot = SlotFor(temp_path_);
  if (!first_error_.ok()) {
    unlink(temp_path_.c_str());
    UnregisterCleanup(slot);
    return first_error_;
  }
  if (rename(temp_path_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    unlink(temp_path_.c_str());
    UnregisterCleanup(slot);
    return absl::PermissionDeniedError(
        ErrnoMessage(path_, "cannot rename output into place", err));
  }
  UnregisterCleanup(slot);
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view data) {
  auto writer = AtomicFileWriter::Create(path);
  if (!writer.ok()) return writer.status();
  absl::Status status = writer->Write(data);
  if (!status.ok()) return status;
  return writer->Commit();
}

absl::StatusOr<TempDir> TempDir::Create(std::string_view prefix) {
  const char* base = getenv("TMPDIR");
  return CreateIn(base != nullptr && *base ? base : "/tmp", prefix);
}

absl::StatusOr<TempDir> TempDir::CreateIn(const std::string& parent,
                                          std::string_view prefix) {
  std::string templ = absl::StrFormat("%s/%s.XXXXXX", parent, prefix);
  TerminationSignalsHeld held;
  if (mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(
        ErrnoMessage(templ, "cannot create temporary directory", errno));
  }
  RegisterCleanup(templ, /*is_dir=*/true);
  return TempDir(templ);
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::exchange(other.path_, std::string())) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    if (!path_.empty()) {
      RemoveTreeBestEffort(path_.c_str());
      UnregisterCleanup(SlotFor(path_));
    }
    path_ = std::exchange(other.path_, std::string());
  }
  return *this;
}

void TempDir::Release() {
  if (path_.empty()) return;
  UnregisterCleanup(SlotFor(path_));
  path_.clear();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  RemoveTreeBestEffort(path_.c_str());
  UnregisterCleanup(SlotFor(path_));
}

std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path
                                                     : path.substr(slash + 1));
}

}  // namespace hwt
