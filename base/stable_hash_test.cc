// The stable hash: digests pinned by this test (they are written into
// files as image identities and fingerprints, so they must never change),
// incremental updates equal to one update, and fields that keep their
// boundaries.
#include "base/stable_hash.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

std::string Pattern(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(i * 7 + 3));
  return s;
}

TEST(StableHashTest, DigestsArePinned) {
  EXPECT_EQ(StableHasher().HexDigest(), "3fdf455f9dcf1e62");
  EXPECT_EQ(absl::StrFormat("%016x", StableHash64("abc")), "dcbcf9cd17c5ded7");
  EXPECT_EQ(absl::StrFormat("%016x", StableHash64(Pattern(1000))),
            "5f235fa033f1a3fb");
}

TEST(StableHashTest, PiecesGiveTheSameDigest) {
  const std::string data = Pattern(777);
  const uint64_t whole = StableHash64(data);
  for (size_t step : {1, 3, 8, 31, 32, 33, 100, 500}) {
    StableHasher h;
    for (size_t at = 0; at < data.size(); at += step) {
      h.Update(std::string_view(data).substr(at, step));
    }
    EXPECT_EQ(h.Digest(), whole) << "pieces of " << step;
  }
}

TEST(StableHashTest, EveryByteMatters) {
  const std::string data = Pattern(100);
  const uint64_t base = StableHash64(data);
  for (size_t i = 0; i < data.size(); ++i) {
    std::string changed = data;
    changed[i] ^= 1;
    EXPECT_NE(StableHash64(changed), base) << "byte " << i;
  }
  EXPECT_NE(StableHash64(data.substr(0, 99)), base);
}

TEST(StableHashTest, FieldsKeepTheirBoundaries) {
  StableHasher a, b;
  a.Field("ab");
  a.Field("c");
  b.Field("a");
  b.Field("bc");
  EXPECT_NE(a.Digest(), b.Digest());
}

TEST(StableHashTest, FileDigestEqualsBytesDigest) {
  auto dir = TempDir::Create("stable-hash");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/data";
  const std::string data = Pattern(3 << 20);
  ASSERT_TRUE(WriteFileAtomically(path, data).ok());
  auto digest = StableHashFile(path);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*digest, StableHash64(data));
  auto missing = StableHashFile(dir->path() + "/none");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none"), std::string::npos);
}

}  // namespace
}  // namespace hwt
