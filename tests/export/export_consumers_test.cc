// The exports consumed by their real tools, counts compared after the round
// trip (docs/exports.md). A test program (testdata/export_prog.c) is built
// with clang, static and dynamic (PIE), recorded with hwt-emulate, and
// exported by hwt-export-driver; its summary (the profile's own counts per
// instruction, branch and function) and hwt-report --top are what the
// consumers' results must equal.
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
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/testing/consumers.h"

namespace hwt::export_test {
namespace {

using hwt::testing::ToolPath;

// The test program's own functions (the rest of a static program is libc).
const std::set<std::string> kProgramFunctions = {"main", "classify", "step",
                                                 "fold", "rare"};
constexpr char kPrintOnly[] = "^(main|classify|step|fold|rare)$";

struct Variant {
  std::string name;  // "static", "dynamic"
  std::string dir;
  std::string program;
  std::string capture;
  std::string program_output;  // what the program printed
  nlohmann::json summary;
  nlohmann::json top;  // hwt-report --top --format json
  std::string file(const std::string& suffix) const {
    return dir + "/" + name + "." + suffix;
  }
};

std::string ReadText(const std::string& path) {
  auto text = ReadFileToString(path);
  return text.ok() ? *text : std::string();
}

// Builds, records and exports one variant; "" on success, else why not.
std::string Prepare(const std::string& dir, const std::string& name,
                    bool is_static, Variant* v) {
  v->name = name;
  v->dir = dir;
  v->program = dir + "/prog_" + name;
  v->capture = dir + "/" + name + ".hwt";
  std::vector<std::string> cc = {
      "clang-19",
      "-O2",
      "-g",
      "-gdwarf-4",
      "-ffunction-sections",
      "-fdebug-info-for-profiling",
      "-Wl,--emit-relocs",
      "-o",
      v->program,
      testing::SourceDir() + "/tests/export/testdata/export_prog.c"};
  if (is_static) cc.push_back("-static");
  auto r = RunTool(cc, 120);
  if (r.exit_code != 0) return r.err;
  r = RunTool({v->program}, 60);
  if (r.exit_code != 0) return r.err;
  v->program_output = r.out;
  r = RunTool(
      {ToolPath("hwt-emulate"), "-o", v->capture, "--force", "--", v->program},
      300);
  if (r.exit_code != 0) return r.err;
  r = RunTool({testing::BinaryDir() + "/tests/export/hwt-export-driver",
               "--pprof", v->file("pb.gz"), "--bolt", v->file("pa"),
               "--autofdo", v->file("afdo"), "--profgen", v->file("profgen"),
               "--llvm-sample", v->file("prof"), "--chrome-trace",
               v->file("trace.json"), "--summary", v->file("summary.json"),
               v->capture});
  if (r.exit_code != 0) return r.err;
  v->summary = nlohmann::json::parse(ReadText(v->file("summary.json")));
  r = RunTool({ToolPath("hwt-report"), "--top", "1000000", "--format", "json",
               "--no-inline", "-q", v->capture});
  if (r.exit_code != 0) return r.err;
  v->top = nlohmann::json::parse(r.out);
  return "";
}

struct Symbol {
  uint64_t start = 0;
  uint64_t size = 0;
};

// Function name -> start and size, every alias (llvm-nm -S).
std::map<std::string, Symbol> SymbolTable(const std::string& nm,
                                          const std::string& program) {
  std::map<std::string, Symbol> out;
  auto r = RunTool({nm, "-S", "--defined-only", program});
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    Symbol s;
    if (f.size() == 4 &&
        std::string("tTwWiI").find(f[2]) != std::string::npos &&
        absl::SimpleHexAtoi(f[0], &s.start) &&
        absl::SimpleHexAtoi(f[1], &s.size)) {
      out[f[3]] = s;
    }
  }
  return out;
}

// Each test runs in its own process (ctest): the variant it needs is
// prepared once per process, in SetUp.
class ExportConsumersTest : public ::testing::TestWithParam<bool> {
 public:
  static void TearDownTestSuite() {
    variants_.clear();
    dir_.reset();
  }

 protected:
  void SetUp() override {
    if (!FindTool("clang-19")) {
      if (InCi()) FAIL() << "clang-19 is not installed";
      GTEST_SKIP() << "clang-19 is not installed (scripts/setup.sh --test)";
    }
    if (!dir_) {
      auto dir = TempDir::Create("hwt-export-test");
      ASSERT_TRUE(dir.ok()) << dir.status();
      dir_ = std::make_unique<TempDir>(std::move(*dir));
    }
    const bool is_static = GetParam();
    if (!variants_.count(is_static)) {
      Variant v;
      error_[is_static] = Prepare(
          dir_->path(), is_static ? "static" : "dynamic", is_static, &v);
      variants_[is_static] = std::move(v);
    }
    ASSERT_EQ(error_[is_static], "");
  }
  const Variant& v() const { return variants_.at(GetParam()); }

