// Tests for the file helpers: atomic writers leave nothing behind on failure.
#include "base/file_util.h"

#include <sys/stat.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace hwt {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
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

}  // namespace
}  // namespace hwt
