// File helpers shared by every layer: whole-file reads, read-only memory maps
// for trace buffers, and atomic writers (write a temporary file, then rename)
// so that no tool ever leaves a half-written output behind.
#ifndef HWT_BASE_FILE_UTIL_H_
#define HWT_BASE_FILE_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt {

// Reads a whole file. Errors name the file and the system error.
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// A read-only view of a whole file, memory mapped (empty files are fine).
class MappedFile {
 public:
  static absl::StatusOr<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  absl::Span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  void Reset();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

// Writes a file atomically: data goes to "<path>.tmp.<pid>.<n>" in the same
// directory and is renamed over `path` by Commit(). If the writer is destroyed
// without Commit(), or the process is interrupted by SIGINT/SIGTERM/SIGHUP, the
// temporary file is removed and `path` is untouched.
class AtomicFileWriter {
 public:
  static absl::StatusOr<AtomicFileWriter> Create(const std::string& path);

  AtomicFileWriter(AtomicFileWriter&& other) noexcept;
  AtomicFileWriter& operator=(AtomicFileWriter&& other) = delete;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  absl::Status Write(std::string_view data);
  // Flushes, fsyncs and renames into place.
  absl::Status Commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  AtomicFileWriter(std::string path, std::string temp_path, int fd);
  // Writes the buffer out and empties it; the first error sticks.
  absl::Status Flush();

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  std::string buffer_;
  absl::Status first_error_;
};

// The last component of `path`, trailing '/' ignored: "/usr/lib/libc.so.7"
// -> "libc.so.7", "dir/sub/" -> "sub".
std::string BaseName(std::string_view path);

// One-shot atomic write of a whole file.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view data);

// Creates a uniquely named directory under $TMPDIR (or /tmp) and removes it
// recursively when destroyed (or at SIGINT/SIGTERM/SIGHUP).
class TempDir {
 public:
  static absl::StatusOr<TempDir> Create(std::string_view prefix);
  // Same, but under `parent` (e.g. beside a directory that will be renamed
  // into place, so that the rename stays on one file system).
  static absl::StatusOr<TempDir> CreateIn(const std::string& parent,
                                          std::string_view prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  // Stops owning the directory (after it was renamed into place): it is no
  // longer removed, neither by the destructor nor at a signal.
  void Release();

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Returns a message of the form "PATH: WHAT: strerror(errno)".
std::string ErrnoMessage(std::string_view path, std::string_view what, int err);

// Writes all of `data` to `fd`, retrying short writes and EINTR. `path` names
// the file in the error (DataLoss, "PATH: write failed: ...").
absl::Status WriteAllToFd(int fd, std::string_view data, std::string_view path);

// mkdir -p of `relative` below `root` (which must exist). Every component that
// already exists must be a real directory, not a symbolic link, so nothing is
// ever created outside `root`.
absl::Status MakeDirsBelow(const std::string& root,
                           const std::string& relative);

// True when something is at `path`, a dangling symbolic link included
// (lstat succeeds): what must not be overwritten or replaced.
bool PathExists(const std::string& path);

// True when `path` names a regular file (after following links).
bool IsRegularFile(const std::string& path);

// The entries of directory `path` but "." and "..", sorted by name (so walks
// over a tree are the same on every run). PermissionDenied naming the path
// when it cannot be read.
absl::StatusOr<std::vector<std::string>> SortedDirectoryNames(
    const std::string& path);

}  // namespace hwt

#endif  // HWT_BASE_FILE_UTIL_H_
