// Ground truth against hand-checked expectations: counted.S's folded stacks,
// per-function counts and call edges (counted.folded/.functions/.edges, all
// derived from the comments in counted.S), fib's call edges (fib(n) makes
// 2*fib(n+1)-1 calls) and recursion depth, longjmp, a PLT call and a vDSO
// call in a dynamic program, and the naming/return rules on synthetic
// streams.
#include "recorder/ground_truth.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "recorder/ptrace_recorder.h"
#include "recorder/test_programs.h"

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

  // The files.
  std::string out = dir_->path() + "/truth";
  ASSERT_TRUE(truth.Write(out).ok());
  auto folded = ReadFileToString(out + "/folded.txt");
  ASSERT_TRUE(folded.ok());
  EXPECT_EQ(*folded, Golden("counted.folded"));
  auto summary_text = ReadFileToString(out + "/summary.json");
  ASSERT_TRUE(summary_text.ok());
  auto summary = nlohmann::json::parse(*summary_text);
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

TEST_F(GroundTruthTest, LongjmpFramesStayUntilMainReturns) {
  GroundTruth truth(Aliases());
  Record({Program("longjmp_static")}, truth);
  EXPECT_EQ(EdgeCount(truth, "main", "outer"), 3u);
  EXPECT_EQ(EdgeCount(truth, "outer", "inner"), 3u);
  size_t most_outers = 0;
  bool saw_exit = false;
  for (const auto& stack : FoldedStacks(truth)) {
    size_t outers = std::count(stack.begin(), stack.end(), "outer");
    most_outers = std::max(most_outers, outers);
    // Per docs/call-stacks.md, longjmp's jump into main replaces the top
    // frame: main continues on top of the frames it jumped out of...
    // (above the newest inner: longjmp's frames, then main).
    auto newest_inner = std::find(stack.rbegin(), stack.rend(), "inner");
    if (newest_inner != stack.rend() && stack.back() == "main") {
      EXPECT_EQ(std::count(stack.rbegin(), newest_inner, "main"), 1);
      EXPECT_GE(newest_inner - stack.rbegin(), 2);
    }
    // ...until main returns: that return matches main's own frame and pops
    // everything above it, so exit runs on a clean stack.
    if (std::find(stack.begin(), stack.end(), "exit") != stack.end()) {
      saw_exit = true;
      EXPECT_EQ(outers, 0u) << absl::StrJoin(stack, ";");
      EXPECT_EQ(std::count(stack.begin(), stack.end(), "main"), 0);
    }
  }
  EXPECT_EQ(most_outers, 3u);  // three rounds, one above the other
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
  auto libc = FunctionTable::Load("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(libc.ok()) << libc.status();
  std::string puts_name;
  for (const FunctionSymbol& s : libc->symbols()) {
    if (s.name == "puts") puts_name = libc->symbols()[libc->Find(s.start)].name;
  }
  ASSERT_FALSE(puts_name.empty());
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
  auto table = FunctionTable::Load(counted);
  ASSERT_TRUE(table.ok());
  uint64_t leaf = 0;
  for (const FunctionSymbol& s : table->symbols()) {
    if (s.name == "leaf") leaf = s.start;
  }
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
  auto table = FunctionTable::Load(program);
  ASSERT_TRUE(table.ok());
  uint64_t puts_plt = 0;
  for (const FunctionSymbol& s : table->symbols()) {
    if (s.name == "puts@plt") puts_plt = s.start;
  }
  ASSERT_NE(puts_plt, 0u);
  uint64_t plt0 = puts_plt - 16;  // lazy binding stub: covered by no symbol
  ASSERT_EQ(table->Find(plt0), FunctionTable::kNone);
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
