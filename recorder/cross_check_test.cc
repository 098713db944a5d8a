// The two recorders on the same programs, run the same way
// (ValgrindLookalike: valgrind's CPUID/XCR0 answers, environment, auxiliary
// vector, missing rseq and stack page offsets given to the ptrace run): the
// instruction sequences must be identical, instruction by instruction, as
// (image, ELF virtual address) pairs (valgrind loads ld.so, the libraries
// and PIEs at other addresses than the kernel).
//
// The two paths share no decoding code. The ptrace side's addresses are the
// CPU's: verify_predictions reads the instruction pointer after every step
// (its x86-classifier predictions are checked, never trusted). The valgrind
// side's addresses and lengths are VEX's (the hwttrace tool only copies
// them; it recognises rep-string prefixes itself). Mapping addresses back to
// images reads ELF program headers, no instructions. Two independent
// recorders agreeing is what makes either a ground truth.
//
// Dynamically linked programs run with LD_BIND_NOW (see below) and are
// compared outside the code that branches on load addresses: ld.so's
// _dlfo_sort_mappings sorts the loaded objects by address, and valgrind
// loads them elsewhere than the kernel. Everything else must agree.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/code_map.h"
#include "recorder/elf_functions.h"
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

// An executed instruction as (image file, ELF virtual address).
using Place = std::pair<std::string, uint64_t>;

// Functions whose path depends on where the images were loaded.
bool AddressDependent(const std::string& function) {
  return function == "_dlfo_sort_mappings";
}

std::string Describe(const Place& place) {
  return absl::StrFormat("%s+0x%x", place.first, place.second);
}

// The recorded addresses in terms of the images the recording's own mapping
// events put there.
std::vector<Place> Places(const CollectingSink& sink) {
  CodeMap code;
  std::map<std::string, std::unique_ptr<ElfFunctionTable>> tables;
  std::vector<Place> places;
  places.reserve(sink.ips().size());
  size_t next_event = 0;
  for (size_t i = 0; i < sink.ips().size(); ++i) {
    while (next_event < sink.events().size() &&
           sink.events_at()[next_event] <= i) {
      // The ptrace run reports the vDSO (not dumped here; valgrind hides it).
      const MappingEvent& event = sink.events()[next_event++];
      if (event.path != "[vdso]") {
        EXPECT_TRUE(code.Apply(event).ok());
      }
    }
    std::optional<CodeLocation> at = code.Locate(sink.ips()[i]);
    if (!at) {
      places.emplace_back("[unknown]", sink.ips()[i]);
      continue;
    }
    const std::string& file = code.images()[at->image].file;
    auto& table = tables[file];
    if (!table) {
      auto read = ElfFunctionTable::Read(file);
      EXPECT_TRUE(read.ok()) << read.status();
      table = std::make_unique<ElfFunctionTable>(
          read.ok() ? std::move(*read) : ElfFunctionTable());
    }
    const ElfFunction* f = table->Find(at->vaddr);
    if (f != nullptr && AddressDependent(f->name)) continue;
    places.emplace_back(file, at->vaddr);
  }
  return places;
}

