// The valgrind recorder (the hwttrace tool): counted.S recorded exactly (79
// instructions, the hand-counted ground truth) with VEX's lengths, crashes,
// exit codes, dynamic programs (the mappings where valgrind put ld.so and
// the libraries), exec, signal handlers, and clear errors for what it cannot
// record (threads, missing programs or valgrind). The instruction-by-
// instruction comparison with the ptrace recorder is cross_check_test.cc.
#include "recorder/valgrind_recorder.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>

#include "base/file_util.h"
#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/code_map.h"
#include "recorder/ground_truth.h"
#include "recorder/testing/test_programs.h"
#include "recorder/valgrind_probe.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::CollectingSink;
using ::hwt::recorder::testing::Program;
using ::hwt::recorder::testing::ProgramSource;
using ::hwt::recorder::testing::TestEnv;
using ::testing::HasSubstr;

ValgrindRecorderOptions Options(std::vector<std::string> argv) {
  ValgrindRecorderOptions options;
  options.argv = std::move(argv);
  options.env = TestEnv();
  options.stdout_path = "/dev/null";
  return options;
}

TEST(ValgrindRecorderTest, RecordsCountedExactly) {
  HWT_REQUIRE_VALGRIND();
  std::string counted = Program("counted_static");
  GroundTruth truth;
  CollectingSink sink;
  TeeExecutionSink tee({&truth, &sink});
  auto stats = RecordWithValgrind(Options({counted}), tee);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->instructions, 79u);
  // VEX runs rep movsb once per iteration (five) plus a final check of rcx:
  // six executions, one instruction.
  EXPECT_EQ(stats->guest_instructions, 79u + 5u);
  EXPECT_EQ(stats->exit_status, 0);
  EXPECT_EQ(sink.info().recorder, "valgrind-hwttrace");
  ASSERT_EQ(sink.events().size(), 1u);
  EXPECT_EQ(sink.events()[0].type, capture::RecordType::kExecutable);
  char real[PATH_MAX];
  ASSERT_NE(realpath(counted.c_str(), real), nullptr);
  EXPECT_EQ(sink.events()[0].path, real);
  EXPECT_EQ(sink.events()[0].addr, 0u);
  // Every instruction comes with VEX's length; straight-line code shows it.
  ASSERT_EQ(sink.lengths().size(), sink.ips().size());
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  EXPECT_EQ(sink.ips()[0], elf->entry);
  size_t straight = 0;
  for (size_t i = 0; i + 1 < sink.ips().size(); ++i) {
    ASSERT_GE(sink.lengths()[i], 1u);
    ASSERT_LE(sink.lengths()[i], 15u);
    if (sink.ips()[i + 1] == sink.ips()[i] + sink.lengths()[i]) ++straight;
  }
  // Of the 78 transitions, 32 go elsewhere than ip + length (counted.S):
  // _start 8 calls + 2 taken jnz, leaf 6 returns, leaf2 1, tail's jmp 1,
  // outer 2 calls + 1 return, rec 2 calls + 1 taken jz + 3 returns,
  // special 3 taken loops + 1 taken jrcxz + 1 return.
  EXPECT_EQ(straight, 78u - 32);
  EXPECT_EQ(sink.lengths()[0], 6u);  // mov $3, %r12d: 41 bc imm32
  // The same hand-counted ground truth as the ptrace recording.
  auto folded = ReadFileToString(ProgramSource("counted.folded"));
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(truth.FoldedStacks(), *folded);
  EXPECT_TRUE(truth.status().ok()) << truth.status();
}

