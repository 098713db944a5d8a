// Runs hwt-report as a user would on the committed capture
// testdata/decode/counted.hwt (a recording of testdata/programs/counted.S,
// whose 79 instructions are counted by hand in its comments). Every output
// format has a golden file beside the capture (testdata/decode/
// counted.report.*, checked by hand against counted.S); on top of that the
// outputs are checked against the recorded ground truth (counted.folded,
// counted.functions, counted.edges) and against the rules of their formats:
// the SVG parses as XML and its frame widths nest, the speedscope file is
// balanced, Graphviz accepts the DOT file, and a headless Chromium renders
// the flame graph and highlights a search. HWT_UPDATE_GOLDEN=1 rewrites the
// golden files.
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "decoders/spe/testing/counted_samples.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hwt {
namespace {

using ::testing::HasSubstr;
using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;

std::string Capture() { return SourceDir() + "/testdata/decode/counted.hwt"; }

std::string Golden(const std::string& name) {
  return SourceDir() + "/testdata/decode/" + name;
}

std::string ReadOrDie(const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

void ExpectGolden(const std::string& output, const std::string& name) {
  std::string text = absl::StrReplaceAll(output, {{Capture(), "INPUT"}});
  testing::ExpectMatchesGolden(text, Golden(name));
}

testing::CommandResult Report(std::vector<std::string> args) {
  std::vector<std::string> argv = {ToolPath("hwt-report")};
  for (auto& arg : args) argv.push_back(std::move(arg));
  argv.push_back(Capture());
  return RunCommand(argv);
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The counted_static image inside the bundle, for the raw-file form.
std::string ProgramImage() {
  auto json = nlohmann::json::parse(ReadOrDie(Capture() + "/manifest.json"));
  for (const auto& entry : json["images"]) {
    if (entry["original_path"].get<std::string>().find("counted_static") !=
        std::string::npos) {
      return Capture() + "/" + entry["file"].get<std::string>();
    }
  }
  return "";
}

// "name count" lines of a folded file, or "a b count" lines of the
// counted.edges/functions files, as a map from everything before the last
// field(s) to the rest.
std::map<std::string, std::string> Lines(const std::string& text,
                                         int value_fields) {
  std::map<std::string, std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, ' ');
    std::string key, value;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string& part = i + value_fields < fields.size() ? key : value;
      if (!part.empty()) part += ' ';
      part += fields[i];
    }
    out[key] = value;
  }
  return out;
}

class HwtReportGoldenTest
    : public ::testing::TestWithParam<
          std::pair<std::vector<std::string>, std::string>> {};

TEST_P(HwtReportGoldenTest, MatchesGolden) {
  auto result = Report(GetParam().first);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  ExpectGolden(result.out, GetParam().second);
}

