// The exports consumed by their real tools, counts compared after the round
// trip (docs/exports.md): pprof by go tool pprof and pprof-format, the LLVM
// sample profile by llvm-profdata, llvm-profgen (from our --profgen) and
// clang's IR, AutoFDO text by create_llvm_prof, the Chrome trace by the
// format's rules and speedscope's importer. BOLT: bolt_consumer_test.cc.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/testing/consumers.h"
#include "tests/export/testing/export_fixture.h"

namespace hwt::export_test {
namespace {

// --- pprof ------------------------------------------------------------------

TEST_P(ExportConsumersTest, GoToolPprofTopEqualsOurTop) {
  HWT_REQUIRE_CONSUMER(go, "go");
  auto r = RunTool({go, "tool", "pprof", "-top", "-noinlines",
                    "-nodecount=100000", "-nodefraction=0", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "Showing nodes accounting for 36043, 100% of 36043 total"
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(of (\d+) total)")))
      << r.out;
  EXPECT_EQ(std::stoull(m[1]), v().summary["instructions"].get<uint64_t>());
  // "  flat  flat%   sum%   cum   cum%  name"
  std::map<std::string, std::pair<uint64_t, uint64_t>> pprof;
  const std::regex row(
      R"(^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+?)\s*$)");
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_match(s, m, row)) {
      pprof[m[3]] = {std::stoull(m[1]), std::stoull(m[2])};
    }
  }
  const auto top = TopFunctions();
  ASSERT_FALSE(top.empty());
  for (const auto& [name, counts] : top) {
    ASSERT_TRUE(pprof.count(name)) << name << " missing from pprof -top";
    EXPECT_EQ(pprof[name], counts) << name << " (self, total)";
  }
  // -raw lists every sample: their values add up to the total.
  r = RunTool({go, "tool", "pprof", "-raw", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t sum = 0;
  const std::regex sample(R"(^\s+(\d+): [\d ]+$)");
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_match(s, m, sample)) sum += std::stoull(m[1]);
  }
  EXPECT_EQ(sum, v().summary["instructions"].get<uint64_t>());
}

TEST_P(ExportConsumersTest, PprofFormatDecoderAgrees) {
  HWT_REQUIRE_CONSUMER(node, "node");
  const std::string js = testing::SourceDir() + "/tests/js";
  HWT_REQUIRE_JS_PACKAGE(js + "/node_modules/pprof-format");
  auto r = RunTool({node, js + "/pprof_summary.mjs", v().file("pb.gz")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json got = nlohmann::json::parse(r.out);
  EXPECT_EQ(got["sampleTypes"], nlohmann::json::array({"instructions/count"}));
  EXPECT_EQ(got["total"].get<uint64_t>(),
            v().summary["instructions"].get<uint64_t>());
  for (const auto& [name, counts] : TopFunctions()) {
    EXPECT_EQ(got["self"].value(name, uint64_t{0}), counts.first) << name;
    EXPECT_EQ(got["totalByFunction"].value(name, uint64_t{0}), counts.second)
        << name;
  }
  bool program_mapped = false;
  for (const auto& m : got["mappings"]) {
    program_mapped |=
        BaseName(m["file"].get<std::string>()) == BaseName(v().program) &&
        !m["buildId"].get<std::string>().empty();
  }
  EXPECT_TRUE(program_mapped) << got["mappings"].dump();
}

// --- AutoFDO, llvm-profgen, LLVM sample profiles -----------------------------

// A sample profile file in canonical text (llvm-profdata merge --text).
std::string CanonicalText(const std::string& profdata, const std::string& in,
                          const std::string& out, std::string* error) {
  auto r = RunTool({profdata, "merge", "--sample", "--text", in, "-o", out});
  if (r.exit_code != 0) {
    *error = r.err;
    return "";
  }
  return ReadText(out);
}

TEST_P(ExportConsumersTest, LlvmProfgenMakesOurSampleProfile) {
  HWT_REQUIRE_CONSUMER(profgen, "llvm-profgen-19");
  HWT_REQUIRE_CONSUMER(profdata, "llvm-profdata-19");
  const std::string made = v().file("profgen.prof");
  auto r = RunTool({profgen, "--unsymbolized-profile=" + v().file("profgen"),
                    "--binary=" + v().program, "--output=" + made});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string error;
  const auto theirs = ReadSampleProfileText(
      CanonicalText(profdata, made, made + ".txt", &error));
  ASSERT_EQ(error, "");
  const auto ours = ReadSampleProfileText(
      CanonicalText(profdata, v().file("prof"), v().file("prof.txt"), &error));
  ASSERT_EQ(error, "");
  // Equal on every line that ran (llvm-profgen adds zero lines between its
  // ranges), headers (total and head samples) included.
  EXPECT_EQ(theirs, ours);
  for (const std::string& name : kProgramFunctions) {
    EXPECT_TRUE(ours.count(name)) << name;
  }
}

TEST_P(ExportConsumersTest, LlvmProfdataReadsOurSampleProfile) {
  HWT_REQUIRE_CONSUMER(profdata, "llvm-profdata-19");
  auto r = RunTool({profdata, "show", "--sample", v().file("prof")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "Function: main: 1713, 1, 11 sampled lines": total and head as ours
  // (per function, the sum of count x instruction bytes of its code).
  std::map<std::string, std::pair<uint64_t, uint64_t>> shown;
  const std::regex header(R"(^Function: (\S+): (\d+), (\d+), )");
  std::smatch m;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_search(s, m, header)) {
      shown[m[1]] = {std::stoull(m[2]), std::stoull(m[3])};
    }
  }
  HWT_REQUIRE_CONSUMER(nm, "llvm-nm-19");
  const auto insns = Instructions();
  for (const auto& [name, sym] : SymbolTable(nm, v().program)) {
    if (!kProgramFunctions.count(name)) continue;
    uint64_t bytes = 0;
    for (auto it = insns.lower_bound(sym.start);
         it != insns.end() && it->first < sym.start + sym.size; ++it) {
      bytes += it->second.first * it->second.second;
    }
    uint64_t calls = 0;
    for (const auto& b : v().summary["branches"]) {
      if (b[1].get<uint64_t>() == sym.start) calls += b[2].get<uint64_t>();
    }
    ASSERT_TRUE(shown.count(name)) << name << "\n" << r.out;
    EXPECT_EQ(shown[name].first, bytes) << name;
    EXPECT_EQ(shown[name].second, calls) << name;
  }
}

// create_llvm_prof turns our AutoFDO text into an LLVM profile that
// llvm-profdata reads, with our line counts. (autofdo 0.19 keeps call
// targets into code without DWARF, which we and llvm-profgen leave out,
// counts totals differently, drops functions under its hotness threshold
// and garbles inlined functions' names: the lines of the program's own
// functions are compared, call targets and inlined call sites aside.)
TEST_P(ExportConsumersTest, CreateLlvmProfReadsOurAutoFdoText) {
  HWT_REQUIRE_CONSUMER(create, "create_llvm_prof");
  HWT_REQUIRE_CONSUMER(profdata, "llvm-profdata-19");
  const std::string made = v().file("afdo.prof");
  auto r = RunTool({create, "--profiler=text", "--profile=" + v().file("afdo"),
                    "--binary=" + v().program, "--out=" + made,
                    // Its binary writer fails on the inlined names it
                    // garbles ("Truncated function name table").
                    "--format=text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // autofdo 0.19 names inlined functions with bytes it misreads from DWARF
  // (empty or binary names llvm-profdata rejects): its inlined call sites
  // are dropped before llvm-profdata reads the file. Now and then it does
  // the same to a whole function record (a name of unreadable bytes, "\xC9"
  // in one failed run; our file holds addresses only, the names are its
  // own): such a record is dropped with its body (the program's own
  // functions are still compared).
  std::string cleaned;
  size_t skip_deeper_than = std::string::npos;
  for (absl::string_view line : absl::StrSplit(ReadText(made), '\n')) {
    if (line.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent > skip_deeper_than) continue;
    skip_deeper_than = std::string::npos;
    if (indent == 0) {
      const absl::string_view name = line.substr(0, line.find(':'));
      const bool readable =
          !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return c > ' ' && c < 0x7f;
          });
      if (!readable) {
        skip_deeper_than = 0;
        continue;
      }
    }
    const size_t colon = line.find(": ");
    if (indent > 0 && colon != absl::string_view::npos &&
        !absl::ascii_isdigit(line[colon + 2])) {
      skip_deeper_than = indent;
      continue;
    }
    absl::StrAppend(&cleaned, line, "\n");
  }
  ASSERT_TRUE(WriteFileAtomically(made + ".clean", cleaned).ok());
  std::string error;
  const auto theirs = ReadSampleProfileText(
      CanonicalText(profdata, made + ".clean", made + ".txt", &error));
  ASSERT_EQ(error, "");
  const auto ours = ReadSampleProfileText(
      CanonicalText(profdata, v().file("prof"), v().file("prof.txt"), &error));
  ASSERT_EQ(error, "");
  auto body_lines = [](const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (size_t i = 1; i < lines.size(); ++i) {
      const std::string& l = lines[i];
      if (l.size() < 2 || l[1] == ' ') continue;  // inside an inlined site
      const std::string rest = l.substr(l.find(": ") + 2);
      if (!absl::ascii_isdigit(rest[0])) continue;  // an inlined call site
      out.push_back(l.substr(0, l.find(' ', l.find(": ") + 2)));
    }
    return out;
  };
  size_t compared = 0;
  for (const std::string& name : kProgramFunctions) {
    if (!theirs.count(name)) continue;  // under autofdo's threshold
    ASSERT_TRUE(ours.count(name)) << name;
    EXPECT_EQ(body_lines(theirs.at(name)), body_lines(ours.at(name))) << name;
    ++compared;
  }
  EXPECT_GE(compared, 4u);
}

// clang accepts even a wrong profile silently: what it makes of ours is
// checked in the IR. Entry counts are our entries + 1 and every two-way
// branch's (and select's) weights are our taken and not-taken counts + 1 (LLVM
// adds 1 to keep weights non-zero) of a conditional branch of the same
// function.
TEST_P(ExportConsumersTest, ClangIrCarriesOurCounts) {
  HWT_REQUIRE_CONSUMER(clang, "clang-19");
  HWT_REQUIRE_CONSUMER(nm, "llvm-nm-19");
  const std::string ir = v().file("ll");
  auto r = RunTool(
      {clang, "-O2", "-g", "-gdwarf-4", "-ffunction-sections",
       "-fdebug-info-for-profiling", "-fprofile-sample-use=" + v().file("prof"),
       "-S", "-emit-llvm", "-o", ir,
       testing::SourceDir() + "/tests/export/testdata/export_prog.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadText(ir);
  std::map<std::string, std::vector<uint64_t>> metadata;
  const std::regex md(
      R"re(^(![0-9]+) = !\{!"(?:branch_weights|function_entry_count)", (.*)\}$)re");
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::smatch m;
    const std::string l(line);
    if (!std::regex_match(l, m, md)) continue;
    for (absl::string_view w : absl::StrSplit(std::string(m[2]), ", ")) {
      uint64_t n = 0;
      std::vector<std::string> parts = absl::StrSplit(w, ' ');
      if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &n)) {
        metadata[m[1]].push_back(n);
      }
    }
  }
  const auto symbols = SymbolTable(nm, v().program);
  size_t branches = 0;
  const std::regex define(R"(^define .*@(\w+)\(.*!prof (![0-9]+) \{$)");
  const std::regex prof(R"(!prof (![0-9]+))");
  std::string function;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const std::string l(line);
    std::smatch m;
    if (std::regex_match(l, m, define)) {
      function = m[1];
      if (!kProgramFunctions.count(function)) continue;
      const Symbol& sym = symbols.at(function);
      uint64_t entries = 0;
      for (const auto& b : v().summary["branches"]) {
        if (b[1].get<uint64_t>() == sym.start) entries += b[2].get<uint64_t>();
      }
      ASSERT_EQ(metadata[m[2]].size(), 1u) << l;
      EXPECT_EQ(metadata[m[2]][0], entries + 1) << function;
      continue;
    }
    if (l == "}") function.clear();
    // main's loop weights are scaled by clang's loop passes: only the
    // other functions' branches are compared.
    if (function.empty() || function == "main" ||
        !kProgramFunctions.count(function) ||
        !(absl::StartsWith(l, "  br ") || absl::StrContains(l, " = select ")) ||
        !std::regex_search(l, m, prof)) {
      continue;
    }
    const std::vector<uint64_t>& w = metadata[m[1]];
    if (w.size() != 2) continue;
    const Symbol& sym = symbols.at(function);
    std::multiset<std::pair<uint64_t, uint64_t>> ours;
    for (const auto& i : v().summary["insns"]) {
      const uint64_t a = i[0];
      if (a >= sym.start && a < sym.start + sym.size && i[3].get<bool>()) {
        ours.insert(std::minmax(i[4].get<uint64_t>(), i[5].get<uint64_t>()));
      }
    }
    EXPECT_TRUE(ours.count(std::minmax(w[0] - 1, w[1] - 1)))
        << function << ": " << l;
    ++branches;
  }
  EXPECT_GE(branches, 3u);
}

// --- Chrome trace
// -------------------------------------------------------------

// Per frame name, self time (duration less the children's) over all threads.
std::map<std::string, uint64_t> CheckTraceRules(const nlohmann::json& trace,
                                                uint64_t* total) {
  std::map<std::string, uint64_t> self;
  *total = 0;
  struct Open {
    double start, end;
    std::string name;
    double children = 0;
  };
  std::map<int, std::vector<Open>> stacks;
  std::map<int, double> last_ts;
  auto close = [&](std::vector<Open>& stack) {
    Open o = stack.back();
    stack.pop_back();
    self[o.name] += static_cast<uint64_t>(o.end - o.start - o.children);
    if (stack.empty()) {
      *total += static_cast<uint64_t>(o.end - o.start);
    } else {
      stack.back().children += o.end - o.start;
    }
  };
  EXPECT_TRUE(trace.contains("traceEvents"));
  std::set<int> named_threads;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    const int tid = e["tid"];
    if (ph == "M") {
      EXPECT_EQ(e["name"], "thread_name");
      named_threads.insert(tid);
      continue;
    }
    EXPECT_EQ(ph, "X") << e.dump();
    const std::string name = e["name"];
    EXPECT_FALSE(name.empty()) << e.dump();
    const double ts = e["ts"], dur = e["dur"];
    EXPECT_GE(dur, 0) << e.dump();
    // Monotonic start times per thread.
    EXPECT_GE(ts, last_ts[tid]) << e.dump();
    last_ts[tid] = ts;
    std::vector<Open>& stack = stacks[tid];
    while (!stack.empty() && stack.back().end <= ts) close(stack);
    // Nested: an event inside the one still open ends within it.
    if (!stack.empty()) {
      EXPECT_LE(ts + dur, stack.back().end) << e.dump();
    }
    stack.push_back({ts, ts + dur, name});
  }
  for (auto& [tid, stack] : stacks) {
    EXPECT_TRUE(named_threads.count(tid)) << "thread " << tid;
    while (!stack.empty()) close(stack);
  }
  return self;
}

TEST_P(ExportConsumersTest, ChromeTraceFollowsTheFormatAndOurCounts) {
  const nlohmann::json trace =
      nlohmann::json::parse(ReadText(v().file("trace.json")));
  EXPECT_EQ(trace["otherData"]["clock"], "instructions (1 instruction = 1 us)");
  EXPECT_EQ(trace["otherData"]["truncated"], false);
  uint64_t total = 0;
  const std::map<std::string, uint64_t> self = CheckTraceRules(trace, &total);
  EXPECT_EQ(total, v().summary["instructions"].get<uint64_t>());
  for (const auto& [name, counts] : TopFunctions()) {
    auto it = self.find(name);
    EXPECT_EQ(it == self.end() ? 0 : it->second, counts.first) << name;
  }
}

// A trace with timing (the demo capture: hwt-emulate's timestamps, ticks
// with no known frequency) gives a timeline on the trace's time without
// being asked, with the intervals when tracing was off (the program's
// system calls) as [untraced] events inside the call they interrupted: so
// every function's own time in it is what `--weight time --top` counts.
TEST(ChromeTraceOnTimeTest, ATraceWithTimingIsOnTheTracesClock) {
  auto dir = TempDir::Create("hwt-chrome-time");
  ASSERT_TRUE(dir.ok());
  const std::string demo = testing::SourceDir() + "/testdata/demo.hwt";
  const std::string file = dir->path() + "/demo.json";
  auto r = RunTool(
      {testing::ToolPath("hwt-report"), "-q", "--chrome-trace=" + file, demo});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json trace = nlohmann::json::parse(ReadText(file));
  EXPECT_EQ(trace["otherData"]["clock"], "trace time (ticks)");
  uint64_t total = 0;
  const std::map<std::string, uint64_t> self = CheckTraceRules(trace, &total);
  ASSERT_TRUE(self.count("[untraced]")) << "the demo makes system calls";
  r = RunTool({testing::ToolPath("hwt-report"), "--weight", "time", "--top",
               "100000", "--format", "json", "--no-inline", "-q", demo});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json top = nlohmann::json::parse(r.out);
  uint64_t own = 0;
  for (const auto& row : top["by_self"]) {
    const std::string name = row["function"];
    auto it = self.find(name);
    EXPECT_EQ(it == self.end() ? 0 : it->second, row["self"].get<uint64_t>())
        << name;
    own += row["self"].get<uint64_t>();
  }
  EXPECT_GE(top["by_self"].size(), 10u);
  // The timeline's span is the functions' time and the untraced time.
  EXPECT_EQ(total, own + self.at("[untraced]"));
}

TEST_P(ExportConsumersTest, SpeedscopeImportsTheChromeTrace) {
  HWT_REQUIRE_CONSUMER(chromium, "chromium");
  HWT_REQUIRE_CONSUMER(python, "python3");
  const std::string js = testing::SourceDir() + "/tests/js";
  const std::string release = js + "/node_modules/speedscope/dist/release";
  HWT_REQUIRE_JS_PACKAGE(release);
  auto r = RunTool({python, js + "/speedscope_import.py", release, v().dir,
                    v().file("trace.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json got = nlohmann::json::parse(r.out);
  ASSERT_FALSE(got.contains("error")) << got.dump();
  uint64_t total = 0;
  std::map<std::string, uint64_t> self;
  for (const auto& p : got["profiles"]) {
    total += p["total"].get<uint64_t>();
    for (const auto& [name, w] : p["self"].items()) {
      self[name] += w.get<uint64_t>();
    }
  }
  EXPECT_EQ(total, v().summary["instructions"].get<uint64_t>());
  for (const auto& [name, counts] : TopFunctions()) {
    EXPECT_EQ(self[name], counts.first) << name;
  }
}

// --- from a saved profile --------------------------------------------------

// What go tool pprof makes of a profile, independent of its numbering
// (a saved profile numbers images by identity, a capture by load order, so
// mapping, location and sample order differ): -top without its header, and
// -traces's samples sorted, without the header that names the input.
std::string PprofView(const std::string& go, const std::string& file) {
  auto top = RunTool({go, "tool", "pprof", "-top", "-nodecount=100000",
                      "-nodefraction=0", file});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  auto traces = RunTool({go, "tool", "pprof", "-traces", file});
  EXPECT_EQ(traces.exit_code, 0) << traces.err;
  const size_t table = top.out.find("flat  flat%");
  std::string out =
      table == std::string::npos ? top.out : top.out.substr(table);
  std::vector<std::string> samples =
      absl::StrSplit(traces.out, "-----------+-------");
  if (!samples.empty()) samples.erase(samples.begin());  // the header
  std::sort(samples.begin(), samples.end());
  absl::StrAppend(&out, samples.size(), " samples\n",
                  absl::StrJoin(samples, "\n"));
  return out;
}

// Saved with --save and exported from the .hwtprof while the program is not
// where it was traced (the profile is all the exports read), every export
// but the timeline equals the capture's own: byte for byte but for pprof's
// comment, which names the input. The timeline is refused with a reason.
TEST_P(ExportConsumersTest, ASavedProfileExportsWhatItsCaptureExports) {
  const std::string saved = v().file("hwtprof");
  auto r = RunTool(
      {testing::ToolPath("hwt-report"), "-q", "--save", saved, v().capture});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string away = v().program + ".away";
  ASSERT_EQ(rename(v().program.c_str(), away.c_str()), 0);
  r = RunTool(
      {testing::ToolPath("hwt-report"), "-q",
       "--pprof=" + v().file("saved.pb.gz"), "--bolt=" + v().file("saved.pa"),
       "--autofdo=" + v().file("saved.afdo"),
       "--profgen=" + v().file("saved.profgen"),
       "--llvm-sample=" + v().file("saved.prof"), saved},
      300);
  auto timeline = RunTool({testing::ToolPath("hwt-report"),
                           "--chrome-trace=" + v().file("saved.json"), saved});
  ASSERT_EQ(rename(away.c_str(), v().program.c_str()), 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* suffix : {"pa", "afdo", "profgen", "prof"}) {
    const std::string ours = ReadText(v().file(suffix));
    ASSERT_FALSE(ours.empty()) << suffix;
    EXPECT_TRUE(ReadText(v().file(absl::StrCat("saved.", suffix))) == ours)
        << suffix << " from the saved profile differs from the capture's";
  }
  EXPECT_EQ(timeline.exit_code, 2) << timeline.err;
  EXPECT_TRUE(absl::StrContains(timeline.err, "trace's order")) << timeline.err;
  EXPECT_FALSE(access(v().file("saved.json").c_str(), F_OK) == 0);
  HWT_REQUIRE_CONSUMER(go, "go");
  const std::string from_capture = PprofView(go, v().file("pb.gz"));
  ASSERT_TRUE(absl::StrContains(from_capture, "main")) << from_capture;
  EXPECT_EQ(PprofView(go, v().file("saved.pb.gz")), from_capture);
}

INSTANTIATE_TEST_SUITE_P(Programs, ExportConsumersTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Static" : "Dynamic";
                         });

}  // namespace
}  // namespace hwt::export_test
