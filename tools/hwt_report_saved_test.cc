// hwt-report on saved profiles (.hwtprof), as a user would run it: a profile
// saved from testdata/decode/counted.hwt reports exactly what the capture
// reports (its hand-checked goldens, testdata/decode/counted.report.*) on a
// machine that no longer has the capture or its images; several inputs
// (captures and profiles mixed) are merged by adding their counts; --diff
// compares two of them; a damaged profile is refused with its name.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;

std::string Capture() { return SourceDir() + "/testdata/decode/counted.hwt"; }

std::string Golden(const std::string& name) {
  auto text = ReadFileToString(SourceDir() + "/testdata/decode/" + name);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

testing::CommandResult Report(std::vector<std::string> args) {
  std::vector<std::string> argv = {ToolPath("hwt-report")};
  for (auto& arg : args) argv.push_back(std::move(arg));
  return RunCommand(argv);
}

// A scratch directory of the test's own, removed afterwards.
class SavedReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto temp = TempDir::Create("hwt_report_saved");
    ASSERT_TRUE(temp.ok()) << temp.status();
    temp_.emplace(std::move(*temp));
    dir_ = temp_->path();
  }

  // A copy of counted.hwt, so that the test can take it away.
  std::string CopyCapture(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::copy(Capture(), to, fs::copy_options::recursive);
    return to.string();
  }

  // counted.hwt saved as NAME.hwtprof, the capture (and with it every image)
  // removed afterwards.
  std::string SaveAndForget(const std::string& name) {
    const std::string bundle = CopyCapture(name + ".hwt");
    const std::string profile = (dir_ / (name + ".hwtprof")).string();
    auto saved = Report({"--save", profile, bundle});
    EXPECT_EQ(saved.exit_code, 0) << saved.err;
    fs::remove_all(bundle);
    return profile;
  }

  std::optional<TempDir> temp_;
  fs::path dir_;
};

TEST_F(SavedReportTest, ReportsWhatTheCaptureReportsWithoutItsImages) {
  const std::string profile = SaveAndForget("counted");
  struct Case {
    std::vector<std::string> args;
    std::string golden;
  };
  const std::vector<Case> cases = {
      {{"--folded"}, "counted.report.folded"},
      {{"--callgraph"}, "counted.report.callgraph.txt"},
      {{"--callgraph=dot"}, "counted.report.callgraph.dot"},
      {{"--top", "10"}, "counted.report.top.txt"},
      {{"--top", "10", "--format", "json"}, "counted.report.top.json"},
      {{"--hot", "--rows", "0"}, "counted.report.hot.txt"},
      {{"--hot", "--rows", "0", "--format", "json"}, "counted.report.hot.json"},
      {{"--folded", "--function", "^outer$"}, "counted.report.outer.folded"},
      {{"--flame"}, "counted.report.flame.svg"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back(profile);
    auto result = Report(args);
    ASSERT_EQ(result.exit_code, 0) << c.golden << ": " << result.err;
    EXPECT_EQ(result.err, "") << c.golden;
    // The flame graph's subtitle names its input.
    const std::string out =
        absl::StrReplaceAll(result.out, {{"counted.hwtprof:", "counted.hwt:"}});
    EXPECT_EQ(out, Golden(c.golden)) << c.golden;
  }
}

// --annotate disassembles whole functions, which a profile does not keep: it
// needs the image files. With none at the recorded path (counted.hwt was
// recorded from a scratch folder that no machine keeps) it says so; with the
// program under --sysroot at its recorded path it reports what the capture
// reports.
TEST_F(SavedReportTest, AnnotateReadsTheImagesFromTheSysroot) {
  const std::string profile = SaveAndForget("counted");
  const std::vector<std::string> annotate = {"--annotate", "^(rec|special)$"};
  std::vector<std::string> args = annotate;
  args.push_back(profile);
  auto missing = Report(args);
  EXPECT_EQ(missing.exit_code, 2) << missing.out;
  EXPECT_THAT(missing.err, HasSubstr("--sysroot names where they are"));
  EXPECT_EQ(missing.out, "");

  // The recorded path, from the capture's manifest.
  const std::string recorded = "/tmp/hwt-testdata/counted_static";
  ASSERT_FALSE(fs::exists(recorded))
      << "this test needs " << recorded << " absent, as on any fresh machine";
  const fs::path sysroot = dir_ / "sysroot";
  fs::create_directories(sysroot / "tmp/hwt-testdata");
  fs::copy(Capture() + "/images/2cf5e3f216bbdb79dee443d1f0100eaa560eac24",
           sysroot / "tmp/hwt-testdata/counted_static");
  args = {"--sysroot", sysroot.string()};
  args.insert(args.end(), annotate.begin(), annotate.end());
  args.push_back(profile);
  auto found = Report(args);
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.err, "");
  EXPECT_EQ(found.out, Golden("counted.report.annotate.txt"));
}

