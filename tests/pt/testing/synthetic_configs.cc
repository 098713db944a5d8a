// Synthetic trace configurations and statistics comparison for PT tests; see
// pt_synthetic_configs.h.
#include "tests/pt/testing/synthetic_configs.h"

#include "base/file_util.h"
#include "base/status_macros.h"
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
  o.encoder.timing.tsc = o.encoder.timing.mtc = o.encoder.timing.cyc = true;
  configs.push_back({"timing_overflows", o, 1500});
  o = SyntheticCaptureOptions();
  o.program.seed = 5;
  o.program.syscalls = false;
  o.instructions = 1'000'000;
  o.encoder.return_compression = false;
  configs.push_back({"no_retcomp_no_syscalls", o, 8192});
  return configs;
}

absl::StatusOr<recorder::SyntheticCapture> WriteCorruptSyntheticCapture(
    const std::string& dir) {
  recorder::SyntheticCaptureOptions options;
  options.instructions = 1'000'000;
  options.encoder.psb_period = 512;
  HWT_ASSIGN_OR_RETURN(recorder::SyntheticCapture synthetic,
                       recorder::WriteSyntheticCapture(dir, options));
  HWT_ASSIGN_OR_RETURN(std::string bytes,
                       ReadFileToString(synthetic.trace_path));
  for (size_t at = 3000; at + 64 < bytes.size(); at += 9973) {
    for (size_t i = 0; i < 24; ++i) bytes[at + i] = static_cast<char>(0xd5);
  }
  HWT_RETURN_IF_ERROR(WriteFileAtomically(synthetic.trace_path, bytes));
  return synthetic;
}

absl::StatusOr<TestCapture> MakeChunkedBuffersCapture(const std::string& dir) {
  std::vector<std::vector<uint8_t>> traces;
  std::string code;
  uint64_t base = 0;
  for (int b = 0; b < 3; ++b) {
    recorder::SyntheticCaptureOptions options;
    options.instructions = 300'000 * (b + 1);
    options.execution_seed = 10 + b;
    options.encoder.psb_period = 1024;
    HWT_ASSIGN_OR_RETURN(recorder::SyntheticCapture synthetic,
                         recorder::WriteSyntheticCapture(dir, options));
    HWT_ASSIGN_OR_RETURN(std::string bytes,
                         ReadFileToString(synthetic.trace_path));
    traces.emplace_back(bytes.begin(), bytes.end());
    code = synthetic.program->code();
    base = synthetic.program->base();
  }
  TestCaptureOptions capture_options;
  // The same chunk layout in every buffer: the trace cut in four, with data
  // lost before the third chunk (every size fits the smallest trace).
  const uint64_t quarter = traces[0].size() / 4;
  capture_options.chunks = {
      {0, quarter, false},
      {quarter, quarter, false},
      {2 * quarter, quarter, true},
      {3 * quarter, traces[0].size() - 3 * quarter, false}};
  return MakeTestCaptureBuffers(
      traces, {{base, std::vector<uint8_t>(code.begin(), code.end())}},
      capture_options);
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
