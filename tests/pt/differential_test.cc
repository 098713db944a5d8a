// The differential oracle of the fast path (issue 14): every hwt-report
// output (flame graph, folded stacks, top table, call graph as text and DOT,
// hot blocks and paths, annotated disassembly, speedscope) is built from the
// same capture once with --decoder libipt and once with --decoder fast, and
// the two must be byte-identical, stdout and written files alike. Each
// capture is its own test (its own process under ctest): the recordings in
// testdata/. The fast path's share of the work is printed (--stats).
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;

// One hwt-report run: its stdout and the files it wrote.
std::string Run(const std::string& capture, const std::string& decoder,
                std::vector<std::string> args, const std::string& file) {
  std::vector<std::string> argv = {ToolPath("hwt-report"), "-q",
                                   "--decoder=" + decoder};
  for (std::string& arg : args) argv.push_back(std::move(arg));
  argv.push_back(capture);
  const testing::CommandResult result = RunCommand(argv);
  std::string output =
      absl::StrCat("exit ", result.exit_code, "\n", result.out);
  if (!file.empty()) {
    auto text = ReadFileToString(file);
    absl::StrAppend(&output, "\n--- ", file, "\n",
                    text.ok() ? *text : text.status().ToString());
  }
  return output;
}

// Returns how many PSB segments the fast path walked, of how many.
std::pair<uint64_t, uint64_t> FastShare(const std::string& capture) {
  const testing::CommandResult result =
      RunCommand({ToolPath("hwt-report"), "--stats", "--folded", capture});
  std::printf("%s", result.err.c_str());
  const size_t at = result.err.find("fast path: ");
  if (at == std::string::npos) return {0, 0};
  uint64_t walked = 0, total = 0;
  const std::string rest = result.err.substr(at + 11);
  const size_t of = rest.find(" of ");
  const size_t psb = rest.find(" PSB");
  if (of == std::string::npos || psb == std::string::npos ||
      !absl::SimpleAtoi(rest.substr(0, of), &walked) ||
      !absl::SimpleAtoi(rest.substr(of + 4, psb - of - 4), &total)) {
    return {0, 0};
  }
  return {walked, total};
}

void ExpectSameOutputs(const std::string& capture) {
  auto dir = TempDir::Create("hwt-differential");
  ASSERT_TRUE(dir.ok()) << dir.status();
  struct Output {
    std::string name;
    std::vector<std::string> args;
    std::string file;  // written by the run, "" = stdout only
  };
  const std::string svg = dir->path() + "/flame.svg";
  const std::string speedscope = dir->path() + "/profile.speedscope.json";
  const std::vector<Output> outputs = {
      {"flame", {"--flame=" + svg}, svg},
      {"folded", {"--folded"}, ""},
      {"top", {"--top", "20"}, ""},
      {"callgraph", {"--callgraph"}, ""},
      {"callgraph-dot", {"--callgraph=dot"}, ""},
      {"hot", {"--hot"}, ""},
      {"annotate", {"--annotate", ".*"}, ""},
      {"speedscope", {"--speedscope=" + speedscope}, speedscope},
  };
  for (const Output& output : outputs) {
    SCOPED_TRACE(output.name);
    const std::string libipt = Run(capture, "libipt", output.args, output.file);
    const std::string fast = Run(capture, "fast", output.args, output.file);
    EXPECT_GT(libipt.size(), 10u);
    EXPECT_TRUE(libipt == fast) << "outputs differ (" << libipt.size() << " vs "
                                << fast.size() << " bytes); libipt:\n"
                                << libipt.substr(0, 2000) << "\nfast:\n"
                                << fast.substr(0, 2000);
  }
}

TEST(DifferentialTest, CountedRecording) {
  const std::string capture = SourceDir() + "/testdata/decode/counted.hwt";
  ExpectSameOutputs(capture);
  FastShare(capture);
}

TEST(DifferentialTest, DemoRecording) {
  const std::string capture = SourceDir() + "/testdata/demo.hwt";
  ExpectSameOutputs(capture);
  FastShare(capture);
}

// Synthetic traces (thousands of PSB segments, most walked by the fast
// path) are compared event by event in pt_fast_count_test.cc: hwt-report
// cannot open their raw in-memory captures.

}  // namespace
}  // namespace hwt