// Every "stack count" line of counted.report.folded with its count times N.
std::string FoldedTimes(int n) {
  std::string out;
  std::string golden = Golden("counted.report.folded");
  size_t start = 0;
  while (start < golden.size()) {
    size_t end = golden.find('\n', start);
    std::string line = golden.substr(start, end - start);
    size_t space = line.rfind(' ');
    out += line.substr(0, space + 1) +
           std::to_string(n * std::stoll(line.substr(space + 1))) + "\n";
    start = end + 1;
  }
  return out;
}

TEST_F(SavedReportTest, InputsAreMergedByAddingTheirCounts) {
  const std::string a = CopyCapture("a.hwt");
  const std::string b = CopyCapture("b.hwt");
  const std::string saved_ab = (dir_ / "ab.hwtprof").string();
  auto two = Report({"--folded", "--save", saved_ab, a, b});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.out, FoldedTimes(2));

  // A profile and a capture mixed; three inputs; the merge of merges.
  auto mixed = Report({"--folded", saved_ab, a});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_EQ(mixed.out, FoldedTimes(3));
  const std::string saved_abc = (dir_ / "abc.hwtprof").string();
  ASSERT_EQ(Report({"--save", saved_abc, saved_ab, a}).exit_code, 0);
  auto three = Report({"--folded", saved_abc});
  EXPECT_EQ(three.out, FoldedTimes(3));
  auto top = Report({"--top", "1", "--format", "json", saved_abc});
  EXPECT_THAT(top.out, HasSubstr("\"_start"));

  // The same input twice would count it twice: refused.
  auto twice = Report({"--folded", a, a});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.err, HasSubstr("given twice"));
}

TEST_F(SavedReportTest, DiffOfAProfileAndItsDoubleChangesOnlyAbsoluteCounts) {
  const std::string one = SaveAndForget("one");
  const std::string a = CopyCapture("a.hwt");
  const std::string two = (dir_ / "two.hwtprof").string();
  ASSERT_EQ(Report({"--save", two, one, a}).exit_code, 0);

  auto shares = Report({"--diff", one, two, "--top", "5"});
  ASSERT_EQ(shares.exit_code, 0) << shares.err;
  EXPECT_THAT(shares.out, HasSubstr("no function changed"));

  // Counts from counted.S's comments: _start 24, leaf 18, special 15, ...
  auto absolute = Report({"--diff", one, two, "--top", "2", "--absolute"});
  ASSERT_EQ(absolute.exit_code, 0) << absolute.err;
  EXPECT_EQ(absolute.out,
            "base 79 instructions, new 158 instructions (absolute counts)\n"
            "change  base  new  function\n"
            "   +24    24   48  _start (counted_static)\n"
            "   +18    18   36  leaf (counted_static)\n");
}

TEST_F(SavedReportTest, DamagedProfilesAreRefusedWithTheirName) {
  const std::string profile = SaveAndForget("counted");
  auto bytes = ReadFileToString(profile);
  ASSERT_TRUE(bytes.ok());
  const std::string truncated = (dir_ / "truncated.hwtprof").string();
  ASSERT_TRUE(
      WriteFileAtomically(truncated, bytes->substr(0, bytes->size() / 2)).ok());
  auto result = Report({"--folded", truncated});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("truncated.hwtprof"));
  EXPECT_EQ(result.out, "");

  const std::string garbage = (dir_ / "garbage.hwtprof").string();
  ASSERT_TRUE(WriteFileAtomically(garbage, "not a profile at all\n").ok());
  result = Report({"--top", "5", garbage});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("garbage.hwtprof"));

  // Options that select trace bytes cannot apply to a saved profile.
  result = Report({"--folded", "--range", "0:100", profile});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("saved profile"));
}

}  // namespace
}  // namespace hwt
