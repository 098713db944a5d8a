// Synthetic trace configurations and statistics comparison for PT tests; see
// pt_synthetic_configs.h.
#include "decoders/pt/pt_synthetic_configs.h"

#include "gtest/gtest.h"

namespace hwt::pt::testing {

std::vector<SyntheticConfig> SyntheticConfigs() {
  using recorder::SyntheticCaptureOptions;
  std::vector<SyntheticConfig> configs;
  SyntheticCaptureOptions o;
  o.instructions = 3'000'000;
  o.encoder.psb_period = 256;  // thousands of PSBs
  o.program.recursive_functions = 3;
  o.program.max_recursion_depth = 150;  // deeper than the 64-entry stack
  configs.push_back({"deep_recursion", o, 2048});
  o.program.seed = 2;
  o.execution_seed = 5;
  o.encoder.long_tnt = true;
  configs.push_back({"long_tnt", o, 1000});
  o = SyntheticCaptureOptions();
  o.program.seed = 3;
  o.instructions = 1'000'000;
  o.encoder.psb_period = 512;
  o.encoder.timing.tsc = o.encoder.timing.mtc = o.encoder.timing.cyc = true;
  configs.push_back({"timing", o, 4096});
  o.encoder.timing = recorder::PtTimingOptions();
  o.encoder.timing.tsc = true;
  configs.push_back({"tsc_only", o, 3000});
  o = SyntheticCaptureOptions();
  o.program.seed = 4;
  o.instructions = 1'000'000;
  o.encoder.psb_period = 300;
  o.encoder.overflows = {{50'000, 1'000}, {400'000, 20}, {700'000, 5'000}};
  configs.push_back({"overflows", o, 1500});
  o = SyntheticCaptureOptions();
  o.program.seed = 5;
  o.program.syscalls = false;
  o.instructions = 1'000'000;
  o.encoder.return_compression = false;
  configs.push_back({"no_retcomp_no_syscalls", o, 8192});
  return configs;
}

void ExpectSameStats(const StreamStats& a, const StreamStats& b, bool blocks) {
  EXPECT_EQ(a.trace_bytes, b.trace_bytes);
  EXPECT_EQ(a.bytes_decoded, b.bytes_decoded);
  EXPECT_EQ(a.bytes_lost, b.bytes_lost);
  EXPECT_EQ(a.instructions, b.instructions);
  if (blocks) {
    EXPECT_EQ(a.blocks, b.blocks);
  }
  EXPECT_EQ(a.errors, b.errors);
  EXPECT_EQ(a.overflows, b.overflows);
  ASSERT_EQ(a.error_list.size(), b.error_list.size());
  for (size_t i = 0; i < a.error_list.size(); ++i) {
    EXPECT_EQ(a.error_list[i].offset, b.error_list[i].offset);
    EXPECT_EQ(a.error_list[i].bytes_lost, b.error_list[i].bytes_lost);
    EXPECT_EQ(a.error_list[i].message, b.error_list[i].message);
  }
}

}  // namespace hwt::pt::testing
