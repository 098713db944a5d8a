// Tests for the file helpers: atomic writers leave nothing behind on failure.
#include "base/file_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "gtest/gtest.h"

namespace hwt {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(FileUtilTest, BaseName) {
  EXPECT_EQ(BaseName("/usr/lib/libc.so.7"), "libc.so.7");
  EXPECT_EQ(BaseName("prog"), "prog");
  EXPECT_EQ(BaseName("captures/run.hwt/"), "run.hwt");
  EXPECT_EQ(BaseName("src/main.c:12"), "main.c:12");
  EXPECT_EQ(BaseName("/"), "");
}

TEST(FileUtilTest, AtomicWriteThenRead) {
  auto dir = TempDir::Create("hwt-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/out.txt";
  ASSERT_TRUE(WriteFileAtomically(path, "hello").ok());
  auto data = ReadFileToString(path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(*data, "hello");
}

TEST(FileUtilTest, SortedDirectoryNamesLeaveOutDotsAndSort) {
  auto dir = TempDir::Create("hwt-test");
  ASSERT_TRUE(dir.ok());
  for (const char* name : {"b", "a", "c.d"}) {
    ASSERT_TRUE(WriteFileAtomically(dir->path() + "/" + name, "").ok());
  }
  auto names = SortedDirectoryNames(dir->path());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "c.d"}));
  auto missing = SortedDirectoryNames(dir->path() + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(dir->path() + "/none"),
            std::string::npos);
}

TEST(FileUtilTest, PathExistsSeesFilesDirectoriesAndDanglingLinks) {
  auto dir = TempDir::Create("hwt-test");
  ASSERT_TRUE(dir.ok());
  const std::string file = dir->path() + "/file";
  const std::string link = dir->path() + "/dangling";
  ASSERT_TRUE(WriteFileAtomically(file, "x").ok());
  ASSERT_EQ(symlink((dir->path() + "/nowhere").c_str(), link.c_str()), 0);
  EXPECT_TRUE(PathExists(file));
  EXPECT_TRUE(PathExists(dir->path()));
  EXPECT_TRUE(PathExists(link));  // lstat: the link itself is there
  EXPECT_FALSE(IsRegularFile(link));
  EXPECT_FALSE(PathExists(dir->path() + "/nowhere"));
}

TEST(FileUtilTest, UncommittedWriterLeavesNoFile) {
  auto dir = TempDir::Create("hwt-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/out.txt";
  std::string temp;
  {
    auto writer = AtomicFileWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Write("partial").ok());
    temp = writer->temp_path();
    EXPECT_TRUE(Exists(temp));
  }
  EXPECT_FALSE(Exists(temp));
  EXPECT_FALSE(Exists(path));
}

TEST(FileUtilTest, MissingFileIsNotFound) {
  auto data = ReadFileToString("/nonexistent/hwt/file");
  EXPECT_EQ(data.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(data.status().message().find("/nonexistent/hwt/file"),
            std::string::npos);
}

TEST(FileUtilTest, MapsEmptyAndNonEmptyFiles) {
  auto dir = TempDir::Create("hwt-test");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFileAtomically(dir->path() + "/e", "").ok());
  ASSERT_TRUE(WriteFileAtomically(dir->path() + "/f", "abc").ok());
  auto empty = MappedFile::Open(dir->path() + "/e");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  auto full = MappedFile::Open(dir->path() + "/f");
  ASSERT_TRUE(full.ok());
  ASSERT_EQ(full->size(), 3u);
  EXPECT_EQ(full->data()[2], 'c');
}

TEST(FileUtilTest, TempDirIsRemoved) {
  std::string path;
  {
    auto dir = TempDir::Create("hwt-test");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    ASSERT_TRUE(WriteFileAtomically(path + "/x", "1").ok());
  }
  EXPECT_FALSE(Exists(path));
}

TEST(FileUtilTest, TempDirInParentAndRelease) {
  auto parent = TempDir::Create("hwt-test");
  ASSERT_TRUE(parent.ok());
  std::string path;
  {
    auto dir = TempDir::CreateIn(parent->path(), ".child");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    EXPECT_EQ(path.rfind(parent->path() + "/.child.", 0), 0u) << path;
    ASSERT_TRUE(WriteFileAtomically(path + "/x", "1").ok());
    dir->Release();
    EXPECT_TRUE(dir->path().empty());
  }
  EXPECT_TRUE(Exists(path + "/x"));  // released: kept
}

std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (dirent* entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

// A process interrupted while it holds a temporary directory and, later, a
// temporary output file leaves neither behind. Registering the file once
// overwrote the directory's "is a directory" flag, so the signal handler
// unlink()ed the directory (which fails) instead of removing the tree.
TEST(FileUtilTest, SignalRemovesTempDirAndTempFileTogether) {
  // Not a TempDir: a forked child inherits the cleanup table and would
  // remove the parent's registered directories too.
  std::string parent = "/tmp/hwt-test-signal.XXXXXX";
  const char* tmpdir = getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir) {
    parent = std::string(tmpdir) + "/hwt-test-signal.XXXXXX";
  }
  ASSERT_NE(mkdtemp(parent.data()), nullptr);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto work = TempDir::CreateIn(parent, "work");
      if (!work.ok()) _exit(10);
      if (!WriteFileAtomically(work->path() + "/inside", "x").ok()) _exit(11);
      auto writer = AtomicFileWriter::Create(parent + "/out");
      if (!writer.ok() || !writer->Write("partial").ok()) _exit(12);
      auto later = TempDir::CreateIn(parent, "later");
      if (!later.ok()) _exit(13);
      raise(sig);
      _exit(14);  // not reached: the handler re-raises with the default
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_TRUE(ListDir(parent).empty())
        << "left behind after signal " << sig << ": "
        << (ListDir(parent).empty() ? "" : ListDir(parent)[0]);
  }
  std::filesystem::remove_all(parent);
}

// A child forked before exec inherits the cleanup table and the handlers; a
// signal it gets must not remove its parent's temporary files (found by
// tests/hostile: SIGINT between fork and exec removed the parent's TempDir).
TEST(FileUtilTest, SignalInAForkedChildLeavesTheParentsFiles) {
  auto dir = TempDir::Create("hwt-test-fork");
  ASSERT_TRUE(dir.ok());
  auto writer = AtomicFileWriter::Create(dir->path() + "/out");
  ASSERT_TRUE(writer.ok());
  const std::vector<std::string> before = ListDir(dir->path());
  ASSERT_EQ(before.size(), 1u);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    raise(SIGINT);
    _exit(14);  // not reached: the handler re-raises with the default
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_TRUE(std::filesystem::is_directory(dir->path()));
  EXPECT_EQ(ListDir(dir->path()), before);
}

}  // namespace
}  // namespace hwt
