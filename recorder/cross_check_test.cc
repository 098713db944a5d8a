// The two recorders on the same static programs, run the same way
// (ValgrindLookalike: valgrind's CPUID/XCR0 answers, environment, auxiliary
// vector, missing rseq and stack page offsets given to the ptrace run): the
// instruction sequences must be identical, instruction by instruction. Two
// independent recorders agreeing is what makes either a ground truth.
#include <algorithm>
#include <iostream>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/code_map.h"
#include "recorder/ground_truth.h"
#include "recorder/ptrace_recorder.h"
#include "recorder/testing/test_programs.h"
#include "recorder/valgrind_probe.h"
#include "recorder/valgrind_recorder.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::CollectingSink;
using ::hwt::recorder::testing::Program;
using ::hwt::recorder::testing::TestEnv;

struct CrossCheckCase {
  std::vector<std::string> argv;  // argv[0]: test program name
  int exit_status;
};

std::ostream& operator<<(std::ostream& out, const CrossCheckCase& c) {
  return out << absl::StrJoin(c.argv, " ");
}

class CrossCheckTest : public ::testing::TestWithParam<CrossCheckCase> {};

TEST_P(CrossCheckTest, RecordersAgreeInstructionByInstruction) {
  HWT_REQUIRE_VALGRIND();
  const CrossCheckCase& c = GetParam();
  ValgrindRecorderOptions program;
  program.argv = c.argv;
  program.argv[0] = Program(c.argv[0]);
  program.env = TestEnv();
  program.stdout_path = "/dev/null";
  auto lookalike =
      ValgrindLookalike::Create(Program("cpuid_probe_static"), program);
  ASSERT_TRUE(lookalike.ok()) << lookalike.status();

  CollectingSink by_valgrind;
  GroundTruth valgrind_truth;
  TeeExecutionSink valgrind_tee({&by_valgrind, &valgrind_truth});
  auto valgrind_stats =
      RecordWithValgrind(lookalike->valgrind_options(), valgrind_tee);
  ASSERT_TRUE(valgrind_stats.ok()) << valgrind_stats.status();

  PtraceRecorderOptions options;
  options.stdout_path = "/dev/null";
  options = lookalike->ptrace_options(options);
  CollectingSink by_ptrace;
  GroundTruth ptrace_truth;
  TeeExecutionSink ptrace_tee({&by_ptrace, &ptrace_truth});
  auto ptrace_stats = RecordWithPtrace(options, ptrace_tee);
  ASSERT_TRUE(ptrace_stats.ok()) << ptrace_stats.status();

  std::cout << c << ": " << by_ptrace.ips().size() << " instructions (ptrace "
            << ptrace_stats->steps << " steps, " << ptrace_stats->cpuid_emulated
            << " CPUID emulated; valgrind " << valgrind_stats->superblocks
            << " superblocks, " << valgrind_stats->guest_instructions
            << " guest instructions)\n";
  EXPECT_EQ(ptrace_stats->cpuid_misses, 0u);
  EXPECT_EQ(valgrind_stats->exit_status, c.exit_status);
  EXPECT_EQ(ptrace_stats->exit_status, c.exit_status);
  EXPECT_EQ(by_ptrace.events()[0].path, by_valgrind.events()[0].path);
  EXPECT_EQ(by_ptrace.events()[0].addr, by_valgrind.events()[0].addr);

  const auto& p = by_ptrace.ips();
  const auto& v = by_valgrind.ips();
  auto mismatch = std::mismatch(p.begin(), p.end(), v.begin(), v.end());
  if (mismatch.first != p.end() || mismatch.second != v.end()) {
    size_t at = mismatch.first - p.begin();
    CodeMap code;
    ASSERT_TRUE(code.Apply(by_ptrace.events()[0]).ok());
    std::string context;
    for (size_t i = at >= 3 ? at - 3 : 0; i < at + 3; ++i) {
      context += absl::StrFormat(
          "  %d: ptrace 0x%x %s | valgrind 0x%x %s\n", i,
          i < p.size() ? p[i] : 0, i < p.size() ? code.Disassemble(p[i]) : "",
          i < v.size() ? v[i] : 0, i < v.size() ? code.Disassemble(v[i]) : "");
    }
    FAIL() << "the recordings differ at instruction " << at << " (ptrace "
           << p.size() << ", valgrind " << v.size() << " instructions):\n"
           << context;
  }
  EXPECT_EQ(ptrace_truth.FoldedStacks(), valgrind_truth.FoldedStacks());
  EXPECT_EQ(ptrace_truth.digest(), valgrind_truth.digest());
}

INSTANTIATE_TEST_SUITE_P(
    StaticPrograms, CrossCheckTest,
    ::testing::Values(CrossCheckCase{{"counted_static"}, 0},
                      CrossCheckCase{{"jumps_static"}, 0},
                      CrossCheckCase{{"fib_static", "12"}, 0},
                      CrossCheckCase{{"indirect_static", "200"}, 0},
                      CrossCheckCase{{"switch_static", "300"}, 0},
                      CrossCheckCase{{"strings_static"}, 0},
                      CrossCheckCase{{"longjmp_static"}, 0},
                      CrossCheckCase{{"hot_static", "1500"}, 0},
                      CrossCheckCase{{"crash_static", "segv"}, -11},
                      CrossCheckCase{{"crash_static", "exit"}, 3}),
    [](const ::testing::TestParamInfo<CrossCheckCase>& info) {
      std::string name = absl::StrJoin(info.param.argv, "_");
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
      return name;
    });

}  // namespace
}  // namespace hwt::recorder
