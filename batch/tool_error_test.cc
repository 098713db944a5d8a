// Tests of hwt-batch's error line.
#include "batch/tool_error.h"

#include <string>

#include "gtest/gtest.h"

namespace hwt::batch {
namespace {

TEST(ToolErrorTest, PrintsOneNamedLineAndReturnsTheCode) {
  testing::internal::CaptureStderr();
  const int code = ReportError(3, "out/: not a batch directory");
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "hwt-batch: out/: not a batch directory\n");
  EXPECT_EQ(code, 3);
}

TEST(ToolErrorTest, PrintsTheWholeMessageEvenWithoutATerminatingNul) {
  const std::string text = "abcdef";
  testing::internal::CaptureStderr();
  ReportError(1, absl::string_view(text).substr(1, 3));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "hwt-batch: bcd\n");
}

}  // namespace
}  // namespace hwt::batch
