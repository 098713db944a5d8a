// Tests of the recorders' system call helpers.
#include "recorder/syscall_util.h"

#include <cerrno>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::recorder {
namespace {

TEST(SyscallUtilTest, ErrnoTextNamesTheCallAndTheError) {
  errno = ENOENT;
  EXPECT_EQ(ErrnoText("open /x"), "open /x: No such file or directory");
  errno = EACCES;
  EXPECT_EQ(ErrnoText("ptrace"), "ptrace: Permission denied");
}

TEST(SyscallUtilTest, CStringArrayPointsIntoTheStringsAndEndsWithNull) {
  const std::vector<std::string> args = {"prog", "", "--flag=1"};
  std::vector<char*> array = CStringArray(args);
  ASSERT_EQ(array.size(), 4u);
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ(array[i], args[i].c_str());
  }
  EXPECT_EQ(array[3], nullptr);
  EXPECT_THAT(CStringArray({}), testing::ElementsAre(nullptr));
}

}  // namespace
}  // namespace hwt::recorder
