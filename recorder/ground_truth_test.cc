// Ground truth against hand-checked expectations: counted.S's folded stacks,
// per-function counts and call edges (counted.folded/.functions/.edges, all
// derived from the comments in counted.S), jumps.S's stacks (the jump
// rules), fib's call edges (fib(n) makes 2*fib(n+1)-1 calls) and recursion
// depth, longjmp (stacks worked out from the disassembly), a PLT call and a
// vDSO call in a dynamic program, and the naming/return rules on synthetic
// streams.
#include "recorder/ground_truth.h"

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "recorder/ptrace_recorder.h"
#include "recorder/testing/test_programs.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::CollectingSink;
using ::hwt::recorder::testing::Program;
using ::hwt::recorder::testing::ProgramSource;
using ::hwt::recorder::testing::TestEnv;
using ::testing::Contains;
using ::testing::HasSubstr;

std::string Golden(const std::string& name) {
  auto text = ReadFileToString(ProgramSource(name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

std::string FunctionsText(const GroundTruth& truth) {
  std::string out;
  for (const FunctionCount& f : truth.Functions()) {
    absl::StrAppendFormat(&out, "%s %d %d\n", f.name, f.self, f.total);
  }
  return out;
}

std::string EdgesText(const GroundTruth& truth) {
  std::string out;
  for (const CallEdge& e : truth.CallEdges()) {
    absl::StrAppendFormat(&out, "%s %s %d\n", e.caller, e.callee, e.count);
  }
  return out;
}

uint64_t EdgeCount(const GroundTruth& truth, const std::string& caller,
                   const std::string& callee) {
  for (const CallEdge& e : truth.CallEdges()) {
    if (e.caller == caller && e.callee == callee) return e.count;
  }
  return 0;
}

// The functions of one file, as the ground truth reads them.
std::unique_ptr<ElfFunctionTable> Symbols(const std::string& file) {
  auto table = ElfFunctionTable::Read(file);
  EXPECT_TRUE(table.ok()) << table.status();
  if (!table.ok()) return std::make_unique<ElfFunctionTable>();
  return std::make_unique<ElfFunctionTable>(std::move(*table));
}

// The start of the function named `name` (0 if none).
uint64_t StartOf(const ElfFunctionTable& symbols, const std::string& name) {
  for (const ElfFunction& f : symbols.functions()) {
    if (f.name == name) return f.start;
  }
  return 0;
}

std::vector<std::vector<std::string>> FoldedStacks(const GroundTruth& truth) {
  std::vector<std::vector<std::string>> stacks;
  for (absl::string_view line :
       absl::StrSplit(truth.FoldedStacks(), '\n', absl::SkipEmpty())) {
    absl::string_view frames = line.substr(0, line.rfind(' '));
    stacks.push_back(absl::StrSplit(frames, ';'));
  }
  return stacks;
}

class GroundTruthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-ground-truth-test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }

  // Records `argv` with the ptrace recorder into `truth` (and `sink`).
  void Record(std::vector<std::string> argv, GroundTruth& truth,
              CollectingSink* sink = nullptr) {
    PtraceRecorderOptions options;
    options.argv = std::move(argv);
    options.env = TestEnv();
    options.stdout_path = dir_->path() + "/stdout.txt";
    options.vdso_dump_path = VdsoPath();
    CollectingSink ignored;
    TeeExecutionSink tee({&truth, sink ? sink : &ignored});
    auto stats = RecordWithPtrace(options, tee);
    ASSERT_TRUE(stats.ok()) << stats.status();
    ASSERT_TRUE(truth.status().ok()) << truth.status();
    EXPECT_EQ(truth.undecodable(), 0u);
  }

  std::string VdsoPath() const { return dir_->path() + "/vdso.so"; }
  CodeMapOptions Aliases() const {
    CodeMapOptions options;
    options.path_aliases["[vdso]"] = VdsoPath();
    return options;
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(GroundTruthTest, CountedMatchesTheHandCountedGoldens) {
  GroundTruth truth(Aliases());
  CollectingSink sink;
  Record({Program("counted_static")}, truth, &sink);
  EXPECT_EQ(truth.instructions(), 79u);
  EXPECT_EQ(truth.FoldedStacks(), Golden("counted.folded"));
  EXPECT_EQ(FunctionsText(truth), Golden("counted.functions"));
  EXPECT_EQ(EdgesText(truth), Golden("counted.edges"));
  EXPECT_EQ(truth.exit_status(), std::optional<int>(0));
  // The digest is FNV-1a over the little-endian addresses.
  uint64_t digest = 0xcbf29ce484222325ull;
  for (uint64_t ip : sink.ips()) {
    for (int b = 0; b < 8; ++b) {
      digest = (digest ^ ((ip >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
  }
  EXPECT_EQ(truth.digest(), digest);

  // The summary.
  auto summary = nlohmann::json::parse(truth.SummaryJson());
  EXPECT_EQ(summary["instructions"], 79);
  EXPECT_EQ(summary["digest"], absl::StrFormat("fnv1a64:%016x", digest));
  EXPECT_EQ(summary["recorder"], "ptrace-singlestep");
  ASSERT_EQ(summary["functions"].size(), 7u);
  EXPECT_EQ(summary["functions"][0]["name"], "_start");
  EXPECT_EQ(summary["functions"][0]["self"], 24);
  EXPECT_EQ(summary["functions"][0]["total"], 79);
  ASSERT_EQ(summary["call_edges"].size(), 8u);
  EXPECT_EQ(summary["call_edges"][7]["caller"], "rec");
  EXPECT_EQ(summary["call_edges"][7]["count"], 2);
  EXPECT_EQ(summary["images"][0]["bias"], "0x0");
}

TEST_F(GroundTruthTest, JumpsMatchTheHandCountedGolden) {
  // jumps.S: unwinding into a function's body, tail calls to an entry of a
  // function on the stack and into a body without a frame, uncovered code.
  GroundTruth truth(Aliases());
  Record({Program("jumps_static")}, truth);
  EXPECT_EQ(truth.instructions(), 46u);
  EXPECT_EQ(truth.FoldedStacks(), Golden("jumps.folded"));
  EXPECT_EQ(truth.exit_status(), std::optional<int>(0));
  EXPECT_EQ(EdgesText(truth),
            "[jumps_static+0x401065] e 1\n"
            "_start a 1\n_start b 1\n_start c 1\n_start getpc 1\n"
            "_start uncov_caller 1\n"
            "a a_inner 1\na_inner a_deep 1\nb b2 2\nc c2 1\n"
            "uncov_caller [jumps_static+0x401065] 1\n");
}

TEST_F(GroundTruthTest, FibCallEdgesAndRecursionDepth) {
  GroundTruth truth(Aliases());
  Record({Program("fib_static"), "10"}, truth);
  // fib(10) runs fib 2*fib(11)-1 = 177 times: one call from main, 176
  // from fib itself.
  EXPECT_EQ(EdgeCount(truth, "main", "fib"), 1u);
  EXPECT_EQ(EdgeCount(truth, "fib", "fib"), 176u);
  // The deepest chain is fib(10) -> fib(9) -> ... -> fib(1): 10 frames.
  size_t deepest = 0;
  for (const auto& stack : FoldedStacks(truth)) {
    size_t fibs = std::count(stack.begin(), stack.end(), "fib");
    deepest = std::max(deepest, fibs);
    if (fibs > 0) {
      // Every fib frame sits on main, and nothing else is called by fib.
      auto first = std::find(stack.begin(), stack.end(), "fib");
      EXPECT_EQ(*(first - 1), "main");
      EXPECT_EQ(stack.back(), "fib");
    }
  }
  EXPECT_EQ(deepest, 10u);
  for (const FunctionCount& f : truth.Functions()) {
    if (f.name == "fib") {
      EXPECT_EQ(f.self, f.total);
    }
  }
}

TEST_F(GroundTruthTest, LongjmpUnwindsToMain) {
  GroundTruth truth(Aliases());
  Record({Program("longjmp_static")}, truth);
  EXPECT_EQ(EdgeCount(truth, "main", "outer"), 3u);
  EXPECT_EQ(EdgeCount(truth, "outer", "inner"), 3u);
  // Worked out from the disassembly of longjmp_static (glibc 2.36, -O1):
  // main runs 4 instructions up to the call of _setjmp, which tail-calls
  // __sigsetjmp (18), which tail-calls __sigjmp_save (8, returns to main).
  // Each of the 4 returns from setjmp runs 7 main instructions (cmp, jle,
  // then 5 up to the call of outer, or 5 up to the call of printf), and 3
  // after printf. Three rounds of outer (2) -> inner (5) ->
  // __libc_siglongjmp (6 + 9), which calls _longjmp_unwind (2, tail-calls
  // __pthread_cleanup_upto: 24 with no cleanup handlers) and __longjmp
  // (18), whose `jmp *%rdx` lands after the setjmp call in main's body:
  // it unwinds to main's frame, so main never stacks up.
  std::map<std::string, uint64_t> from_main;
  std::string below_main;
  for (absl::string_view line :
       absl::StrSplit(truth.FoldedStacks(), '\n', absl::SkipEmpty())) {
    size_t space = line.rfind(' ');
    std::string stack(line.substr(0, space));
    std::vector<std::string> frames = absl::StrSplit(stack, ';');
    auto main = std::find(frames.begin(), frames.end(), "main");
    if (main == frames.end()) continue;
    EXPECT_EQ(std::count(frames.begin(), frames.end(), "main"), 1) << line;
    std::string prefix = absl::StrJoin(frames.begin(), main, ";");
    if (below_main.empty()) below_main = prefix;
    EXPECT_EQ(prefix, below_main) << line;
    if (main + 1 != frames.end() && main[1] == "_IO_printf") continue;
    uint64_t count = 0;
    ASSERT_TRUE(absl::SimpleAtoi(line.substr(space + 1), &count));
    from_main[absl::StrJoin(main, frames.end(), ";")] += count;
  }
  EXPECT_EQ(
      from_main,
      (std::map<std::string, uint64_t>{
          {"main", 35},
          {"main;_setjmp", 2},
          {"main;__sigsetjmp", 18},
          {"main;__sigjmp_save", 8},
          {"main;outer", 6},
          {"main;outer;inner", 15},
          {"main;outer;inner;__libc_siglongjmp", 45},
          {"main;outer;inner;__libc_siglongjmp;_longjmp_unwind", 6},
          {"main;outer;inner;__libc_siglongjmp;__pthread_cleanup_upto", 72},
          {"main;outer;inner;__libc_siglongjmp;__longjmp", 54}}));
  // main's return pops main's frame: exit runs below it.
  bool saw_exit = false;
  for (const auto& stack : FoldedStacks(truth)) {
    if (std::find(stack.begin(), stack.end(), "exit") != stack.end()) {
      saw_exit = true;
      EXPECT_EQ(std::count(stack.begin(), stack.end(), "main"), 0);
    }
  }
  EXPECT_TRUE(saw_exit);
}

TEST_F(GroundTruthTest, PltCallsAndTheVdsoInADynamicProgram) {
  GroundTruth truth(Aliases());
  Record({Program("maps_dynamic")}, truth);
  // main calls puts once (puts("done")): the call lands in the PLT entry,
  // whose jump (after lazy binding through ld.so) replaces it with libc's
  // function; libc names puts with an alias that sorts first.
  EXPECT_EQ(EdgeCount(truth, "main", "puts@plt"), 1u);
  EXPECT_EQ(EdgeCount(truth, "main", "fopen@plt"), 1u);
  EXPECT_EQ(EdgeCount(truth, "main", "clock_gettime@plt"), 1u);
  auto libc = Symbols("/lib/x86_64-linux-gnu/libc.so.6");
  const ElfFunction* puts = libc->Find(StartOf(*libc, "puts"));
  ASSERT_NE(puts, nullptr);
  const std::string puts_name = puts->name;
  bool plt_frame = false;
  bool puts_frame = false;
  bool vdso_frame = false;
  for (const auto& stack : FoldedStacks(truth)) {
    auto main = std::find(stack.begin(), stack.end(), "main");
    if (main == stack.end()) continue;
    if (main + 2 == stack.end() && main[1] == "puts@plt") plt_frame = true;
    if (main + 2 == stack.end() && main[1] == puts_name) puts_frame = true;
    if (stack.back() == "__vdso_clock_gettime") vdso_frame = true;
  }
  EXPECT_TRUE(plt_frame) << truth.FoldedStacks();
  EXPECT_TRUE(puts_frame) << puts_name;
  EXPECT_TRUE(vdso_frame);
}

// Synthetic streams over real code: the rules for a return that matches no
// frame, code no symbol covers, and addresses outside every image.
TEST_F(GroundTruthTest, ReturnToAnUnknownCallerStartsANewRoot) {
  std::string counted = Program("counted_static");
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  uint64_t leaf = StartOf(*Symbols(counted), "leaf");
  ASSERT_NE(leaf, 0u);
  GroundTruth truth;
  MappingEvent exec;
  exec.type = capture::RecordType::kExecutable;
  exec.path = counted;
  truth.OnMapping(exec);
  // leaf's ret (leaf+7) returns to _start+11 (after the first call) with no
  // frame to pop to: _start becomes the root.
  std::vector<uint64_t> ips = {leaf + 7, elf->entry + 11, elf->entry + 14};
  truth.OnInstructions(ips);
  EXPECT_EQ(truth.FoldedStacks(), "_start 2\nleaf 1\n");
  EXPECT_TRUE(truth.CallEdges().empty());
}

TEST_F(GroundTruthTest, UncoveredCodeAndUnknownAddressesAreNamed) {
  std::string program = Program("maps_dynamic");
  auto symbols = Symbols(program);
  uint64_t puts_plt = StartOf(*symbols, "puts@plt");
  ASSERT_NE(puts_plt, 0u);
  uint64_t plt0 = puts_plt - 16;  // lazy binding stub: covered by no symbol
  ASSERT_EQ(symbols->Find(plt0), nullptr);
  const uint64_t kBias = 0x555555554000;
  GroundTruth truth;
  MappingEvent exec;
  exec.type = capture::RecordType::kExecutable;
  exec.path = program;
  exec.addr = kBias;
  truth.OnMapping(exec);
  // PLT0: push GOT+8 (6 bytes); jmp *GOT+16 -> somewhere nothing maps.
  std::vector<uint64_t> ips = {plt0 + kBias, plt0 + kBias + 6, 0x1000};
  truth.OnInstructions(ips);
  EXPECT_EQ(truth.FoldedStacks(),
            absl::StrFormat("[maps_dynamic+0x%x] 2\n[unknown] 1\n", plt0));
  EXPECT_EQ(truth.undecodable(), 1u);
}

}  // namespace
}  // namespace hwt::recorder
