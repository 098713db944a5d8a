// hwt-report's export flags as a user meets them (the formats' contents are
// checked by their consumers in export_consumers_test.cc): where each file
// goes (=FILE, -o, NAME.SUFFIX on a terminal), and that bad usage exits 2
// and a failed write exits 3, leaving no file behind.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;

std::string Capture() { return SourceDir() + "/testdata/decode/counted.hwt"; }

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

std::string ReadOrEmpty(const std::string& path) {
  auto text = ReadFileToString(path);
  return text.ok() ? *text : "";
}

int FilesIn(const std::string& dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(HwtReportExportsTest, EachFlagWritesItsFileAndOnlyThat) {
  auto dir = TempDir::Create("hwt-report-exports");
  ASSERT_TRUE(dir.ok());
  const std::string d = dir->path() + "/";
  auto all =
      RunCommand({ToolPath("hwt-report"), "--pprof=" + d + "p.pb.gz",
                  "--bolt=" + d + "b.pa", "--autofdo=" + d + "a.txt",
                  "--profgen=" + d + "g.txt", "--llvm-sample=" + d + "s.prof",
                  "--chrome-trace=" + d + "t.json", Capture()});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, "");  // no flame graph: an export is an output
  for (const char* f :
       {"p.pb.gz", "b.pa", "a.txt", "g.txt", "s.prof", "t.json"}) {
    EXPECT_TRUE(Exists(d + f)) << f;
    EXPECT_THAT(all.err, HasSubstr("wrote " + d + f)) << f;
  }
  EXPECT_EQ(ReadOrEmpty(d + "p.pb.gz").substr(0, 2), "\x1f\x8b");  // gzip
  EXPECT_THAT(ReadOrEmpty(d + "b.pa"), HasSubstr("\nF "));
  EXPECT_THAT(ReadOrEmpty(d + "t.json"), HasSubstr("\"ph\":\"X\""));
  // counted.hwt's program has no DWARF: its LLVM sample profile is empty.
  EXPECT_THAT(ReadOrEmpty(d + "a.txt"), HasSubstr("->"));
  EXPECT_EQ(FilesIn(d), 6);  // no temporary files left

  // -o takes the single output; stdout when there is no terminal.
  auto to_o = RunCommand(
      {ToolPath("hwt-report"), "--bolt", "-o", d + "o.pa", Capture()});
  ASSERT_EQ(to_o.exit_code, 0) << to_o.err;
  EXPECT_EQ(ReadOrEmpty(d + "o.pa"), ReadOrEmpty(d + "b.pa"));
  auto piped = RunCommand({ToolPath("hwt-report"), "--bolt", Capture()});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, ReadOrEmpty(d + "b.pa"));
}

// On a terminal an export without =FILE goes to NAME.SUFFIX in the current
// directory, as the flame graph does (util-linux `script` gives the tool a
// terminal).
TEST(HwtReportExportsTest, OnATerminalTheDefaultFileNamesAreNameDotSuffix) {
  HWT_REQUIRE_TOOL("script");
  auto dir = TempDir::Create("hwt-report-exports");
  ASSERT_TRUE(dir.ok());
  const std::string command = "cd '" + dir->path() + "' && '" +
                              ToolPath("hwt-report") +
                              "' --pprof --bolt --autofdo --profgen "
                              "--llvm-sample --chrome-trace '" +
                              Capture() + "'";
  auto r = RunCommand({"script", "-qec", command, "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* f :
       {"counted.pb.gz", "counted.bolt.pa", "counted.afdo.txt",
        "counted.profgen.txt", "counted.prof", "counted.trace.json"}) {
    EXPECT_TRUE(Exists(dir->path() + "/" + f)) << f;
  }
  EXPECT_EQ(FilesIn(dir->path()), 6);
}

TEST(HwtReportExportsTest, BadUsageExitsTwoAndFailedWriteThreeNoFile) {
  auto dir = TempDir::Create("hwt-report-exports");
  ASSERT_TRUE(dir.ok());
  const std::string out = dir->path() + "/out";
  auto image = RunCommand({ToolPath("hwt-report"), "--bolt=" + out,
                           "--only-image", "nosuch.so", Capture()});
  EXPECT_EQ(image.exit_code, 2) << image.err;
  EXPECT_THAT(image.err, HasSubstr("nosuch.so"));
  auto two = RunCommand(
      {ToolPath("hwt-report"), "--pprof", "--bolt", "-o", out, Capture()});
  EXPECT_EQ(two.exit_code, 2) << two.err;
  EXPECT_THAT(two.err, HasSubstr("-o FILE with several outputs"));
  EXPECT_EQ(FilesIn(dir->path()), 0);
  auto unwritable =
      RunCommand({ToolPath("hwt-report"),
                  "--pprof=" + dir->path() + "/no/such/dir/x", Capture()});
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.err;
  EXPECT_THAT(unwritable.err, HasSubstr("no/such/dir/x"));
  EXPECT_EQ(FilesIn(dir->path()), 0);

  auto help = RunCommand({ToolPath("hwt-report"), "--help"});
  for (const char* flag : {"--pprof", "--bolt", "--autofdo", "--profgen",
                           "--llvm-sample", "--chrome-trace"}) {
    EXPECT_THAT(help.out, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace hwt
