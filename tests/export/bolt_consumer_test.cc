// The BOLT export read by llvm-bolt, directly (pre-aggregated) and as the
// fdata perf2bolt's aggregation makes of it: the optimized program runs the
// same, no profile is stale, every function BOLT can see is profiled, and
// the block and edge counts BOLT prints and writes back (-w) equal ours.
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
#include "tests/export/testing/export_fixture.h"

namespace hwt::export_test {
namespace {

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
    HWT_REQUIRE_CONSUMER(nm, "llvm-nm-19");
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
      if (name != "rare") {
        EXPECT_GT(edges_checked, 0u);
      }
    }
  }
};

TEST_P(BoltTest, ReadsThePreAggregatedProfile) {
  HWT_REQUIRE_CONSUMER(bolt, "llvm-bolt-19");
  Optimize(bolt, {"-p", v().file("pa"), "--pa"}, "pa");
}

// perf2bolt's route: the pre-aggregated profile aggregated into fdata
// (llvm-bolt --aggregate-only = perf2bolt), then read with -data.
TEST_P(BoltTest, ReadsTheFdataMadeFromIt) {
  HWT_REQUIRE_CONSUMER(bolt, "llvm-bolt-19");
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

}  // namespace
}  // namespace hwt::export_test
