// hwt-import: the bundle it writes from a perf.data file reads like the
// perf.data file itself (the same decode, the same packets, the same import
// problems and exit status), and every bad input or output gets a clear
// error and the documented exit status.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using ::hwt::testing::CommandResult;
using ::hwt::testing::RunCommand;
using ::hwt::testing::ToolPath;
using ::testing::HasSubstr;

// `text` without the lines that name `input` (the listing's header).
std::string WithoutLinesNaming(const std::string& text,
                               const std::string& input) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.find(input) != absl::string_view::npos) continue;
    out.append(line.data(), line.size());
    out += '\n';
  }
  return out;
}

// hwt-decode ARGS on the perf.data file and on `bundle`: equal output and
// exit status.
void ExpectDecodesAlike(const std::vector<std::string>& args,
                        const std::string& perf_data,
                        const std::vector<std::string>& perf_args,
                        const std::string& bundle) {
  std::vector<std::string> direct = {ToolPath("hwt-decode")};
  direct.insert(direct.end(), args.begin(), args.end());
  std::vector<std::string> from_bundle = direct;
  direct.insert(direct.end(), perf_args.begin(), perf_args.end());
  direct.push_back(perf_data);
  from_bundle.push_back(bundle);
  CommandResult a = RunCommand(direct);
  CommandResult b = RunCommand(from_bundle);
  EXPECT_EQ(a.exit_code, b.exit_code) << a.err << "\n---\n" << b.err;
  EXPECT_GT(a.out.size(), 100u);
  EXPECT_EQ(WithoutLinesNaming(a.out, perf_data),
            WithoutLinesNaming(b.out, bundle));
}

TEST(HwtImportTest, EtmBundleDecodesLikeThePerfData) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/simpleperf-etm/";
  auto out = TempDir::Create("hwt-import-test");
  ASSERT_TRUE(out.ok());
  const std::string image = dir + "etm_test_loop";
  for (const std::string name : {"etm.hwt", "etm.tar.zst"}) {
    const std::string bundle = out->path() + "/" + name;
    CommandResult import =
        RunCommand({ToolPath("hwt-import"), dir + "perf_etm.data", "--image",
                    image, "-o", bundle});
    ASSERT_EQ(import.exit_code, 0) << import.err;
    EXPECT_THAT(import.err, HasSubstr("1 image copied"));
    // The bundle carries etm_test_loop: no --image needed to read it.
    ExpectDecodesAlike({"--stats", "-q"}, dir + "perf_etm.data",
                       {"--image", image}, bundle);
    ExpectDecodesAlike({"--format", "json", "-q"}, dir + "perf_etm.data",
                       {"--image", image}, bundle);
  }
}

TEST(HwtImportTest, PtBundlesListThePerfDataPackets) {
  HWT_REQUIRE_CORPUS(corpus);
  auto out = TempDir::Create("hwt-import-test");
  ASSERT_TRUE(out.ok());
  for (const std::string name :
       {"perf.data.intel_pt-4.14", "perf.data.piped.intel_pt-4.14"}) {
    const std::string input = corpus + "/quipper-intel-pt/" + name;
    const std::string bundle = out->path() + "/" + name + ".hwt";
    CommandResult import =
        RunCommand({ToolPath("hwt-import"), "-q", input, "-o", bundle});
    ASSERT_EQ(import.exit_code, 0) << import.err;
    ExpectDecodesAlike({"--packets", "-q"}, input, {}, bundle);
  }
}

TEST(HwtImportTest, ImportProblemsTravelWithTheBundle) {
  HWT_REQUIRE_CORPUS(corpus);
  auto bytes =
      ReadFileToString(corpus + "/quipper-intel-pt/perf.data.intel_pt-4.14");
  ASSERT_TRUE(bytes.ok());
  auto out = TempDir::Create("hwt-import-test");
  ASSERT_TRUE(out.ok());
  // Cut inside the data section: the records after the cut are lost.
  const std::string cut = out->path() + "/cut.data";
  ASSERT_TRUE(
      WriteFileAtomically(cut, bytes->substr(0, bytes->size() / 2)).ok());
  const std::string bundle = out->path() + "/cut.hwt";
  CommandResult import =
      RunCommand({ToolPath("hwt-import"), cut, "-o", bundle});
  ASSERT_EQ(import.exit_code, 1) << import.err;
  EXPECT_THAT(import.err, HasSubstr(cut));
  CommandResult direct = RunCommand({ToolPath("hwt-decode"), "--stats", cut});
  CommandResult from_bundle =
      RunCommand({ToolPath("hwt-decode"), "--stats", bundle});
  EXPECT_EQ(direct.exit_code, 1);
  EXPECT_EQ(from_bundle.exit_code, 1);
  // The same problem, naming the same perf.data offset.
  std::vector<std::string> problems;
  for (absl::string_view line : absl::StrSplit(direct.err, '\n')) {
    if (line.find(cut) != absl::string_view::npos) {
      problems.emplace_back(line);
      EXPECT_THAT(from_bundle.err, HasSubstr(std::string(line)));
    }
  }
  EXPECT_FALSE(problems.empty()) << direct.err;
}

TEST(HwtImportTest, BadInputsAndOutputsGetClearErrors) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/simpleperf-etm/";
  auto out = TempDir::Create("hwt-import-test");
  ASSERT_TRUE(out.ok());
  const std::string tool = ToolPath("hwt-import");
  CommandResult help = RunCommand({tool, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Exit status"));
  EXPECT_EQ(RunCommand({tool, dir + "perf_etm.data"}).exit_code, 2);  // no -o
  CommandResult missing =
      RunCommand({tool, out->path() + "/none.data", "-o", out->path() + "/x"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("none.data"));
  // Every AUX area's data missing: nothing to write, said so.
  const std::string lost = out->path() + "/lost.hwt";
  CommandResult no_data =
      RunCommand({tool, dir + "perf_with_missing_aux_data.data", "-o", lost});
  EXPECT_EQ(no_data.exit_code, 2);
  EXPECT_THAT(no_data.err, HasSubstr("bytes of trace are lost"));
  EXPECT_THAT(no_data.err, HasSubstr("no trace data"));
  EXPECT_FALSE(ReadFileToString(lost + "/manifest.json").ok());
  // An existing output is kept unless --force.
  const std::string bundle = out->path() + "/etm.hwt";
  ASSERT_EQ(
      RunCommand({tool, "-q", dir + "perf_etm.data", "-o", bundle}).exit_code,
      0);
  CommandResult exists =
      RunCommand({tool, dir + "perf_etm.data", "-o", bundle});
  EXPECT_EQ(exists.exit_code, 2);
  EXPECT_THAT(exists.err, HasSubstr("already exists"));
  EXPECT_EQ(
      RunCommand({tool, "-q", "--force", dir + "perf_etm.data", "-o", bundle})
          .exit_code,
      0);
  // Unwritable: the parent is a regular file.
  const std::string file = out->path() + "/file";
  ASSERT_TRUE(WriteFileAtomically(file, "x").ok());
  CommandResult unwritable =
      RunCommand({tool, dir + "perf_etm.data", "-o", file + "/x.hwt"});
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.err;
  EXPECT_THAT(unwritable.err, HasSubstr(file));
}

}  // namespace
}  // namespace hwt
