// Tests of ParseHexDump against hand-written dumps.
#include "base/hex_dump.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using ::testing::HasSubstr;

TEST(HexDumpTest, WordsOfOneOrMoreBytesAndComments) {
  auto bytes = ParseHexDump("# header\nb0 D0c2\t01 # trailing\n\n ff00\n");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, std::string("\xb0\xd0\xc2\x01\xff\x00", 6));
}

TEST(HexDumpTest, EmptyAndCommentOnlyAreNoBytes) {
  EXPECT_EQ(ParseHexDump("").value_or("x"), "");
  EXPECT_EQ(ParseHexDump("# nothing\n  \n").value_or("x"), "");
}

TEST(HexDumpTest, HalfAByteIsAnErrorNamingTheLine) {
  auto bytes = ParseHexDump("b0 d0\nc2 0\n");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("line 2: '0' is not a whole number of bytes"));
}

TEST(HexDumpTest, NonHexIsAnError) {
  auto bytes = ParseHexDump("b0 zz\n");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("line 1: 'zz' is not hex"));
}

}  // namespace
}  // namespace hwt