// Folded stacks without the lines whose leaf is address-dependent code.
std::string Comparable(const std::string& folded) {
  std::string out;
  for (absl::string_view line :
       absl::StrSplit(folded, '\n', absl::SkipEmpty())) {
    absl::string_view stack = line.substr(0, line.rfind(' '));
    absl::string_view leaf = stack.substr(stack.rfind(';') + 1);
    if (AddressDependent(std::string(leaf))) continue;
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

class CrossCheckTest : public ::testing::TestWithParam<CrossCheckCase> {};

TEST_P(CrossCheckTest, RecordersAgreeInstructionByInstruction) {
  HWT_REQUIRE_VALGRIND();
  const CrossCheckCase& c = GetParam();
  ValgrindRecorderOptions program;
  program.argv = c.argv;
  program.argv[0] = Program(c.argv[0]);
  program.env = TestEnv();
  // Lazy binding runs _dl_runtime_resolve_xsave, whose XSAVE area is sized
  // by CPUID: with valgrind's answers it is too small for the real CPU's
  // XSAVE, so the ptrace run would overwrite its stack. Bind at start-up.
  program.env->push_back("LD_BIND_NOW=1");
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
  options.verify_predictions = true;
  options = lookalike->ptrace_options(options);
  CollectingSink by_ptrace;
  GroundTruth ptrace_truth;
  TeeExecutionSink ptrace_tee({&by_ptrace, &ptrace_truth});
  auto ptrace_stats = RecordWithPtrace(options, ptrace_tee);
  ASSERT_TRUE(ptrace_stats.ok()) << ptrace_stats.status();

  std::cout << c << ": " << by_ptrace.ips().size() << " instructions (ptrace "
            << ptrace_stats->steps << " steps, " << ptrace_stats->cpuid_emulated
            << " CPUID emulated; valgrind "
            << valgrind_stats->guest_instructions << " guest instructions)\n";
  EXPECT_EQ(ptrace_stats->cpuid_misses, 0u);
  EXPECT_EQ(valgrind_stats->exit_status, c.exit_status);
  EXPECT_EQ(ptrace_stats->exit_status, c.exit_status);
  EXPECT_EQ(by_ptrace.events()[0].path, by_valgrind.events()[0].path);

  const std::vector<Place> p = Places(by_ptrace);
  const std::vector<Place> v = Places(by_valgrind);
  auto mismatch = std::mismatch(p.begin(), p.end(), v.begin(), v.end());
  if (mismatch.first != p.end() || mismatch.second != v.end()) {
    size_t at = mismatch.first - p.begin();
    std::string context;
    for (size_t i = at >= 3 ? at - 3 : 0; i < at + 3; ++i) {
      context += absl::StrFormat("  %d: ptrace %s | valgrind %s\n", i,
                                 i < p.size() ? Describe(p[i]) : "",
                                 i < v.size() ? Describe(v[i]) : "");
    }
    FAIL() << "the recordings differ at instruction " << at << " (ptrace "
           << p.size() << ", valgrind " << v.size() << " instructions):\n"
           << context;
  }
  EXPECT_EQ(Comparable(ptrace_truth.FoldedStacks()),
            Comparable(valgrind_truth.FoldedStacks()));
  if (by_ptrace.events()[0].addr == by_valgrind.events()[0].addr &&
      by_ptrace.events()[0].baseaddr == 0) {
    EXPECT_EQ(ptrace_truth.digest(), valgrind_truth.digest());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Programs, CrossCheckTest,
    ::testing::Values(CrossCheckCase{{"counted_static"}, 0},
                      CrossCheckCase{{"jumps_static"}, 0},
                      CrossCheckCase{{"fib_static", "12"}, 0},
                      CrossCheckCase{{"indirect_static", "200"}, 0},
                      CrossCheckCase{{"switch_static", "300"}, 0},
                      CrossCheckCase{{"strings_static"}, 0},
                      CrossCheckCase{{"longjmp_static"}, 0},
                      CrossCheckCase{{"hot_static", "1500"}, 0},
                      CrossCheckCase{{"crash_static", "segv"}, -11},
                      CrossCheckCase{{"crash_static", "exit"}, 3},
                      CrossCheckCase{{"crash_static", "handled"}, 0},
                      CrossCheckCase{{"fib_dynamic", "12"}, 0},
                      CrossCheckCase{{"longjmp_dynamic"}, 0},
                      CrossCheckCase{{"crash_dynamic", "handled"}, 0}),
    [](const ::testing::TestParamInfo<CrossCheckCase>& info) {
      std::string name = absl::StrJoin(info.param.argv, "_");
      std::replace_if(
          name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
      return name;
    });

}  // namespace
}  // namespace hwt::recorder