  // Per function name: (self, total) as --top gives them; names that more
  // than one image has (ld.so and libc both have some) are left out, as
  // pprof and --top key them differently.
  std::map<std::string, std::pair<uint64_t, uint64_t>> TopFunctions() const {
    std::map<std::string, std::pair<uint64_t, uint64_t>> out;
    std::set<std::string> twice;
    for (const auto& row : v().top["by_self"]) {
      const std::string name = row["function"];
      if (!out.emplace(name, std::make_pair(row["self"], row["total"]))
               .second) {
        twice.insert(name);
      }
    }
    for (const std::string& name : twice) out.erase(name);
    return out;
  }
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> Instructions() const {
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;  // count, length
    for (const auto& i : v().summary["insns"]) out[i[0]] = {i[1], i[2]};
    return out;
  }

  static std::unique_ptr<TempDir> dir_;
  static std::map<bool, Variant> variants_;
  static std::map<bool, std::string> error_;
};
std::unique_ptr<TempDir> ExportConsumersTest::dir_;
std::map<bool, Variant> ExportConsumersTest::variants_;
std::map<bool, std::string> ExportConsumersTest::error_;

// --- pprof ------------------------------------------------------------------

TEST_P(ExportConsumersTest, GoToolPprofTopEqualsOurTop) {
  HWT_REQUIRE_TOOL(go, "go");
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
  HWT_REQUIRE_TOOL(node, "node");
  const std::string js = testing::SourceDir() + "/tests/js";
  if (access((js + "/node_modules/pprof-format").c_str(), R_OK) != 0) {
    if (InCi()) FAIL() << "tests/js: npm ci has not run";
    GTEST_SKIP() << "tests/js/node_modules missing (scripts/setup.sh --test)";
  }
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

// --- BOLT -------------------------------------------------------------------

// One function as llvm-bolt -print-profile prints it (blocks in input
// order, which are the YAML profile's block ids) and as -w writes it.
struct BoltFunction {
  uint64_t address = 0;
  std::vector<std::vector<uint64_t>> blocks;  // instruction offsets
  uint64_t exec = 0;                          // YAML: entry count
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint64_t>>> succ;
  bool profiled = false;  // a non-zero count in the YAML profile
};

void ReadBoltPrint(const std::string& text,
                   std::map<std::string, BoltFunction>* out) {
  const std::regex header(R"re(^Binary Function "([^"]+)" after attaching)re");
  const std::regex address(R"(^  Address +: 0x([0-9a-f]+))");
  const std::regex block(R"(^\.\S+ \(\d+ instructions)");
  const std::regex insn(R"(^    ([0-9a-f]{8}): )");
  BoltFunction* f = nullptr;
  std::smatch m;
  for (absl::string_view line_view : absl::StrSplit(text, '\n')) {
    const std::string line(line_view);
    if (std::regex_search(line, m, header)) {
      f = &(*out)[m[1]];
    } else if (f == nullptr) {
      continue;
    } else if (std::regex_search(line, m, address)) {
      f->address = std::stoull(m[1], nullptr, 16);
    } else if (std::regex_search(line, m, block)) {
      f->blocks.emplace_back();
    } else if (std::regex_search(line, m, insn) && !f->blocks.empty()) {
      f->blocks.back().push_back(std::stoull(m[1], nullptr, 16));
    } else if (absl::StartsWith(line, "End of Function")) {
      f = nullptr;
    }
  }
}

// The YAML profile's functions (the few fields compared), by name with
// BOLT's "/N" suffix of local symbols removed.
void ReadBoltYaml(const std::string& text,
                  std::map<std::string, BoltFunction>* out) {
  const std::regex name(R"(^  - name: +'?([^'/]+)(/\d+)?'?$)");
  const std::regex exec(R"(^    exec: +(\d+))");
  const std::regex bid(R"(^      - bid: +(\d+))");
  const std::regex succ(R"(^        succ: +\[(.*)\])");
  const std::regex edge(R"(bid: (\d+), cnt: (\d+))");
  const std::regex nonzero(R"((exec|cnt): +[1-9])");
  BoltFunction* f = nullptr;
  uint32_t block = 0;
  std::smatch m;
  for (absl::string_view line_view : absl::StrSplit(text, '\n')) {
    const std::string line(line_view);
    if (std::regex_search(line, m, name)) {
      f = &(*out)[m[1]];
      continue;
    }
    if (f == nullptr) continue;
    f->profiled |= std::regex_search(line, nonzero);
    if (std::regex_search(line, m, exec)) {
      f->exec = std::stoull(m[1]);
    } else if (std::regex_search(line, m, bid)) {
      block = std::stoul(m[1]);
    } else if (std::regex_search(line, m, succ)) {
      const std::string edges = m[1];
      for (std::sregex_iterator it(edges.begin(), edges.end(), edge), end;
           it != end; ++it) {
        f->succ[block].emplace_back(std::stoul((*it)[1]),
                                    std::stoull((*it)[2]));
      }
    }
  }
}

class BoltTest : public ExportConsumersTest {
 protected:
  // Runs llvm-bolt on the program with `profile_args`; checks what every
  // BOLT run must show and compares its counts with ours.
  void Optimize(const std::string& bolt,
                const std::vector<std::string>& profile_args,
                const std::string& tag) {
    const std::string out = v().file(tag + ".bolt");
    const std::string yaml = v().file(tag + ".yaml");
    std::vector<std::string> argv = {bolt, v().program};
    argv.insert(argv.end(), profile_args.begin(), profile_args.end());
    argv.insert(argv.end(),
                {"-o", out, "-reorder-blocks=ext-tsp",
                 "-reorder-functions=hfsort", "-w", yaml, "-print-profile",
                 std::string("-print-only=") + kPrintOnly});
    auto r = RunTool(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const std::string log = r.out + r.err;
    // BOLT's summary lines, for the record (docs/exports.md).
    for (absl::string_view line : absl::StrSplit(log, '\n')) {
      if (absl::StartsWith(line, "PERF2BOLT:") ||
          (absl::StartsWith(line, "BOLT-INFO:") &&
           absl::StrContains(line, "profile"))) {
        std::cout << "[" << v().name << " " << tag << "] " << line << "\n";
      }
    }
    EXPECT_FALSE(absl::StrContains(log, "stale")) << log;
    // The optimized program runs as the original did.
    auto run = RunTool({out}, 60);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, v().program_output);

    std::map<std::string, BoltFunction> printed, written;
    ReadBoltPrint(r.out, &printed);
    ReadBoltYaml(ReadText(yaml), &written);
    // Every function with self instructions in the image is profiled
    // (under one of its names), but for what BOLT cannot see: PLT entries,
    // and functions entered only from another image that branch nowhere
    // within themselves (BOLT counts no entry from outside its binary:
    // frame_dummy, called by ld.so, ending in a tail jump).
    HWT_REQUIRE_TOOL(nm, "llvm-nm-19");
    const std::map<std::string, Symbol> symbols = SymbolTable(nm, v().program);
    std::set<uint64_t> profiled;
    std::map<uint64_t, uint64_t> size_at;
    for (const auto& [name, s] : symbols) {
      size_at[s.start] = std::max(size_at[s.start], s.size);
    }
    // A symbol without a size (crtstuff's) reaches to the next one.
    for (auto it = size_at.begin(); it != size_at.end(); ++it) {
      auto next = std::next(it);
      if (it->second == 0 && next != size_at.end()) {
        it->second = next->first - it->first;
      }
    }
    for (const auto& [name, f] : written) {
      auto it = symbols.find(name);
      if (f.profiled && it != symbols.end()) profiled.insert(it->second.start);
    }
    size_t checked = 0;
    for (const auto& f : v().summary["functions"]) {
      if (!f["image"].get<bool>() || f["self"].get<uint64_t>() == 0) continue;
      const std::string name = f["name"];
      const uint64_t start = f["start"];
      if (absl::EndsWith(name, "@plt")) continue;
      const uint64_t end = start + size_at[start];
      bool visible = false;
      for (const auto& b : v().summary["branches"]) {
        const uint64_t from = b[0], to = b[1];
        visible |= to == start ||
                   (from >= start && from < end && to >= start && to < end);
      }
      if (!visible) {
        std::cout << "[" << v().name << " " << tag
                  << "] not visible to BOLT: " << name << "\n";
        continue;
      }
      ++checked;
      EXPECT_TRUE(profiled.count(start))
          << name << " has self instructions but no BOLT profile";
    }
    EXPECT_GT(checked, 4u);
    CompareCounts(printed, written);
  }

  // Block counts (the entry count plus incoming edges) and edge counts of
  // the program's functions equal ours.
  void CompareCounts(const std::map<std::string, BoltFunction>& printed,
                     const std::map<std::string, BoltFunction>& written) {
    const auto insns = Instructions();
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> taken;
    std::map<uint64_t, uint64_t> taken_from;
    for (const auto& b : v().summary["branches"]) {
      taken[{b[0], b[1]}] += b[2].get<uint64_t>();
      taken_from[b[0]] += b[2].get<uint64_t>();
    }
    auto count = [&](uint64_t a) {
      auto it = insns.find(a);
      return it == insns.end() ? uint64_t{0} : it->second.first;
    };
    for (const std::string& name : kProgramFunctions) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(printed.count(name) && written.count(name));
      const BoltFunction& p = printed.at(name);
      const BoltFunction& w = written.at(name);
      std::map<uint32_t, uint64_t> inflow = {{0, w.exec}};
      for (const auto& [from, edges] : w.succ) {
        for (const auto& [to, n] : edges) inflow[to] += n;
      }
      uint64_t edges_checked = 0;
      for (uint32_t b = 0; b < p.blocks.size(); ++b) {
        ASSERT_FALSE(p.blocks[b].empty());
        const uint64_t start = p.address + p.blocks[b].front();
        const uint64_t last = p.address + p.blocks[b].back();
        EXPECT_EQ(inflow[b], count(start)) << "block " << b;
        auto edges = w.succ.find(b);
        if (edges == w.succ.end()) continue;
        for (const auto& [to, n] : edges->second) {
          ASSERT_LT(to, p.blocks.size());
          const uint64_t target = p.address + p.blocks[to].front();
          auto insn = insns.find(last);
          const bool falls_through =
              insn != insns.end() && last + insn->second.second == target;
          const uint64_t ours =
              taken[{last, target}] +
              (falls_through ? count(last) - taken_from[last] : 0);
          EXPECT_EQ(n, ours) << "edge " << b << " -> " << to;
          ++edges_checked;
        }
      }
      if (name != "rare") EXPECT_GT(edges_checked, 0u);
    }
  }
};

TEST_P(BoltTest, ReadsThePreAggregatedProfile) {
  HWT_REQUIRE_TOOL(bolt, "llvm-bolt-19");
  Optimize(bolt, {"-p", v().file("pa"), "--pa"}, "pa");
}

// perf2bolt's route: the pre-aggregated profile aggregated into fdata
// (llvm-bolt --aggregate-only = perf2bolt), then read with -data.
TEST_P(BoltTest, ReadsTheFdataMadeFromIt) {
  HWT_REQUIRE_TOOL(bolt, "llvm-bolt-19");
  const std::string fdata = v().file("fdata");
  auto r = RunTool({bolt, v().program, "-p", v().file("pa"), "--pa",
                    "--aggregate-only", "-o", fdata});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Optimize(bolt, {"-data", fdata}, "fdata");
}

INSTANTIATE_TEST_SUITE_P(Programs, BoltTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Static" : "Dynamic";
                         });

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
  HWT_REQUIRE_TOOL(profgen, "llvm-profgen-19");
  HWT_REQUIRE_TOOL(profdata, "llvm-profdata-19");
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
  HWT_REQUIRE_TOOL(profdata, "llvm-profdata-19");
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
  HWT_REQUIRE_TOOL(nm, "llvm-nm-19");
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
  HWT_REQUIRE_TOOL(create, "create_llvm_prof");
  HWT_REQUIRE_TOOL(profdata, "llvm-profdata-19");
  const std::string made = v().file("afdo.prof");
  auto r = RunTool({create, "--profiler=text", "--profile=" + v().file("afdo"),
                    "--binary=" + v().program, "--out=" + made,
                    // Its binary writer fails on the inlined names it
                    // garbles ("Truncated function name table").
                    "--format=text"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // autofdo 0.19 names inlined functions with bytes it misreads from DWARF
  // (empty or binary names llvm-profdata rejects): its inlined call sites
  // are dropped before llvm-profdata reads the file.
  std::string cleaned;
  size_t skip_deeper_than = std::string::npos;
  for (absl::string_view line : absl::StrSplit(ReadText(made), '\n')) {
    if (line.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent > skip_deeper_than) continue;
    skip_deeper_than = std::string::npos;
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
  HWT_REQUIRE_TOOL(clang, "clang-19");
  HWT_REQUIRE_TOOL(nm, "llvm-nm-19");
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
    if (!stack.empty()) EXPECT_LE(ts + dur, stack.back().end) << e.dump();
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

TEST_P(ExportConsumersTest, SpeedscopeImportsTheChromeTrace) {
  HWT_REQUIRE_TOOL(chromium, "chromium");
  HWT_REQUIRE_TOOL(python, "python3");
  const std::string js = testing::SourceDir() + "/tests/js";
  const std::string release = js + "/node_modules/speedscope/dist/release";
  if (access(release.c_str(), R_OK) != 0) {
    if (InCi()) FAIL() << "tests/js: npm ci has not run";
    GTEST_SKIP() << "tests/js/node_modules missing (scripts/setup.sh --test)";
  }
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

INSTANTIATE_TEST_SUITE_P(Programs, ExportConsumersTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Static" : "Dynamic";
                         });

}  // namespace
}  // namespace hwt::export_test
