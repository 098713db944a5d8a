// The "add an output" recipe of docs/architecture.md, followed from a test
// folder: a toy renderer registered here, with nothing changed anywhere
// else, is found by the driver, gets what it says it needs from the
// pipeline, and renders a real capture (testdata/decode/counted.hwt) into
// the file it is given. What it writes, each function's own and total
// instructions, is checked against the counts worked out by hand for the
// recorded program (testdata/programs/counted.functions).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/tree_functions.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "report/driver/report_run.h"
#include "report/outputs/output_registry.h"
#include "report/outputs/report_model.h"

namespace hwt::report {
namespace {

// "NAME SELF TOTAL" per function of the tree, by name; and how many hot
// paths the profile has (only there when an output needs them).
class ToyOutput : public Renderer {
 public:
  OutputNeeds Needs(const OutputRequest&, const ReportFlags&) const override {
    return {.hot_paths = true};
  }

  absl::Status Render(ReportModel& model, const OutputRequest& request,
                      OutputSink& sink) override {
    std::vector<std::string> lines;
    for (const analysis::FunctionStats& f :
         analysis::FunctionsOfTree(model.tree).functions) {
      lines.push_back(absl::StrCat(model.names().Name(f.frame), " ",
                                   f.self_insns, " ", f.total_insns, "\n"));
    }
    std::sort(lines.begin(), lines.end());
    std::string text;
    for (const std::string& line : lines) text += line;
    paths = model.profile->paths.size();
    sink.Add({"toy functions", request.value, false, "toy.txt", text});
    return absl::OkStatus();
  }

  static inline size_t paths = 0;
};

HWT_REGISTER_OUTPUT("toy", ToyOutput);

TEST(ToyOutputTest, RendersACaptureThroughTheDriver) {
  auto dir = TempDir::Create("toy-output-test");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string capture =
      hwt::testing::SourceDir() + "/testdata/decode/counted.hwt";
  const std::string file = dir->path() + "/functions.txt";
  ReportFlags flags;
  flags.inputs = {capture};
  flags.outputs["toy"] = file;
  flags.quiet = true;
  ASSERT_EQ(RunReport(flags, ReportEnvironment()), 0);
  auto written = ReadFileToString(file);
  ASSERT_TRUE(written.ok()) << written.status();
  auto truth = ReadFileToString(hwt::testing::SourceDir() +
                                "/testdata/programs/counted.functions");
  ASSERT_TRUE(truth.ok()) << truth.status();
  EXPECT_EQ(*written, *truth);
  // It said it needs the hot paths, and the pipeline counted them.
  EXPECT_GT(ToyOutput::paths, 0u);
}

TEST(ToyOutputTest, IsRegisteredBesideTheToolsOutputs) {
  const std::vector<std::string> names = RegisteredOutputs();
  EXPECT_NE(std::find(names.begin(), names.end(), "toy"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "folded"), names.end());
  EXPECT_NE(FindOutput("toy"), nullptr);
}

TEST(ToyOutputTest, AnUnknownOutputIsAUsageError) {
  ReportFlags flags;
  flags.inputs = {hwt::testing::SourceDir() + "/testdata/decode/counted.hwt"};
  flags.outputs["no-such-output"] = "-";
  flags.quiet = true;
  EXPECT_EQ(RunReport(flags, ReportEnvironment()), 2);
}

}  // namespace
}  // namespace hwt::report