TEST(ValgrindRecorderTest, CrashEndsAtTheFaultingInstruction) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats =
      RecordWithValgrind(Options({Program("crash_static"), "segv"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, -SIGSEGV);
  EXPECT_EQ(sink.exit_status(), -SIGSEGV);
  CodeMap code;
  ASSERT_TRUE(code.Apply(sink.events()[0]).ok());
  auto last = code.InsnAt(sink.ips().back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->cls, x86::InsnClass::kCall);  // the call of poke
}

TEST(ValgrindRecorderTest, NonZeroExitIsReported) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats =
      RecordWithValgrind(Options({Program("crash_static"), "exit"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 3);
  EXPECT_EQ(sink.exit_status(), 3);
}

// --max-instructions: the first N instructions of the full run, then the
// program is killed.
TEST(ValgrindRecorderTest, MaxInstructionsStopsTheProgram) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink full;
  auto all = RecordWithValgrind(Options({Program("fib_static"), "12"}), full);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_GT(full.ips().size(), 5000u);
  ValgrindRecorderOptions options = Options({Program("fib_static"), "12"});
  options.max_instructions = 5000;
  CollectingSink cut;
  auto stats = RecordWithValgrind(options, cut);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_TRUE(stats->truncated);
  EXPECT_EQ(cut.exit_status(), -SIGKILL);
  ASSERT_EQ(cut.ips().size(), 5000u);
  EXPECT_TRUE(
      std::equal(cut.ips().begin(), cut.ips().end(), full.ips().begin()));
}

// Where valgrind loaded the program, ld.so and libc: the events must map
// every recorded instruction to code of one of them.
TEST(ValgrindRecorderTest, RecordsDynamicPrograms) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats = RecordWithValgrind(Options({Program("fib_dynamic"), "5"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  ASSERT_GE(sink.events().size(), 2u);
  EXPECT_EQ(sink.events()[0].type, capture::RecordType::kExecutable);
  EXPECT_NE(sink.events()[0].addr, 0u);      // a PIE
  EXPECT_NE(sink.events()[0].baseaddr, 0u);  // ld.so
  bool libc = false;
  for (const MappingEvent& e : sink.events()) {
    if (e.path.find("libc.so") != std::string::npos) libc = true;
  }
  EXPECT_TRUE(libc);
  CodeMap code;
  size_t next_event = 0;
  for (size_t i = 0; i < sink.ips().size(); ++i) {
    while (next_event < sink.events().size() &&
           sink.events_at()[next_event] <= i) {
      ASSERT_TRUE(code.Apply(sink.events()[next_event++]).ok());
    }
    ASSERT_TRUE(code.Locate(sink.ips()[i]).has_value())
        << "instruction " << i << " at 0x" << std::hex << sink.ips()[i]
        << " is in no mapped image";
  }
}

TEST(ValgrindRecorderTest, RecordsAcrossExec) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats = RecordWithValgrind(
      Options({Program("execs_static"), Program("counted_static")}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  std::vector<std::string> programs;
  for (const MappingEvent& e : sink.events()) {
    if (e.type == capture::RecordType::kExecutable) {
      programs.push_back(e.path.substr(e.path.rfind('/') + 1));
    }
  }
  EXPECT_EQ(programs,
            (std::vector<std::string>{"execs_static", "counted_static"}));
  // counted's 79 instructions end the recording.
  EXPECT_EQ(sink.ips().size() - sink.events_at().back(), 79u);
}

TEST(ValgrindRecorderTest, RecordsSignalHandlers) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats =
      RecordWithValgrind(Options({Program("crash_static"), "handled"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  EXPECT_EQ(stats->signals_delivered, 1u);
}

TEST(ValgrindRecorderTest, RefusesThreads) {
  HWT_REQUIRE_VALGRIND();
  CollectingSink sink;
  auto stats = RecordWithValgrind(Options({Program("threads_dynamic")}), sink);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(stats.status().message()), HasSubstr("thread"));
}

TEST(ValgrindRecorderTest, MissingProgramOrValgrindAreErrors) {
  CollectingSink sink;
  auto missing = RecordWithValgrind(Options({"/no/such/program"}), sink);
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/no/such/program"));
  ValgrindRecorderOptions options = Options({Program("counted_static")});
  options.valgrind = "/no/such/valgrind";
  auto no_valgrind = RecordWithValgrind(options, sink);
  EXPECT_FALSE(no_valgrind.ok());
  EXPECT_THAT(std::string(no_valgrind.status().message()),
              HasSubstr("/no/such/valgrind"));
}

TEST(ValgrindProbeTest, ProbeSeesValgrindsCpuAndEnvironment) {
  HWT_REQUIRE_VALGRIND();
  auto profile = ProbeValgrind(Program("cpuid_probe_static"),
                               Options({Program("cpuid_probe_static")}));
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto leaf0 = profile->cpuid.Lookup(0, 0);
  ASSERT_TRUE(leaf0.has_value());
  capture::CpuIdentity cpu = CpuIdentityFromTable(profile->cpuid);
  EXPECT_FALSE(cpu.vendor.empty());
  std::cout << "valgrind's CPU: " << cpu.vendor << " family " << cpu.family
            << " model " << cpu.model << "; " << profile->cpuid.size()
            << " CPUID answers\n";
  // valgrind passes our environment on, adding its own variables.
  for (const std::string& var : TestEnv()) {
    EXPECT_THAT(profile->env, ::testing::Contains(var));
  }
  EXPECT_FALSE(profile->auxv_types.empty());
  EXPECT_NE(profile->stack.sp, 0u);
}

TEST(ValgrindProbeTest, ParsesAndRejectsProbeOutput) {
  auto profile = ParseProbeOutput(
      "cpuid 0 0 d 756e6547 6c65746e 49656e69\n"
      "cpuid 4 0 1 2 3 4\ncpuid 4 3 0 0 0 0\n"
      "xgetbv 0 7 0\nenv A=b c\nauxv 21 0\nauxv 19 7ff0\nsp 7ff8\n"
      "argvaddr 0 7f00\nenvaddr 0 7f10\nenosys 14e\n");
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->cpuid.Lookup(4, 2)->eax, 1u);  // closest below
  EXPECT_EQ(profile->cpuid.Lookup(4, 99)->eax, 0u);
  EXPECT_EQ(profile->cpuid.xcr0, std::optional<uint64_t>(7));
  EXPECT_EQ(profile->env, std::vector<std::string>{"A=b c"});
  EXPECT_EQ(profile->auxv_types, (std::vector<uint64_t>{0x21, 0x19}));
  EXPECT_EQ(profile->stack.random, 0x7ff0u);  // AT_RANDOM = 0x19
  EXPECT_EQ(profile->stack.sp, 0x7ff8u);
  EXPECT_EQ(profile->enosys_syscalls, std::vector<long>{0x14e});
  auto bad = ParseProbeOutput("cpuid 0 0 zz\n");
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("line 1"));
  EXPECT_FALSE(ParseProbeOutput("env X=1\n").ok());  // no CPUID leaf 0
}

}  // namespace
}  // namespace hwt::recorder