using Args = std::vector<std::string>;
INSTANTIATE_TEST_SUITE_P(
    Formats, HwtReportGoldenTest,
    ::testing::Values(
        std::make_pair(Args{"--folded"}, "counted.report.folded"),
        std::make_pair(Args{"--flame"}, "counted.report.flame.svg"),
        std::make_pair(Args{"--flame", "--icicle", "--title", "Counted"},
                       "counted.report.icicle.svg"),
        std::make_pair(Args{"--speedscope"}, "counted.report.speedscope.json"),
        std::make_pair(Args{"--callgraph"}, "counted.report.callgraph.txt"),
        std::make_pair(Args{"--callgraph=dot"}, "counted.report.callgraph.dot"),
        std::make_pair(Args{"--top", "10"}, "counted.report.top.txt"),
        std::make_pair(Args{"--top", "10", "--format", "json"},
                       "counted.report.top.json"),
        std::make_pair(Args{"--hot", "--rows", "0"}, "counted.report.hot.txt"),
        std::make_pair(Args{"--hot", "--rows", "0", "--format", "json"},
                       "counted.report.hot.json"),
        std::make_pair(Args{"--annotate", "^(rec|special)$"},
                       "counted.report.annotate.txt"),
        std::make_pair(Args{"--folded", "--function", "^outer$"},
                       "counted.report.outer.folded")),
    [](const auto& info) {
      std::string name = info.param.second;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// The folded stacks are the recorded execution's, exactly: counted.folded
// was derived by hand from counted.S's comments.
TEST(HwtReportTest, FoldedEqualsHandCountedStacks) {
  const std::string truth =
      ReadOrDie(SourceDir() + "/testdata/programs/counted.folded");
  for (const Args& args : {Args{"--folded"}, Args{"--folded", "--no-inline"},
                           Args{"--folded", "--jobs", "2"}}) {
    auto result = Report(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(Lines(result.out, 1), Lines(truth, 1)) << args.back();
  }
}

uint64_t FoldedTotal(const std::string& folded) {
  uint64_t total = 0;
  for (const auto& [stack, count] : Lines(folded, 1)) {
    uint64_t n = 0;
    EXPECT_TRUE(absl::SimpleAtoi(count, &n)) << stack;
    total += n;
  }
  return total;
}

// --range and --time keep part of the execution: split anywhere, the two
// parts hold every one of the 79 instructions exactly once. The trace's
// packets (counted.packets.txt) run from 0x27 to 0x3f, its TSC starts at
// 0x10000000 and advances 79 ticks. --thread 0 is the whole (one-stream)
// capture.
TEST(HwtReportTest, RangeAndTimeFiltersPartitionTheExecution) {
  for (const char* at : {"0x27", "0x30", "0x36", "0x3a", "0x40"}) {
    auto before = Report({"--folded", "--range", std::string(":") + at});
    auto after = Report({"--folded", "--range", std::string(at) + ":"});
    ASSERT_EQ(before.exit_code, 0) << before.err;
    ASSERT_EQ(after.exit_code, 0) << after.err;
    EXPECT_EQ(FoldedTotal(before.out) + FoldedTotal(after.out), 79u) << at;
  }
  // 28: the blocks hwt-decode --blocks lists at offsets 0x36 (leaf2's 2
  // instructions) and 0x38 (26, up to rec's second jz), where libipt places
  // the blocks the TNT packets at 0x36 and 0x38 resolve (it fetches a packet
  // ahead). hwt_report_oracle_test derives every such range from the blocks
  // listing, whose blocks it checks against counted.S's execution.
  EXPECT_EQ(FoldedTotal(Report({"--folded", "--range", "0x30:0x3a"}).out), 28u);
  for (const char* at :
       {"0x10000000", "0x10000010", "0x10000040", "0x10000100"}) {
    auto before = Report({"--folded", "--time", std::string(":") + at});
    auto after = Report({"--folded", "--time", std::string(at) + ":"});
    ASSERT_EQ(before.exit_code, 0) << before.err;
    EXPECT_EQ(FoldedTotal(before.out) + FoldedTotal(after.out), 79u) << at;
  }
  EXPECT_EQ(FoldedTotal(Report({"--folded", "--time", ":0x10000100"}).out),
            79u);
  EXPECT_EQ(Report({"--folded", "--thread", "0"}).out,
            Report({"--folded"}).out);
}

// The end-to-end tests' form: a raw trace with its CPU and image.
TEST(HwtReportTest, RawTraceWithCpuAndImage) {
  const std::string image = ProgramImage();
  ASSERT_FALSE(image.empty());
  auto result =
      RunCommand({ToolPath("hwt-report"), "--folded", "--no-inline", "--cpu",
                  "6/85/4", "--image", image, Capture() + "/buffers/0.bin"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, ReadOrDie(Golden("counted.report.folded")));
}

// Self, total and calls per function equal counted.functions (hand
// counted: "name self total").
TEST(HwtReportTest, TopTableEqualsHandCountedFunctions) {
  auto result = Report({"--top", "100", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["total"], 79);
  std::map<std::string, std::string> functions;
  for (const auto& row : json["by_self"]) {
    functions[row["function"]] = std::to_string(row["self"].get<int>()) + " " +
                                 std::to_string(row["total"].get<int>());
  }
  EXPECT_EQ(functions, Lines(ReadOrDie(SourceDir() +
                                       "/testdata/programs/counted.functions"),
                             2));
}

// The DOT call graph has exactly counted.edges' call edges and counts, and
// Graphviz lays it out.
TEST(HwtReportTest, CallGraphDotHasTheCallEdgesAndGraphvizAcceptsIt) {
  auto result = Report({"--callgraph=dot"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, std::string> names;  // n0 -> _start
  std::map<std::string, std::string> edges;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t label = line.find(" [label=\"");
    if (label == std::string::npos || line.rfind("  n", 0) != 0) continue;
    const std::string head = line.substr(2, label - 2);
    std::string text = line.substr(label + 9);
    text = text.substr(0, text.find_first_of("\\\""));
    const size_t arrow = head.find(" -> ");
    if (arrow == std::string::npos) {
      names[head] = text;
    } else {
      const std::string count = text.substr(0, text.find(' '));
      edges[names[head.substr(0, arrow)] + " " +
            names[head.substr(arrow + 4)]] = count;
    }
  }
  EXPECT_EQ(
      edges,
      Lines(ReadOrDie(SourceDir() + "/testdata/programs/counted.edges"), 1));

  HWT_REQUIRE_TOOL("dot");
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  const std::string dot = dir->path() + "/g.dot";
  ASSERT_TRUE(WriteFileAtomically(dot, result.out).ok());
  auto laid_out =
      RunCommand({"dot", "-Tsvg", "-o", dir->path() + "/g.svg", dot});
  EXPECT_EQ(laid_out.exit_code, 0) << laid_out.err;
  EXPECT_EQ(laid_out.err, "");
}

// speedscope's rules (docs: formats.md): shared frames, evented profiles
// whose opens and closes balance with `at` non-decreasing, and a sampled
// profile whose stacks are the folded stacks.
TEST(HwtReportTest, SpeedscopeIsBalancedAndMatchesTheExecution) {
  auto result = Report({"--speedscope"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["$schema"],
            "https://www.speedscope.app/file-format-schema.json");
  const auto& frames = json["shared"]["frames"];
  ASSERT_TRUE(frames.is_array());
  std::vector<std::string> names;
  for (const auto& frame : frames) names.push_back(frame["name"]);
  int evented = 0, sampled = 0;
  for (const auto& profile : json["profiles"]) {
    EXPECT_EQ(profile["unit"], "none");
    EXPECT_EQ(profile["startValue"], 0);
    EXPECT_EQ(profile["endValue"], 79);
    if (profile["type"] == "evented") {
      ++evented;
      std::vector<int> stack;
      double last = 0;
      // The call timeline, as folded stacks weighted by instructions.
      std::map<std::string, std::string> folded;
      std::map<std::string, int> weights;
      auto key = [&] {
        std::string k;
        for (int f : stack) k += (k.empty() ? "" : ";") + names.at(f);
        return k;
      };
      for (const auto& event : profile["events"]) {
        const double at = event["at"];
        ASSERT_GE(at, last);
        if (!stack.empty()) weights[key()] += static_cast<int>(at - last);
        last = at;
        const int frame = event["frame"];
        ASSERT_LT(frame, static_cast<int>(names.size()));
        if (event["type"] == "O") {
          stack.push_back(frame);
        } else {
          ASSERT_EQ(event["type"], "C");
          ASSERT_FALSE(stack.empty());
          ASSERT_EQ(stack.back(), frame) << "close of a frame not on top";
          stack.pop_back();
        }
      }
      EXPECT_TRUE(stack.empty()) << "unclosed frames";
      EXPECT_EQ(last, 79);
      for (const auto& [k, w] : weights) {
        if (w != 0) folded[k] = std::to_string(w);
      }
      EXPECT_EQ(folded, Lines(ReadOrDie(SourceDir() +
                                        "/testdata/programs/counted.folded"),
                              1));
    } else {
      ASSERT_EQ(profile["type"], "sampled");
      ++sampled;
      ASSERT_EQ(profile["samples"].size(), profile["weights"].size());
      std::map<std::string, std::string> folded;
      for (size_t i = 0; i < profile["samples"].size(); ++i) {
        std::string k;
        for (int f : profile["samples"][i]) {
          k += (k.empty() ? "" : ";") + names.at(f);
        }
        folded[k] = std::to_string(profile["weights"][i].get<int>());
      }
      EXPECT_EQ(folded, Lines(ReadOrDie(SourceDir() +
                                        "/testdata/programs/counted.folded"),
                              1));
    }
  }
  EXPECT_EQ(evented, 1);
  EXPECT_EQ(sampled, 1);
}

// Checks an SVG flame graph with Python's XML parser: well-formed, every
// frame's children fit inside it (start and width), the root is the total.
constexpr char kSvgCheck[] = R"PY(
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
total = int(root.get('data-total'))
frames = [g for g in root.iter(ns + 'g') if g.get('class', '').startswith('f')]
assert frames, 'no frames'
rows = [(int(g.get('data-d')), int(g.get('data-s')), int(g.get('data-v')),
         g.find(ns + 'title').text) for g in frames]
assert rows[0][0] == 0 and rows[0][2] == total, 'root is not the total'
stack = []
for d, s, v, title in rows:
    while stack and stack[-1][0] >= d:
        stack.pop()
    if stack:
        pd, ps, pv, _ = stack[-1]
        assert pd == d - 1, 'depth jumps at ' + title
        assert ps <= s and s + v <= ps + pv, title + ' outside its parent'
    stack.append((d, s, v, title))
for d, s, v, title in rows:
    kids = [r for r in rows if r[0] == d + 1 and s <= r[1] < s + v]
    assert sum(r[2] for r in kids) <= v, title + ': children wider than it'
print(len(rows))
)PY";

TEST(HwtReportTest, FlameSvgIsWellFormedAndFramesNest) {
  HWT_REQUIRE_TOOL("python3");
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  for (const Args& mode : {Args{"--flame"}, Args{"--flame", "--icicle"}}) {
    const std::string svg = dir->path() + "/f.svg";
    Args args = mode;
    args.push_back("-o");
    args.push_back(svg);
    auto result = Report(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto check = RunCommand({"python3", "-c", kSvgCheck, svg});
    EXPECT_EQ(check.exit_code, 0) << check.err;
    // all, _start, its 6 callees, outer's leaf, rec's 2 recursions.
    EXPECT_EQ(check.out, "11\n");
  }
}

TEST(HwtReportTest, FlameTitleAndCountName) {
  auto result =
      Report({"--flame", "--title", "Counted <run>", "--count-name", "cycles"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr(">Counted &lt;run&gt;</text>"));
  EXPECT_THAT(result.out, HasSubstr("<title>all (79 cycles, 100.00%)"));
}

// A headless Chromium renders the flame graph; ?s=REGEX in the URL runs a
// search on load, which highlights the matching frames and shows their
// share; ?f=N zooms into frame N first, and the share is then of it.
TEST(HwtReportTest, ChromiumRendersTheFlameGraphAndSearchHighlights) {
  HWT_REQUIRE_TOOL("chromium");
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  const std::string svg = dir->path() + "/counted.svg";
  auto result = Report({"--flame", "-o", svg});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto dump = [&](const std::string& query) {
    return RunCommand(
        {"chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--user-data-dir=" + dir->path() + "/profile", "--dump-dom",
         "file://" + svg + "?" + query},
        120);
  };
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1)) {
      ++n;
    }
    return n;
  };
  // leaf under _start (12) and under outer (6): 18 of 79.
  auto search = dump("s=%5Eleaf%24");
  ASSERT_EQ(search.exit_code, 0) << search.err;
  EXPECT_THAT(search.out, HasSubstr("data-ready=\"1\""));
  EXPECT_EQ(count(search.out, "class=\"f match\""), 2);
  EXPECT_EQ(count(search.out, "fill=\"rgb(230,0,230)\""), 2);
  EXPECT_THAT(search.out, HasSubstr("Matched: 22.8% (18 instructions)"));
  // Frame 4 is outer (all, _start, leaf, leaf2, outer, ...): 6 of its 11.
  auto zoomed = dump("f=4&s=leaf");
  ASSERT_EQ(zoomed.exit_code, 0) << zoomed.err;
  EXPECT_THAT(zoomed.out, HasSubstr("Matched: 54.5% (6 instructions)"));
  EXPECT_THAT(zoomed.out, HasSubstr("id=\"unzoom\" class=\"btn\""));
}

// CoreSight works as PT does: on RICSecLab's `branches` (an OpenCSD snapshot
// of a real ETMv4 trace whose memory dumps are the PIE program and its
// libraries at their load addresses), main calls exactly what branches.c's
// main calls (branches.objdump: eleven bl at 0x908-0x930), once each, and
// runs its own 16 instructions (0x900-0x93c).
// The TI FreeRTOS snapshot (its cpu_0.ini dumps the firmware's ELF file at
// 0x0): every function of the report is named, and named as the firmware's
// symbol table names it (llvm-nm); the 256 bytes of trace ID 0x6f, which no
// source of the snapshot configures, are reported (hwt-decode --stats names
// the ID), so it exits 1.
TEST(HwtReportTest, TiSnapshotFunctionsAreTheFirmwaresSymbols) {
  HWT_REQUIRE_CORPUS(corpus);
  HWT_REQUIRE_TOOL("llvm-nm-19");
  const std::string snapshot = corpus + "/ti-am243x-etm3/freertos";
  auto nm = RunCommand(
      {"llvm-nm-19", "--defined-only", snapshot + "/files/freertos.out"});
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  std::set<std::string> symbols;
  for (absl::string_view line : absl::StrSplit(nm.out, '\n')) {
    const size_t space = line.rfind(' ');
    if (space != absl::string_view::npos) {
      symbols.insert(std::string(line.substr(space + 1)));
    }
  }
  auto top = RunCommand({ToolPath("hwt-report"), "--top", "100000", "--format",
                         "json", snapshot});
  EXPECT_EQ(top.exit_code, 1) << top.err;
  EXPECT_THAT(top.err, HasSubstr("1 decode error, 256 bytes lost"));
  EXPECT_THAT(top.err, HasSubstr("is an ELF file"));
  const nlohmann::json json = nlohmann::json::parse(top.out);
  EXPECT_EQ(json["total"], 232205);
  ASSERT_GT(json["by_self"].size(), 20u);
  for (const auto& row : json["by_self"]) {
    EXPECT_EQ(row["image"], "freertos.out") << row.dump();
    EXPECT_TRUE(symbols.count(row["function"].get<std::string>()))
        << row.dump();
  }
}

TEST(HwtReportTest, CoreSightBranchesMainCallsWhatTheSourceCalls) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string snapshot = corpus + "/ricseclab-coresight/branches";
  auto result = RunCommand({ToolPath("hwt-report"), "--folded", snapshot});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string main_stack = "_start;__libc_start_main;main";
  std::set<std::string> callees;
  std::string main_self;
  for (const auto& [stack, count] : Lines(result.out, 1)) {
    if (stack == main_stack) main_self = count;
    if (stack.rfind(main_stack + ";", 0) != 0) continue;
    const std::string rest = stack.substr(main_stack.size() + 1);
    callees.insert(rest.substr(0, rest.find(';')));
  }
  EXPECT_EQ(main_self, "16");
  EXPECT_EQ(callees, (std::set<std::string>{
                         "execute_b_instruction", "execute_bcond_instruction",
                         "execute_cbz_instruction", "execute_cbnz_instruction",
                         "execute_tbz_instruction", "execute_tbnz_instruction",
                         "execute_bl_instruction", "execute_ibs_instruction",
                         "execute_ret_instruction", "execute_br_instruction",
                         "execute_blr_instruction"}));

  // The call graph says once each; the flame graph has main.
  auto dot = RunCommand({ToolPath("hwt-report"), "--callgraph=dot",
                         "--min-percent", "0", snapshot});
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  auto top = RunCommand(
      {ToolPath("hwt-report"), "--top", "1000", "--format", "json", snapshot});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  std::map<std::string, int> calls;
  const nlohmann::json top_json = nlohmann::json::parse(top.out);
  for (const auto& row : top_json["by_self"]) {
    calls[row["function"].get<std::string>()] = row["calls"].get<int>();
  }
  EXPECT_EQ(calls["main"], 1);
  EXPECT_EQ(calls["execute_tbz_instruction"], 1);
  EXPECT_EQ(calls["execute_ibs_instruction"], 1);
  auto flame = RunCommand({ToolPath("hwt-report"), "--flame", snapshot});
  ASSERT_EQ(flame.exit_code, 0) << flame.err;
  EXPECT_THAT(flame.out, HasSubstr("<title>main ("));
  EXPECT_THAT(flame.out, HasSubstr("<title>execute_blr_instruction ("));
  // The annotated disassembly is AArch64.
  auto annotate =
      RunCommand({ToolPath("hwt-report"), "--annotate", "^main$", snapshot});
  ASSERT_EQ(annotate.exit_code, 0) << annotate.err;
  EXPECT_THAT(annotate.out, HasSubstr("bl 0x"));
  EXPECT_THAT(annotate.out, HasSubstr("<execute_b_instruction>"));
}

// SPE: a raw SPE trace written with the packet encoder (known samples) over
// counted.S's program image: the samples weigh on the shared profile, so
// the shared outputs give samples per function (and with --weight time
// their latency), the SPE report gives latencies and data sources in text
// and JSON, and the exports that need exact branch counts refuse.
TEST(HwtReportTest, SpeSamplesPerFunction) {
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  const std::string image = dir->path() + "/counted_static";
  ASSERT_TRUE(WriteFileAtomically(image, ReadOrDie(ProgramImage())).ok());
  // leaf (0x401050-0x401058): 3 samples of 10, 20 and 30 cycles; special
  // (0x401077-): 2 of 100; one outside every image, 5
  // (decoders/spe/testing/counted_samples.h).
  const std::string trace = dir->path() + "/trace.spe";
  ASSERT_TRUE(
      WriteFileAtomically(trace, spe::testing::CountedSamplesTrace()).ok());
  const Args input = {"--backend", "spe", "--image", image + "@0", trace};
  auto run = [&](Args args) {
    args.insert(args.begin(), ToolPath("hwt-report"));
    args.insert(args.end(), input.begin(), input.end());
    return RunCommand(args);
  };

  // A sample records no stack: each is one frame, its function.
  auto folded = run({"--folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.out,
            "[unknown] 1\n"
            "leaf 3\n"
            "special 2\n");
  auto latency = run({"--folded", "--weight", "time"});
  ASSERT_EQ(latency.exit_code, 0) << latency.err;
  EXPECT_EQ(latency.out,
            "[unknown] 5\n"
            "leaf 60\n"
            "special 200\n");

  auto top = run({"--top", "5", "--format", "json"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const nlohmann::json top_json = nlohmann::json::parse(top.out);
  EXPECT_EQ(top_json["unit"], "samples");
  EXPECT_EQ(top_json["total"], 6);
  ASSERT_EQ(top_json["by_self"].size(), 3u);
  EXPECT_EQ(top_json["by_self"][0]["function"], "leaf");
  EXPECT_EQ(top_json["by_self"][0]["self"], 3);

  // The SPE report: the default output, or --spe.
  auto json_run = run({"--format", "json"});
  ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
  EXPECT_EQ(json_run.out, run({"--spe", "--format", "json"}).out);
  const nlohmann::json json = nlohmann::json::parse(json_run.out);
  EXPECT_EQ(json["summary"]["samples"], 6);
  EXPECT_EQ(json["summary"]["samples_in_images"], 5);
  std::map<std::string, nlohmann::json> functions;
  for (const auto& f : json["functions"]) {
    functions[f["name"].get<std::string>()] = f;
  }
  ASSERT_TRUE(functions.count("leaf")) << json_run.out;
  ASSERT_TRUE(functions.count("special")) << json_run.out;
  const nlohmann::json& leaf = functions["leaf"];
  EXPECT_EQ(leaf["samples"], 3);
  EXPECT_EQ(leaf["image"], "counted_static");
  EXPECT_EQ(leaf["start"], "0x401050");
  EXPECT_EQ(leaf["latency"]["total"]["count"], 3);
  EXPECT_DOUBLE_EQ(leaf["latency"]["total"]["mean"].get<double>(), 20.0);
  EXPECT_EQ(leaf["latency"]["total"]["max"], 30);
  EXPECT_EQ(leaf["counters"]["loads"], 3);
  EXPECT_EQ(functions["special"]["samples"], 2);
  EXPECT_DOUBLE_EQ(
      functions["special"]["latency"]["total"]["mean"].get<double>(), 100.0);

  auto text = run({});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* section :
       {"Latency (cycles)", "Data sources", "Events", "Functions (top",
        "Function events", "Instructions (top", "Data symbols"}) {
    EXPECT_THAT(text.out, HasSubstr(section));
  }
  EXPECT_THAT(text.out, HasSubstr("leaf"));
  EXPECT_THAT(text.out, HasSubstr("special"));

  auto flame = run({"--flame"});
  ASSERT_EQ(flame.exit_code, 0) << flame.err;
  EXPECT_THAT(flame.out, HasSubstr("<title>leaf (3 samples, 50.00%"));
  EXPECT_THAT(flame.out, HasSubstr("<title>special (2 samples, 33.33%"));

  // The call graph of samples: their functions, no calls between them.
  auto callgraph = run({"--callgraph"});
  ASSERT_EQ(callgraph.exit_code, 0) << callgraph.err;
  EXPECT_THAT(callgraph.out, HasSubstr("leaf"));

  // Exports of exact branch counts do not apply to samples: a clear usage
  // error, before anything is decoded.
  for (const char* exact :
       {"--bolt", "--autofdo", "--profgen", "--llvm-sample"}) {
    auto refused = run({exact});
    EXPECT_EQ(refused.exit_code, 2) << exact;
    EXPECT_THAT(refused.err, HasSubstr("sampled profile (SPE)")) << exact;
  }
}

TEST(HwtReportTest, CorruptTraceExitsOneAndSaysSo) {
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  std::string corrupt = ReadOrDie(Capture() + "/buffers/0.bin");
  for (size_t i = 0x30; i < 0x38 && i < corrupt.size(); ++i) {
    corrupt[i] = '\xd9';
  }
  const std::string path = dir->path() + "/corrupt.pt";
  ASSERT_TRUE(WriteFileAtomically(path, corrupt).ok());
  auto result = RunCommand({ToolPath("hwt-report"), "--folded", "--cpu",
                            "6/85/4", "--image", ProgramImage(), path});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_THAT(result.err, HasSubstr("decode error"));
  // What was decoded is still reported, with the cut marked.
  EXPECT_THAT(result.out, HasSubstr("_start"));
}

TEST(HwtReportTest, BadUsageAndInputsExitTwoAndLeaveNoFile) {
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  const std::string out = dir->path() + "/out.svg";
  struct Case {
    Args args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--callgraph=xml"}, "--callgraph"},
      {{"--function", "("}, "--function"},
      {{"--thread", "7"}, "--thread 7"},
      {{"--only-image", "nosuch.so"}, "nosuch.so"},
      {{"--range", "x:y"}, "--range"},
      {{"--min-width", "wide"}, "--min-width"},
      {{"--format", "xml"}, "--format"},
      {{"--cpu", "x"}, "--cpu"},
      {{"--flame", "--speedscope"}, "-o FILE with several outputs"},
  };
  for (const Case& c : cases) {
    Args args = c.args;
    args.push_back("-o");
    args.push_back(out);
    auto result = Report(args);
    EXPECT_EQ(result.exit_code, 2) << c.args[0] << ": " << result.err;
    EXPECT_THAT(result.err, HasSubstr(c.message)) << c.args[0];
    EXPECT_FALSE(FileExists(out)) << c.args[0];
  }
  auto missing =
      RunCommand({ToolPath("hwt-report"), "-o", out, "/nonexistent.hwt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent.hwt"));
  EXPECT_FALSE(FileExists(out));
  // Not a trace at all.
  const std::string junk = dir->path() + "/junk.bin";
  ASSERT_TRUE(WriteFileAtomically(junk, "not a trace").ok());
  auto bad = RunCommand({ToolPath("hwt-report"), "-o", out, junk});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_THAT(bad.err, HasSubstr("junk.bin"));
  EXPECT_FALSE(FileExists(out));
  // Nothing else was left in the directory (no temporary files).
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir->path())) {
    entries += entry.path().filename() != "junk.bin";
  }
  EXPECT_EQ(entries, 0);

  auto help = RunCommand({ToolPath("hwt-report"), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* flag :
       {"--flame", "--folded", "--speedscope", "--callgraph", "--top", "--hot",
        "--annotate", "--thread", "--only-image", "--function", "--range",
        "--time", "--no-inline", "--jobs"}) {
    EXPECT_THAT(help.out, HasSubstr(flag));
  }
}

// With stdout not a terminal the SVG goes to stdout; -o writes it whole,
// and equal to stdout; nothing is printed on stderr without a terminal
// except the note naming the file.
TEST(HwtReportTest, OutputFilesAreWrittenWhole) {
  auto dir = TempDir::Create("hwt-report-test");
  ASSERT_TRUE(dir.ok());
  const std::string svg = dir->path() + "/flame.svg";
  const std::string folded = dir->path() + "/stacks.folded";
  auto result = Report({"--flame=" + svg, "--folded=" + folded, "--top", "3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("Functions by self instructions"));
  EXPECT_EQ(ReadOrDie(svg), ReadOrDie(Golden("counted.report.flame.svg")));
  EXPECT_EQ(ReadOrDie(folded), ReadOrDie(Golden("counted.report.folded")));
  EXPECT_THAT(result.err, HasSubstr("wrote " + svg));
  auto plain = Report({});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, ReadOrDie(Golden("counted.report.flame.svg")));
}

}  // namespace
}  // namespace hwt
