// The ptrace recorder on the programs of testdata/programs: exact
// instruction streams (counted.S), mapping events of a dynamic program
// checked against the /proc/self/maps it prints, signals, exec, threads,
// bad programs, CPUID/XGETBV emulation, ENOSYS system calls and the
// auxiliary-vector and stack rewrites (checked through what
// cpuid_probe.c prints from inside the recorded process).
#include "recorder/ptrace_recorder.h"

#include <elf.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/code_map.h"
#include "recorder/proc_maps.h"
#include "recorder/testing/test_programs.h"
#include "recorder/valgrind_probe.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::CollectingSink;
using ::hwt::recorder::testing::Program;
using ::hwt::recorder::testing::TestEnv;
using ::testing::HasSubstr;

std::string RealPath(const std::string& path) {
  char real[PATH_MAX];
  return realpath(path.c_str(), real) ? std::string(real) : path;
}

class PtraceRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-ptrace-test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }

  PtraceRecorderOptions Options(std::vector<std::string> argv) {
    PtraceRecorderOptions options;
    options.argv = std::move(argv);
    options.env = TestEnv();
    options.stdout_path = dir_->path() + "/stdout.txt";
    options.vdso_dump_path = dir_->path() + "/vdso.so";
    return options;
  }

  std::string Stdout() {
    auto text = ReadFileToString(dir_->path() + "/stdout.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }

  std::unique_ptr<TempDir> dir_;
};

// A CPU that answers leaves 0, 1 and 0x80000000 only: GenuineIntel, family
// 6 model 0x3c, OSXSAVE set, XCR0 = x87|SSE|AVX.
CpuidTable SmallTable() {
  CpuidTable table;
  table.Set(0, 0, CpuidAnswer{1, 0x756e6547, 0x6c65746e, 0x49656e69});
  table.Set(1, 0, CpuidAnswer{0x000306c3, 0x00100800, 1u << 27, 0});
  table.Set(0x80000000, 0, CpuidAnswer{0x80000000, 0, 0, 0});
  table.xcr0 = 0x7;
  return table;
}

TEST_F(PtraceRecorderTest, RecordsEveryInstructionOfCounted) {
  std::string counted = Program("counted_static");
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  PtraceRecorderOptions options = Options({counted});
  options.verify_predictions = true;
  CollectingSink sink;
  auto stats = RecordWithPtrace(options, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  // Hand-counted in counted.S.
  EXPECT_EQ(stats->instructions, 79u);
  ASSERT_EQ(sink.ips().size(), 79u);
  // rep movsb runs five iterations but is reported once: four more steps.
  EXPECT_EQ(stats->steps, 79u + 4u);
  EXPECT_EQ(sink.ips().front(), elf->entry);
  EXPECT_TRUE(sink.exited());
  EXPECT_EQ(sink.exit_status(), 0);
  EXPECT_EQ(stats->exit_status, 0);
  EXPECT_EQ(sink.info().recorder, "ptrace-singlestep");

  CodeMap code;
  ASSERT_TRUE(code.Apply(sink.events()[0]).ok());
  std::map<std::string, int> mnemonics;
  for (uint64_t ip : sink.ips()) {
    std::string text = code.Disassemble(ip);
    mnemonics[text.substr(0, text.find_first_of(" \t"))]++;
  }
  EXPECT_EQ(mnemonics["rep"], 1);
  EXPECT_EQ(mnemonics["loop"], 4);
  EXPECT_EQ(mnemonics["jrcxz"], 2);
  EXPECT_EQ(mnemonics["pause"], 1);
  EXPECT_EQ(mnemonics["syscall"], 1);
  EXPECT_EQ(code.Disassemble(sink.ips().back()), "syscall");

  ASSERT_EQ(sink.events().size(), 2u);
  EXPECT_EQ(sink.events()[0].type, capture::RecordType::kExecutable);
  EXPECT_EQ(sink.events()[0].path, RealPath(counted));
  EXPECT_EQ(sink.events()[0].addr, 0u);
  EXPECT_EQ(sink.events()[0].baseaddr, 0u);
  EXPECT_EQ(sink.events()[1].type, capture::RecordType::kMmap);
  EXPECT_EQ(sink.events()[1].path, "[vdso]");
}

TEST_F(PtraceRecorderTest, DynamicProgramMappingsMatchItsOwnProcMaps) {
  std::string program = Program("maps_dynamic");
  CollectingSink sink;
  auto stats = RecordWithPtrace(Options({program}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  // The program printed /proc/self/maps from main: the layout the
  // recorder must have reported.
  std::string out = Stdout();
  auto maps = ParseProcMaps(out.substr(0, out.rfind("done")));
  ASSERT_TRUE(maps.ok()) << maps.status();
  auto elf = capture::ReadElfFile(program);
  ASSERT_TRUE(elf.ok());
  std::string interp = RealPath(elf->interpreter);
  std::string exe = RealPath(program);
  uint64_t exe_start = 0, interp_start = 0, libc_text = 0, libc_end = 0,
           vdso_start = 0, vdso_end = 0;
  std::string libc;
  for (const ProcMapping& m : *maps) {
    if (m.path == exe && m.offset == 0) exe_start = m.start;
    if (m.path == interp && m.offset == 0) interp_start = m.start;
    if (m.path.find("/libc.so") != std::string::npos && m.executable()) {
      libc = m.path;
      libc_text = m.start;
      libc_end = m.end;
    }
    if (m.path == "[vdso]") {
      vdso_start = m.start;
      vdso_end = m.end;
    }
  }
  ASSERT_NE(exe_start, 0u);
  ASSERT_NE(interp_start, 0u);
  ASSERT_NE(libc_text, 0u);
  ASSERT_NE(vdso_start, 0u);

  const auto& events = sink.events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].type, capture::RecordType::kExecutable);
  EXPECT_EQ(events[0].path, exe);
  EXPECT_EQ(events[0].addr, exe_start - elf->LowestLoadAddress());
  EXPECT_EQ(events[0].baseaddr, interp_start);
  EXPECT_EQ(events[1].type, capture::RecordType::kMmap);
  EXPECT_EQ(events[1].path, "[vdso]");
  EXPECT_EQ(events[1].addr, vdso_start);
  // The vDSO dump is the complete ELF image.
  auto vdso = capture::ReadElfFile(dir_->path() + "/vdso.so");
  ASSERT_TRUE(vdso.ok()) << vdso.status();
  auto dump = ReadFileToString(dir_->path() + "/vdso.so");
  ASSERT_TRUE(dump.ok());
  EXPECT_EQ(dump->size(), vdso_end - vdso_start);

  // Exactly one MMAP for libc, at its code mapping, before its first
  // instruction ran; no MMAP for the program or ld.so (EXECUTABLE covers
  // them) and no MUNMAP.
  int libc_events = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const MappingEvent& e = events[i];
    EXPECT_NE(e.type, capture::RecordType::kMunmap) << e.path;
    if (i > 0) {
      EXPECT_NE(e.type, capture::RecordType::kExecutable);
    }
    if (i > 0) {
      EXPECT_NE(e.path, exe);
      EXPECT_NE(e.path, interp);
    }
    if (e.path != libc) continue;
    ++libc_events;
    EXPECT_EQ(e.type, capture::RecordType::kMmap);
    EXPECT_EQ(e.addr, libc_text);
    auto first_in_libc = std::find_if(
        sink.ips().begin(), sink.ips().end(),
        [&](uint64_t ip) { return ip >= libc_text && ip < libc_end; });
    ASSERT_NE(first_in_libc, sink.ips().end());
    EXPECT_LE(sink.events_at()[i],
              static_cast<size_t>(first_in_libc - sink.ips().begin()));
  }
  EXPECT_EQ(libc_events, 1);
  // The first instruction is ld.so's entry point.
  auto interp_elf = capture::ReadElfFile(elf->interpreter);
  ASSERT_TRUE(interp_elf.ok());
  EXPECT_EQ(sink.ips().front(), interp_start + interp_elf->entry);
}

TEST_F(PtraceRecorderTest, CrashIsARecordingEndingWithTheSignal) {
  CollectingSink sink;
  auto stats =
      RecordWithPtrace(Options({Program("crash_static"), "segv"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, -SIGSEGV);
  EXPECT_EQ(sink.exit_status(), -SIGSEGV);
  EXPECT_EQ(stats->signals_delivered, 1u);
  // The faulting load (poke's first instruction) never completed: the last
  // instruction is the call of poke.
  CodeMap code;
  ASSERT_TRUE(code.Apply(sink.events()[0]).ok());
  auto last = code.InsnAt(sink.ips().back());
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->cls, x86::InsnClass::kCall);
}

TEST_F(PtraceRecorderTest, NonZeroExitIsReported) {
  CollectingSink sink;
  auto stats =
      RecordWithPtrace(Options({Program("crash_static"), "exit"}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 3);
  EXPECT_EQ(sink.exit_status(), 3);
}

TEST_F(PtraceRecorderTest, HandledSignalIsDeliveredAndTheHandlerRecorded) {
  PtraceRecorderOptions options = Options({Program("crash_static"), "handled"});
  options.verify_predictions = true;
  CollectingSink sink;
  auto stats = RecordWithPtrace(options, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  EXPECT_EQ(Stdout(), "recovered\n");
  EXPECT_GE(stats->signals_delivered, 1u);
}

TEST_F(PtraceRecorderTest, MissingProgramIsANotFoundError) {
  CollectingSink sink;
  auto stats = RecordWithPtrace(Options({"/no/such/program"}), sink);
  EXPECT_TRUE(absl::IsNotFound(stats.status())) << stats.status();
  EXPECT_THAT(std::string(stats.status().message()),
              HasSubstr("/no/such/program"));
  EXPECT_TRUE(sink.ips().empty());
}

TEST_F(PtraceRecorderTest, NonExecutableFileIsAnError) {
  CollectingSink sink;
  auto stats = RecordWithPtrace(
      Options({hwt::recorder::testing::ProgramSource("fib.c")}), sink);
  EXPECT_FALSE(stats.ok());
  EXPECT_THAT(std::string(stats.status().message()), HasSubstr("fib.c"));
}

TEST_F(PtraceRecorderTest, ThreadsAreRefused) {
  CollectingSink sink;
  auto stats = RecordWithPtrace(Options({Program("threads_static")}), sink);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kFailedPrecondition)
      << stats.status();
  EXPECT_THAT(std::string(stats.status().message()),
              HasSubstr("single-threaded"));
}

TEST_F(PtraceRecorderTest, ExecStartsANewProgram) {
  std::string counted = Program("counted_static");
  CollectingSink sink;
  auto stats =
      RecordWithPtrace(Options({Program("execs_static"), counted}), sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  std::vector<size_t> execs;
  for (size_t i = 0; i < sink.events().size(); ++i) {
    if (sink.events()[i].type == capture::RecordType::kExecutable) {
      execs.push_back(i);
    }
  }
  ASSERT_EQ(execs.size(), 2u);
  EXPECT_EQ(sink.events()[execs[1]].path, RealPath(counted));
  // After the exec: exactly counted's 79 instructions.
  size_t start = sink.events_at()[execs[1]];
  CollectingSink alone;
  ASSERT_TRUE(RecordWithPtrace(Options({counted}), alone).ok());
  std::vector<uint64_t> after(sink.ips().begin() + start, sink.ips().end());
  EXPECT_EQ(after, alone.ips());
  // The instruction before is the execve system call.
  CodeMap code;
  ASSERT_TRUE(code.Apply(sink.events()[0]).ok());
  EXPECT_EQ(code.Disassemble(sink.ips()[start - 1]), "syscall");
}

TEST_F(PtraceRecorderTest, MaxInstructionsStopsTheProgram) {
  PtraceRecorderOptions options = Options({Program("fib_static")});
  options.max_instructions = 1000;
  CollectingSink sink;
  auto stats = RecordWithPtrace(options, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_TRUE(stats->truncated);
  EXPECT_EQ(sink.ips().size(), 1000u);
  EXPECT_EQ(sink.exit_status(), -SIGKILL);
}

TEST_F(PtraceRecorderTest, WithoutATableCpuidGivesThisMachinesAnswers) {
  PtraceRecorderOptions options =
      Options({Program("cpuid_probe_static"), "leaf0"});
  CollectingSink sink;
  auto stats = RecordWithPtrace(options, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  auto seen = ParseProbeOutput(Stdout());
  ASSERT_TRUE(seen.ok()) << seen.status();
  CpuidAnswer host = HostCpuid(0, 0);
  auto leaf0 = seen->cpuid.Lookup(0, 0);
  ASSERT_TRUE(leaf0.has_value());
  EXPECT_EQ(leaf0->eax, host.eax);
  EXPECT_EQ(leaf0->ebx, host.ebx);
  EXPECT_GT(stats->cpuid_emulated, 0u);
  EXPECT_EQ(stats->cpuid_misses, 0u);
}

// Two runs of cpuid_probe.c with a CPUID table: the first shows the table's
// answers and where the kernel put the stack; the second hides
// AT_SYSINFO_EHDR, fails rseq with ENOSYS and moves the whole stack to
// other page offsets, which the probe sees from inside.
TEST_F(PtraceRecorderTest, CpuidTableAuxvTypesStackLayoutAndEnosys) {
  PtraceRecorderOptions options = Options({Program("cpuid_probe_static")});
  options.cpuid = SmallTable();
  CollectingSink first;
  auto first_stats = RecordWithPtrace(options, first);
  ASSERT_TRUE(first_stats.ok()) << first_stats.status();
  EXPECT_EQ(first_stats->exit_status, 0);
  auto native = ParseProbeOutput(Stdout());
  ASSERT_TRUE(native.ok()) << native.status();
  for (uint32_t leaf : {0u, 1u, 0x80000000u}) {
    auto want = SmallTable().Lookup(leaf, 0);
    auto got = native->cpuid.Lookup(leaf, 0);
    ASSERT_TRUE(got.has_value()) << leaf;
    EXPECT_EQ(got->eax, want->eax) << leaf;
    EXPECT_EQ(got->ebx, want->ebx) << leaf;
    EXPECT_EQ(got->ecx, want->ecx) << leaf;
    EXPECT_EQ(got->edx, want->edx) << leaf;
  }
  EXPECT_EQ(native->cpuid.size(), 3u);  // max leaves 1 and 0x80000000
  EXPECT_EQ(native->cpuid.xcr0, std::optional<uint64_t>(0x7));
  EXPECT_GE(first_stats->cpuid_emulated, 3u);
  EXPECT_GE(first_stats->xgetbv_emulated, 1u);
  EXPECT_EQ(first.info().cpu.vendor, "GenuineIntel");
  EXPECT_EQ(first.info().cpu.family, 6u);
  EXPECT_EQ(first.info().cpu.model, 0x3cu);
  ASSERT_EQ(native->env, TestEnv());

  std::vector<uint64_t> types = native->auxv_types;
  auto vdso = std::find(types.begin(), types.end(), uint64_t{AT_SYSINFO_EHDR});
  ASSERT_NE(vdso, types.end());
  *vdso = 1;  // AT_IGNORE
  InitialStackLayout layout = native->stack;
  auto shift = [](uint64_t& a) { a -= 0x900; };
  shift(layout.sp);
  for (uint64_t& a : layout.argv) shift(a);
  for (uint64_t& a : layout.env) shift(a);
  shift(layout.random);
  shift(layout.execfn);
  shift(layout.platform);
  options.auxv_types = types;
  options.stack_layout = layout;
  options.enosys_syscalls = {SYS_rseq};
  options.verify_predictions = true;
  CollectingSink second;
  auto stats = RecordWithPtrace(options, second);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->exit_status, 0);
  auto moved = ParseProbeOutput(Stdout());
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->auxv_types, types);
  EXPECT_EQ(moved->env, TestEnv());
  auto page_offset = [](uint64_t a) { return a & 0xfff; };
  EXPECT_EQ(page_offset(moved->stack.sp), page_offset(layout.sp));
  ASSERT_EQ(moved->stack.argv.size(), layout.argv.size());
  for (size_t i = 0; i < layout.argv.size(); ++i) {
    EXPECT_EQ(page_offset(moved->stack.argv[i]), page_offset(layout.argv[i]));
  }
  ASSERT_EQ(moved->stack.env.size(), layout.env.size());
  for (size_t i = 0; i < layout.env.size(); ++i) {
    EXPECT_EQ(page_offset(moved->stack.env[i]), page_offset(layout.env[i]));
  }
  EXPECT_EQ(page_offset(moved->stack.random), page_offset(layout.random));
  EXPECT_EQ(page_offset(moved->stack.execfn), page_offset(layout.execfn));
  EXPECT_EQ(page_offset(moved->stack.platform), page_offset(layout.platform));
  // glibc's rseq registration and the probe's own call both failed.
  EXPECT_EQ(moved->enosys_syscalls, std::vector<long>{SYS_rseq});
  EXPECT_GE(stats->syscalls_failed, 1u);
  if (native->enosys_syscalls.empty()) {
    EXPECT_GT(stats->syscalls_failed, 1u);  // glibc's registration too
  }
}

}  // namespace
}  // namespace hwt::recorder
