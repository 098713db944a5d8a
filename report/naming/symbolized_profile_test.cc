// ProfileNames: frames are named as docs/call-stacks.md says (function name,
// [BASENAME+0xoff] for code no symbol covers, [unknown], [gap]), each with
// its image's base name and category.
#include "report/naming/symbolized_profile.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hwt::report {
namespace {

using analysis::FrameKey;
using analysis::FrameKind;

class FakeSymbols : public ProfileSymbols {
 public:
  std::string FunctionName(uint32_t image, uint64_t start) override {
    return absl::StrCat("fn", image, "_", start);
  }
  std::string ImagePath(uint32_t) override { return "/usr/lib/libc.so.7"; }
};

TEST(ProfileNamesTest, FrameNamesFollowTheContract) {
  FakeSymbols symbols;
  ProfileNames names(symbols);
  EXPECT_EQ(names.Name({FrameKind::kFunction, 1, 16}), "fn1_16");
  EXPECT_EQ(names.Name({FrameKind::kUnknownCode, 1, 0x1A30}),
            "[libc.so.7+0x1a30]");
  EXPECT_EQ(names.Name({FrameKind::kUnknown, analysis::kNoImage, 0}),
            "[unknown]");
  EXPECT_EQ(names.Name(FrameKey::Gap()), "[gap]");

  const NamedFrame& fn =
      names.frames()[names.Frame({FrameKind::kFunction, 1, 16})];
  EXPECT_EQ(fn.image, "libc.so.7");
  EXPECT_EQ(fn.category, FrameCategory::kLibc);
}

}  // namespace
}  // namespace hwt::report
