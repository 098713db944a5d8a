// The committed demo capture (testdata/demo.hwt, made by
// scripts/make-demo.sh): decoded and profiled as the tools do, it must
// reproduce its own truth/ exactly (instruction count and digest of the
// instruction sequence, folded stacks, per-function counts, call edges),
// and carry the timing it was recorded with. This protects the demo from
// decoder, analysis and symbolizer changes that would make it lie.
#include <string>

#include "absl/strings/str_format.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "recorder/ground_truth.h"
#include "tests/e2e/testing/e2e_pipeline.h"

namespace hwt::e2e {
namespace {

std::string DemoPath() {
  return hwt::testing::SourceDir() + "/testdata/demo.hwt";
}

TEST(DemoCaptureTest, DecodesToItsTruth) {
  auto capture = capture::OpenCapture(DemoPath(), {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  EXPECT_EQ((*capture)->kind(), capture::InputKind::kPackedBundle);
  absl::StatusOr<Truth> truth = ReadTruth((*capture)->root());
  ASSERT_TRUE(truth.ok()) << truth.status();

  absl::StatusOr<Decoded> decoded = DecodeInstructions(DemoPath());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->walk_errors.empty()) << decoded->walk_errors[0];
  EXPECT_EQ(decoded->total_errors(), 0u);
  EXPECT_EQ(decoded->instructions.size(), truth->instructions);
  EXPECT_EQ(decoded->total_instructions(), truth->instructions);
  recorder::InstructionDigest digest;
  digest.Add(decoded->instructions);
  EXPECT_EQ(absl::StrFormat("fnv1a64:%016x", digest.value()), truth->digest);

  absl::StatusOr<Profiled> profiled = ProfileWithSymbols(DemoPath());
  ASSERT_TRUE(profiled.ok()) << profiled.status();
  EXPECT_EQ(TextDifference(profiled->folded, truth->folded), "");
  EXPECT_TRUE(profiled->functions == truth->functions);
  EXPECT_TRUE(profiled->call_edges == truth->call_edges);
  // Recorded with timing: reports can show time as well.
  EXPECT_TRUE(profiled->profile.has_time);
  EXPECT_GT(profiled->profile.stats.time, 0u);
  // The interpreter's hot path is there (the demo is about it).
  EXPECT_NE(truth->folded.find(";exec_statement;eval_expr;"),
            std::string::npos);
  EXPECT_NE(truth->folded.find(";lookup_var;hash_name "), std::string::npos);
}

}  // namespace
}  // namespace hwt::e2e
