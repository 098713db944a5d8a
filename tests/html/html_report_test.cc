// The HTML report's model holds the numbers of the text outputs: written by
// hwt-report --html from a real capture (the demo, and an SPE trace of known
// samples), its parts equal what hwt-report prints for the same capture:
// `--top N --format json`, `--hot --rows N --format json`, `--folded` (the
// tree, unpruned, gives back the folded stacks byte for byte; pruned, every
// node left keeps the total the folded lines give its stack), and the SPE
// report's JSON. The page's own rendering is checked in a browser
// (tests/js/).
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "report/html/html_page.h"

namespace hwt {
namespace {

using testing::BinaryDir;
using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;

std::string Demo() { return SourceDir() + "/testdata/demo.hwt"; }

nlohmann::json ModelOf(const std::string& page_path) {
  auto page = ReadFileToString(page_path);
  EXPECT_TRUE(page.ok()) << page.status();
  const std::string model = report::html::ExtractModel(page.ok() ? *page : "");
  EXPECT_FALSE(model.empty());
  return nlohmann::json::parse(model);
}

std::string RunOk(const std::vector<std::string>& argv) {
  auto result = RunCommand(argv, 300);
  EXPECT_EQ(result.exit_code, 0) << absl::StrJoin(argv, " ") << result.err;
  return result.out;
}

// The model tree's stacks ("a;b;c") with their self and total weights.
struct Stacks {
  std::map<std::string, uint64_t> self, total;
};
Stacks TreeStacks(const nlohmann::json& model) {
  const nlohmann::json& tree = model["tree"];
  const nlohmann::json& names = model["frames"]["name"];
  Stacks out;
  std::vector<std::string> path;
  for (size_t i = 1; i < tree["frame"].size(); ++i) {
    path.resize(tree["depth"][i].get<size_t>() - 1);
    path.push_back(names[tree["frame"][i].get<size_t>()].get<std::string>());
    const std::string stack = absl::StrJoin(path, ";");
    out.self[stack] += tree["self"][i].get<uint64_t>();
    out.total[stack] += tree["total"][i].get<uint64_t>();
  }
  return out;
}

std::string Folded(const Stacks& stacks) {
  std::string out;
  for (const auto& [stack, self] : stacks.self) {
    if (self != 0) absl::StrAppend(&out, stack, " ", self, "\n");
  }
  return out;
}

class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("html-report-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }
  std::string Path(const std::string& name) {
    return dir_->path() + "/" + name;
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(HtmlReportTest, ProfileModelEqualsTheTextOutputs) {
  RunOk({ToolPath("hwt-report"), "--html=" + Path("demo.html"), Demo()});
  const nlohmann::json model = ModelOf(Path("demo.html"));
  const std::string report = ToolPath("hwt-report");
  EXPECT_EQ(model["top"],
            nlohmann::json::parse(
                RunOk({report, "--top", "500", "--format", "json", Demo()})));
  EXPECT_EQ(model["hot"],
            nlohmann::json::parse(RunOk({report, "--hot", "--rows", "50",
                                         "--format", "json", Demo()})));
  EXPECT_GT(model["top"]["by_self"].size(), 20u);
  EXPECT_GT(model["annotations"].size(), 10u);

  // Pruned (the default): what stays has the folded lines' totals.
  const std::string folded = RunOk({report, "--folded", Demo()});
  const Stacks pruned = TreeStacks(model);
  EXPECT_GT(model["tree"]["pruned_nodes"].get<uint64_t>(), 0u);
  std::map<std::string, uint64_t> line_totals;
  for (absl::string_view line :
       absl::StrSplit(folded, '\n', absl::SkipEmpty())) {
    const size_t space = line.rfind(' ');
    const uint64_t weight = std::stoull(std::string(line.substr(space + 1)));
    std::vector<std::string> frames =
        absl::StrSplit(line.substr(0, space), ';');
    std::string prefix;
    for (const std::string& frame : frames) {
      prefix += (prefix.empty() ? "" : ";") + frame;
      line_totals[prefix] += weight;
    }
  }
  for (const auto& [stack, total] : pruned.total) {
    EXPECT_EQ(total, line_totals[stack]) << stack;
  }

  // Unpruned: the folded stacks themselves.
  RunOk({ToolPath("hwt-report"), "--min-width", "0",
         "--html=" + Path("full.html"), Demo()});
  const nlohmann::json full = ModelOf(Path("full.html"));
  EXPECT_EQ(full["tree"]["pruned_nodes"], 0);
  EXPECT_EQ(Folded(TreeStacks(full)), folded);
}

// hwt-batch run --html over the demo, counted.hwt and a broken bundle: the
// batch's page has every summary row (the failed one too, with its error)
// linked to the page of each capture next to its profile; each capture's
// page, made from its saved profile, shows the top table and folded tree
// of the capture itself; the batch page's are the merged profile's.
TEST_F(HtmlReportTest, BatchPagesHoldTheSummaryAndEachCapturesNumbers) {
  namespace fs = std::filesystem;
  const std::string in = Path("in");
  fs::create_directories(in + "/broken.hwt");
  ASSERT_TRUE(WriteFileAtomically(in + "/broken.hwt/manifest.json", "{").ok());
  fs::copy(Demo(), in + "/demo.hwt", fs::copy_options::recursive);
  const std::string counted = SourceDir() + "/testdata/decode/counted.hwt";
  fs::copy(counted, in + "/counted.hwt", fs::copy_options::recursive);
  const std::string out = Path("out");
  auto batch = RunCommand(
      {ToolPath("hwt-batch"), "run", "-q", "--html", "-o", out, in}, 300);
  ASSERT_EQ(batch.exit_code, 1) << batch.err;  // one capture failed

  const nlohmann::json page = ModelOf(out + "/report.html");
  auto summary = ReadFileToString(out + "/summary.json");
  ASSERT_TRUE(summary.ok());
  const nlohmann::json rows = nlohmann::json::parse(*summary)["rows"];
  ASSERT_EQ(page["captures"].size(), 3u);
  ASSERT_EQ(rows.size(), 3u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& shown = page["captures"][i];
    for (const char* key :
         {"name", "status", "instructions", "trace_bytes", "errors"}) {
      EXPECT_EQ(shown[key], rows[i][key]) << key << " of row " << i;
    }
    if (rows[i]["status"] == "failed") {
      EXPECT_FALSE(shown.contains("report"));
      EXPECT_EQ(shown["error"], rows[i]["error"]);
      continue;
    }
    const std::string name = shown["name"];
    EXPECT_EQ(shown["report"], "profiles/" + name + ".report.html");
    const std::string capture_page =
        out + "/" + shown["report"].get<std::string>();
    ASSERT_TRUE(fs::exists(capture_page)) << capture_page;
    const nlohmann::json one = ModelOf(capture_page);
    const std::string capture = in + "/" + name + ".hwt";
    EXPECT_EQ(one["top"], nlohmann::json::parse(
                              RunOk({ToolPath("hwt-report"), "--top", "500",
                                     "--format", "json", capture})))
        << name;
    EXPECT_EQ(one["capture"]["input"], capture);
    EXPECT_EQ(one["profile"]["instructions"], rows[i]["instructions"]);
  }
  EXPECT_EQ(page["top"], nlohmann::json::parse(RunOk(
                             {ToolPath("hwt-report"), "--top", "500",
                              "--format", "json", out + "/merged.hwtprof"})));
  EXPECT_FALSE(page.contains("capture"));  // several: the table says
  // The streams of both captures, named after them.
  EXPECT_EQ(page["decode"]["streams"].size(), 2u);

  // A damaged summary.json is not used (nor a crash): the table is the
  // merged profile's own captures.
  for (const char* damaged :
       {"{\"rows\": [5, {\"name\": 3}]}", "{\"rows\": {}}", "{}", "not json"}) {
    ASSERT_TRUE(WriteFileAtomically(out + "/summary.json", damaged).ok());
    RunOk(
        {ToolPath("hwt-report"), "-q", "--html=" + Path("damaged.html"), out});
    const nlohmann::json shown = ModelOf(Path("damaged.html"));
    ASSERT_EQ(shown["captures"].size(), 2u) << damaged;
    EXPECT_EQ(shown["captures"][0]["status"], "ok") << damaged;
  }
}

// hwt-report --diff BASE NEW --html: the table of changes is `--diff --top`'s
// JSON; unpruned and with --absolute, every node of the tree has the new
// total of its stack and, as its change, the new less the base total that
// the difffolded stacks give that stack.
TEST_F(HtmlReportTest, DiffReportHoldsTheDiffOutputs) {
  const std::string base = Path("base.hwtprof"), now = Path("now.hwtprof");
  const std::string counted = SourceDir() + "/testdata/decode/counted.hwt";
  RunOk({ToolPath("hwt-report"), "-q", "--save", base, counted});
  RunOk({ToolPath("hwt-report"), "-q", "--save", now, counted, Demo()});
  const std::string report = ToolPath("hwt-report");
  RunOk({report, "--diff", base, now, "--absolute", "--min-width", "0",
         "--html=" + Path("diff.html")});
  const nlohmann::json model = ModelOf(Path("diff.html"));
  EXPECT_EQ(model["kind"], "diff");
  EXPECT_EQ(
      model["changes"],
      nlohmann::json::parse(RunOk({report, "--diff", base, now, "--absolute",
                                   "--top", "500", "--format", "json"})));
  // difffolded: "STACK BASE NEW" self weights per stack.
  std::map<std::string, int64_t> base_total, new_total;
  const std::string folded = RunOk({report, "--diff", base, now, "--folded"});
  for (absl::string_view line :
       absl::StrSplit(folded, '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    ASSERT_GE(f.size(), 3u) << line;
    const int64_t b = std::stoll(f[f.size() - 2]), n = std::stoll(f.back());
    std::string stack;
    for (size_t i = 0; i + 2 < f.size(); ++i) {
      stack += (i ? " " : "") + f[i];
    }
    std::string prefix;
    for (absl::string_view frame : absl::StrSplit(stack, ';')) {
      absl::StrAppend(&prefix, prefix.empty() ? "" : ";", frame);
      base_total[prefix] += b;
      new_total[prefix] += n;
    }
  }
  const nlohmann::json& tree = model["tree"];
  const nlohmann::json& names = model["frames"]["name"];
  ASSERT_EQ(tree["delta"].size(), tree["frame"].size());
  // Frames of two images may share a name (both programs have _start): the
  // stacks are compared by name, as the folded lines name them.
  std::map<std::string, int64_t> shown_total, shown_delta;
  std::vector<std::string> path;
  for (size_t i = 1; i < tree["frame"].size(); ++i) {
    path.resize(tree["depth"][i].get<size_t>() - 1);
    path.push_back(names[tree["frame"][i].get<size_t>()]);
    const std::string stack = absl::StrJoin(path, ";");
    shown_total[stack] += tree["total"][i].get<int64_t>();
    shown_delta[stack] += tree["delta"][i].get<int64_t>();
  }
  size_t grew = 0;
  for (const auto& [stack, total] : shown_total) {
    EXPECT_EQ(total, new_total[stack]) << stack;
    EXPECT_EQ(shown_delta[stack], new_total[stack] - base_total[stack])
        << stack;
    grew += shown_delta[stack] > 0;
  }
  EXPECT_GT(shown_total.size(), 100u);
  EXPECT_GT(grew, 100u);  // the demo's stacks are all new
}

// --function and --only-image shape the page's tables as they shape the text
// outputs'.
TEST_F(HtmlReportTest, FiltersApplyAsToTheTextOutputs) {
  const std::string report = ToolPath("hwt-report");
  const std::vector<std::string> filter = {"--function", "^eval_expr$",
                                           "--only-image", "demo"};
  std::vector<std::string> argv = {report, "--html=" + Path("f.html")};
  argv.insert(argv.end(), filter.begin(), filter.end());
  argv.push_back(Demo());
  RunOk(argv);
  const nlohmann::json model = ModelOf(Path("f.html"));
  auto text = [&](std::vector<std::string> flags) {
    std::vector<std::string> command = {report};
    command.insert(command.end(), flags.begin(), flags.end());
    command.insert(command.end(), filter.begin(), filter.end());
    command.push_back(Demo());
    return nlohmann::json::parse(RunOk(command));
  };
  const nlohmann::json top = text({"--top", "500", "--format", "json"});
  EXPECT_EQ(model["top"], top);
  EXPECT_EQ(model["hot"], text({"--hot", "--rows", "50", "--format", "json"}));
  // The filter did something: fewer functions than the whole demo.
  const nlohmann::json whole = ModelOf([&] {
    RunOk({report, "--html=" + Path("whole.html"), Demo()});
    return Path("whole.html");
  }());
  EXPECT_LT(top["by_self"].size(), whole["top"]["by_self"].size());
  EXPECT_FALSE(model["profile"]["filters"].empty());
}

// A page that cannot be written (its path is a directory): exit 3, the
// reason, and nothing left behind (no temporary file beside it).
TEST_F(HtmlReportTest, UnwritableOutputExitsThreeAndLeavesNothing) {
  const std::string out = Path("out");
  std::filesystem::create_directories(out + "/r.html");
  auto result = RunCommand(
      {ToolPath("hwt-report"), "--html=" + out + "/r.html", Demo()}, 300);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_THAT(result.err, ::testing::HasSubstr("r.html"));
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    left.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(left, ::testing::ElementsAre("r.html"));
  EXPECT_TRUE(std::filesystem::is_directory(out + "/r.html"));
}

TEST_F(HtmlReportTest, AnnotationsAreTheAnnotateRows) {
  RunOk({ToolPath("hwt-report"), "--html=" + Path("demo.html"), Demo()});
  const nlohmann::json model = ModelOf(Path("demo.html"));
  const nlohmann::json& first = model["annotations"][0];
  const std::string name = first["name"];
  const std::string text =
      RunOk({ToolPath("hwt-report"), "--annotate", name, Demo()});
  // Every instruction row of --annotate's text is one row of the model,
  // with the same count and the same disassembly.
  size_t row = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<std::string> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    size_t at = 0;
    while (at < fields.size() && fields[at].back() != ':') ++at;
    if (at == fields.size() || at == 0 || fields[0] == "count") continue;
    ASSERT_LT(row, first["rows"].size()) << line;
    const nlohmann::json& r = first["rows"][row++];
    const std::string address = fields[at].substr(0, fields[at].size() - 1);
    EXPECT_EQ(r[0], "0x" + address) << line;
    const std::string count = absl::StrReplaceAll(fields[0], {{",", ""}});
    EXPECT_EQ(r[1].get<uint64_t>(), count == "." ? 0 : std::stoull(count))
        << line;
    EXPECT_NE(line.find(r[2].get<std::string>()), std::string::npos) << line;
  }
  EXPECT_EQ(row, first["rows"].size());
}

// An SPE capture's page is the profile report of its samples, with the
// SPE tables: its top table and tree are what --top and --folded print for
// the capture, its SPE section what --spe --format json prints.
TEST_F(HtmlReportTest, SpeModelEqualsTheSpeReport) {
  const std::string trace = Path("sample.spe");
  RunOk({BinaryDir() + "/tests/html/hwt-html-spe-sample", trace});
  const std::string image = BinaryDir() + "/testdata/programs/counted_static@0";
  const std::string report = ToolPath("hwt-report");
  const std::vector<std::string> input = {"--backend", "spe", "--image", image,
                                          trace};
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), report);
    args.insert(args.end(), input.begin(), input.end());
    return RunOk(args);
  };
  run({"--min-width", "0", "--html=" + Path("spe.html")});
  const nlohmann::json model = ModelOf(Path("spe.html"));
  EXPECT_EQ(model["kind"], "profile");
  EXPECT_EQ(model["profile"]["unit"], "samples");
  EXPECT_EQ(model["profile"]["instructions"], 21);  // the samples
  EXPECT_EQ(model["spe"], nlohmann::json::parse(run(
                              {"--spe", "--rows", "50", "--format", "json"})));
  EXPECT_EQ(model["spe"]["summary"]["samples"], 21);
  EXPECT_EQ(model["top"],
            nlohmann::json::parse(run({"--top", "500", "--format", "json"})));
  // The histogram holds every sample with a latency once.
  uint64_t in_buckets = 0;
  for (const auto& bucket : model["latency_histograms"]["total"]) {
    in_buckets += bucket["samples"].get<uint64_t>();
  }
  EXPECT_EQ(in_buckets, model["spe"]["latency"]["total"]["count"]);
  EXPECT_EQ(Folded(TreeStacks(model)), run({"--folded"}));
}

}  // namespace
}  // namespace hwt
