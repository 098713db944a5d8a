// Independent checks of hwt-report's counted.report.* goldens
// (hwt_report_test compares the tool with them, and HWT_UPDATE_GOLDEN
// rewrites them): the call graph text, the top tables, the hot spots (text
// and JSON), the annotated disassembly and the flame/icicle frames of the
// committed capture testdata/decode/counted.hwt are compared with what
// counted.S's hand-written execution over objdump's disassembly says they
// must be (tools/testing/counted_execution.h), and a few figures with
// counted.S's own comments. hwt_report_test checks the folded stacks,
// speedscope, the DOT call graph and the top JSON against the hand-counted
// files beside counted.S.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/testing/counted_execution.h"

namespace hwt {
namespace {

using testing::RunCommand;
using testing::SourceDir;
using testing::ToolPath;
using tools::testing::Block;
using tools::testing::CountedExecution;
using tools::testing::Frame;
using tools::testing::Insn;

std::string Capture() { return tools::testing::CountedCapture(); }
std::string ProgramImage() { return tools::testing::CountedProgramImage(); }

std::vector<std::string> Fields(absl::string_view line) {
  return absl::StrSplit(line, ' ', absl::SkipWhitespace());
}

std::string Percent(uint64_t part, uint64_t whole) {
  return absl::StrFormat("%.2f%%", 100.0 * part / whole);
}

class ReportOracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HWT_REQUIRE_TOOL("objdump");
    auto model = CountedExecution::Create(ProgramImage());
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::make_unique<CountedExecution>(std::move(*model));
    total_ = model_->trace().size();
  }

  std::string Report(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ToolPath("hwt-report")};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(Capture());
    const testing::CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  // The lines of `text` after the line starting with `title`, up to the
  // next empty line, without the column header.
  static std::vector<std::string> Section(const std::string& text,
                                          const std::string& title) {
    std::vector<std::string> lines = absl::StrSplit(text, '\n');
    std::vector<std::string> out;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) {
      return absl::StartsWith(l, title);
    });
    EXPECT_NE(it, lines.end()) << title;
    if (it == lines.end()) return out;
    ++it;  // the title
    while (it != lines.end() && it->empty()) ++it;
    if (it != lines.end()) ++it;  // the column header
    for (; it != lines.end() && !it->empty(); ++it) out.push_back(*it);
    return out;
  }

  std::unique_ptr<CountedExecution> model_;
  uint64_t total_ = 0;
};

// An indented tree ("  name" under its parent) as "a;b;c" -> the fields
// before the name.
// An indented tree (each level two more spaces before the name, the last
// field) as "a;b;c" -> the `value_fields` fields before the name.
std::map<std::string, std::string> IndentedTree(
    const std::vector<std::string>& rows, size_t value_fields) {
  std::map<std::string, std::string> out;
  std::vector<std::string> path;
  size_t root_column = std::string::npos;
  for (const std::string& row : rows) {
    const std::vector<std::string> f = Fields(row);
    EXPECT_EQ(f.size(), value_fields + 1) << row;
    if (f.size() != value_fields + 1) continue;
    const size_t column = row.size() - f.back().size();
    if (root_column == std::string::npos) root_column = column;
    path.resize((column - root_column) / 2);
    path.push_back(f.back());
    out[absl::StrJoin(path, ";")] =
        absl::StrJoin(f.begin(), f.begin() + value_fields, " ");
  }
  return out;
}

// --callgraph: the top-down tree is the model's call tree (total, self,
// calls per path); the bottom-up tree gives each function's self
// instructions and, under it, how many came through each chain of callers.
TEST_F(ReportOracleTest, CallGraphTextIsTheModelsTree) {
  const std::string text = Report({"--callgraph"});
  std::map<std::string, std::string> want;
  want["all"] = absl::StrCat(Percent(total_, total_), " ", total_, " 0 -");
  for (const auto& [path, f] : model_->tree()) {
    // The listing puts "all" and _start at the same indentation.
    want[path] = absl::StrCat(
        Percent(f.total, total_), " ", f.total, " ", f.self, " ",
        path.find(';') == std::string::npos ? "-" : std::to_string(f.calls));
  }
  EXPECT_EQ(IndentedTree(Section(text, "Top-down call tree"), 4), want);

  std::map<std::string, uint64_t> bottom_up;  // "leaf;outer;_start" -> self
  for (const auto& [path, f] : model_->tree()) {
    std::vector<std::string> names = absl::StrSplit(path, ';');
    std::reverse(names.begin(), names.end());
    for (size_t k = 1; k <= names.size(); ++k) {
      bottom_up[absl::StrJoin(names.begin(), names.begin() + k, ";")] += f.self;
    }
  }
  std::map<std::string, std::string> want_up;
  for (const auto& [chain, self] : bottom_up) {
    if (self > 0) {
      want_up[chain] = absl::StrCat(Percent(self, total_), " ", self);
    }
  }
  // "self%  self  function / called from"; callers are "<- name".
  std::vector<std::string> rows = Section(text, "Bottom-up");
  for (std::string& row : rows) {
    row = absl::StrReplaceAll(row, {{"<- ", ""}});
  }
  EXPECT_EQ(IndentedTree(rows, 2), want_up);
}

// --top: self, total and calls per function, and their shares.
TEST_F(ReportOracleTest, TopTablesHaveTheModelsFunctions) {
  const std::map<std::string, uint64_t> self = model_->SelfByFunction();
  const std::map<std::string, uint64_t> total = model_->TotalByFunction();
  std::map<std::string, uint64_t> calls = model_->CallsByFunction();
  std::map<std::string, std::string> want;
  for (const auto& [function, s] : self) {
    want[function] =
        absl::StrCat(s, " ", Percent(s, total_), " ", total.at(function), " ",
                     Percent(total.at(function), total_), " ", calls[function]);
  }
  const std::string text = Report({"--top", "10"});
  std::map<std::string, std::string> got;
  for (const std::string& row : Section(text, "Functions by self")) {
    const std::vector<std::string> f = Fields(row);
    ASSERT_EQ(f.size(), 7u) << row;
    EXPECT_EQ(f[6], "counted_static");
    got[f[5]] = absl::StrJoin(f.begin(), f.begin() + 5, " ");
  }
  EXPECT_EQ(got, want);
  // Sorted by self, then by total.
  auto order = [&](const std::string& title, size_t column) {
    std::vector<uint64_t> values;
    for (const std::string& row : Section(text, title)) {
      uint64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(Fields(row)[column], &v));
      values.push_back(v);
    }
    EXPECT_TRUE(std::is_sorted(values.rbegin(), values.rend())) << title;
    EXPECT_EQ(values.size(), self.size()) << title;
  };
  order("Functions by self", 0);
  order("Functions by total", 0);

  const nlohmann::json json =
      nlohmann::json::parse(Report({"--top", "10", "--format", "json"}));
  for (const auto& row : json["by_self"]) {
    const std::string f = row["function"];
    EXPECT_EQ(row["calls"], calls[f]) << f;
    EXPECT_EQ(row["self"], self.at(f)) << f;
    EXPECT_EQ(row["total"], total.at(f)) << f;
  }
}

// Blocks as the hot table groups them: by first instruction, last
// instruction and kind.
struct HotBlock {
  uint64_t executions = 0;
  int size = 0;
};
std::map<std::string, HotBlock> HotBlocks(const CountedExecution& model) {
  std::map<std::string, HotBlock> out;
  for (const Block& b : model.blocks()) {
    HotBlock& h = out[absl::StrFormat("%s (0x%x) %s", b.first->Name(),
                                      b.first->address, b.kind)];
    ++h.executions;
    h.size = b.instructions;
  }
  return out;
}

// --hot: blocks (executions, size, instructions), conditional branches
// (taken / not taken), taken branches (from -> to), call paths (the model's
// stacks) and loops (counted.S's comments: .Lloop runs 3 times, jnz taken
// twice; .Lspin 4 times, loop taken 3 times).
TEST_F(ReportOracleTest, HotSpotsAreTheModels) {
  const std::string text = Report({"--hot", "--rows", "0"});
  std::map<std::string, std::string> want_blocks;
  for (const auto& [key, h] : HotBlocks(*model_)) {
    const uint64_t insns = h.executions * static_cast<uint64_t>(h.size);
    want_blocks[key] = absl::StrCat(insns, " ", Percent(insns, total_), " ",
                                    h.executions, " ", h.size);
  }
  std::map<std::string, std::string> got_blocks;
  for (const std::string& row : Section(text, "Hot blocks")) {
    const std::vector<std::string> f = Fields(row);
    ASSERT_EQ(f.size(), 7u) << row;
    got_blocks[absl::StrJoin({f[4], f[5], f[6]}, " ")] =
        absl::StrJoin(f.begin(), f.begin() + 4, " ");
  }
  EXPECT_EQ(got_blocks, want_blocks);

  std::map<std::string, std::string> want_cond;
  std::map<uint64_t, uint64_t> counts = model_->InstructionCounts();
  for (const auto& [address, taken] : model_->TakenCounts()) {
    const Insn* insn = model_->At(address);
    const uint64_t n = counts[address];
    want_cond[absl::StrFormat("%s (0x%x)", insn->Name(), address)] =
        absl::StrFormat("%u %u %u %.1f%%", n, taken, n - taken,
                        100.0 * taken / n);
  }
  std::map<std::string, std::string> got_cond;
  for (const std::string& row : Section(text, "Conditional branches")) {
    const std::vector<std::string> f = Fields(row);
    ASSERT_EQ(f.size(), 6u) << row;
    got_cond[f[4] + " " + f[5]] = absl::StrJoin(f.begin(), f.begin() + 4, " ");
  }
  EXPECT_EQ(got_cond, want_cond);

  std::map<std::string, uint64_t> taken;  // "kind from -> to"
  for (const Block& b : model_->blocks()) {
    if (b.next == 0 || b.kind == "cond-not-taken") continue;
    ++taken[absl::StrCat(b.kind, " ", b.last->Name(), " -> ",
                         model_->At(b.next)->Name())];
  }
  std::map<std::string, uint64_t> got_taken;
  for (const std::string& row : Section(text, "Taken branches")) {
    const std::vector<std::string> f = Fields(row);
    ASSERT_EQ(f.size(), 5u) << row;
    uint64_t n = 0;
    ASSERT_TRUE(absl::SimpleAtoi(f[0], &n));
    got_taken[absl::StrJoin(f.begin() + 1, f.end(), " ")] = n;
  }
  EXPECT_EQ(got_taken, taken);

  std::map<std::string, std::string> want_paths;
  for (const auto& [path, f] : model_->tree()) {
    if (f.self == 0) continue;
    want_paths[absl::StrReplaceAll(path, {{";", " > "}})] =
        absl::StrCat(f.self, " ", Percent(f.self, total_));
  }
  std::map<std::string, std::string> got_paths;
  for (const std::string& row : Section(text, "Hot call paths")) {
    const std::vector<std::string> f = Fields(row);
    got_paths[absl::StrJoin(f.begin() + 2, f.end(), " ")] = f[0] + " " + f[1];
  }
  EXPECT_EQ(got_paths, want_paths);

  // Loops: the header is the back edge's target, the range runs to the
  // instruction after the back edge; instructions are the loop's own.
  const Insn* jnz = nullptr;
  const Insn* loop = nullptr;
  for (const auto& [address, n] : model_->TakenCounts()) {
    const Insn* insn = model_->At(address);
    if (insn->mnemonic == "jne") jnz = insn;
    if (insn->mnemonic == "loop") loop = insn;
  }
  ASSERT_NE(jnz, nullptr);
  ASSERT_NE(loop, nullptr);
  auto loop_row = [&](const Insn* back_edge, int passes, int body) {
    const Insn* header = model_->At(back_edge->target);
    const uint64_t insns = static_cast<uint64_t>(passes * body);
    return absl::StrFormat("%u %s 1 %d %.1f %s (0x%x-0x%x)", insns,
                           Percent(insns, total_), passes - 1, passes * 1.0,
                           header->Name(), header->address, back_edge->next());
  };
  // .Lloop: call leaf, dec, jnz; .Lspin: nop, loop.
  const std::vector<std::string> want_loops = {loop_row(jnz, 3, 3),
                                               loop_row(loop, 4, 2)};
  std::vector<std::string> got_loops;
  for (const std::string& row : Section(text, "Loops")) {
    got_loops.push_back(absl::StrJoin(Fields(row), " "));
  }
  EXPECT_EQ(got_loops, want_loops);
}

// --hot --format json: the same blocks, with their last instruction.
TEST_F(ReportOracleTest, HotJsonBlocksAreTheModels) {
  std::map<std::string, std::string> want;
  for (const Block& b : model_->blocks()) {
    const HotBlock h = HotBlocks(*model_).at(absl::StrFormat(
        "%s (0x%x) %s", b.first->Name(), b.first->address, b.kind));
    want[absl::StrFormat("0x%x %s", b.first->address, b.kind)] =
        absl::StrFormat("%s %s %d x%u", b.first->Name(), b.last->Name(),
                        b.instructions, h.executions);
  }
  const nlohmann::json json = nlohmann::json::parse(
      Report({"--hot", "--rows", "0", "--format", "json"}));
  std::map<std::string, std::string> got;
  uint64_t instructions = 0;
  for (const auto& b : json["blocks"]) {
    const std::string key = absl::StrCat(b["address"].get<std::string>(), " ",
                                         b["end"].get<std::string>());
    got[key] = absl::StrCat(b["name"].get<std::string>(), " ",
                            b["last"].get<std::string>(), " ",
                            b["instructions_per_execution"].get<int>(), " x",
                            b["executions"].get<uint64_t>());
    EXPECT_EQ(b["instructions"].get<uint64_t>(),
              b["executions"].get<uint64_t>() *
                  b["instructions_per_execution"].get<uint64_t>())
        << key;
    instructions += b["instructions"].get<uint64_t>();
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(instructions, total_);
}

// --annotate: every instruction of rec and special (objdump's), with its
// execution count ('.' when never run) and the conditional branches'
// taken / not taken counts; the header's figures.
TEST_F(ReportOracleTest, AnnotationCountsAreTheModels) {
  HWT_REQUIRE_TOOL("nm");
  const std::string text = Report({"--annotate", "^(rec|special)$"});
  const std::map<uint64_t, uint64_t> counts = model_->InstructionCounts();
  const std::map<uint64_t, uint64_t> taken = model_->TakenCounts();
  const std::map<std::string, uint64_t> self = model_->SelfByFunction();
  const std::map<std::string, uint64_t> calls = model_->CallsByFunction();
  // Symbol sizes from binutils' nm.
  const testing::CommandResult nm =
      RunCommand({"nm", "-S", "--defined-only", ProgramImage()});
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  std::map<std::string, std::pair<uint64_t, uint64_t>> symbols;
  for (absl::string_view line : absl::StrSplit(nm.out, '\n')) {
    const std::vector<std::string> f = Fields(line);
    uint64_t start = 0, size = 0;
    if (f.size() == 4 && absl::SimpleHexAtoi(f[0], &start) &&
        absl::SimpleHexAtoi(f[1], &size)) {
      symbols[f[3]] = {start, size};
    }
  }
  for (const std::string function : {"special", "rec"}) {
    SCOPED_TRACE(function);
    const auto [start, size] = symbols.at(function);
    const uint64_t n = self.at(function);
    const std::string header =
        absl::StrFormat("%s (counted_static) 0x%x-0x%x, %u bytes", function,
                        start, start + size, size);
    const std::string summary = absl::StrFormat(
        "  %u instructions executed here (%s of %u); entered by %u call%s; "
        "self %u, total %u",
        n, Percent(n, total_), total_, calls.at(function),
        calls.at(function) == 1 ? "" : "s", n, n);
    std::vector<std::string> lines = absl::StrSplit(text, '\n');
    auto at = std::find(lines.begin(), lines.end(), header);
    ASSERT_NE(at, lines.end()) << header;
    EXPECT_EQ(*(at + 1), summary);
    // The instruction rows: "count share addr: text [taken ...]".
    std::vector<std::string> got, want;
    // After the summary, a blank line and the column header.
    for (auto row = at + 4; row != lines.end() && !row->empty(); ++row) {
      const std::vector<std::string> f = Fields(*row);
      const bool ran = f[0] != ".";
      std::string g = ran ? f[0] + " " + f[2] : ". " + f[1];
      const size_t t = row->find("taken ");
      if (t != std::string::npos) {
        const std::vector<std::string> tf = Fields(row->substr(t));
        g += " " + tf[1] + absl::StrCat(" ", tf[4]);  // "3," and "1"
      }
      got.push_back(g);
    }
    for (uint64_t a = start; a < start + size;) {
      const Insn* insn = model_->At(a);
      ASSERT_NE(insn, nullptr) << std::hex << a;
      auto c = counts.find(a);
      std::string w = c == counts.end()
                          ? absl::StrFormat(". %x:", a)
                          : absl::StrFormat("%u %x:", c->second, a);
      if (insn->IsConditional()) {
        const uint64_t t = taken.at(a);
        w += absl::StrFormat(" %u, %u", t, c->second - t);
      }
      want.push_back(w);
      a = insn->next();
    }
    EXPECT_EQ(got, want);
  }
}

// --flame --icicle (and --flame): each frame's width is its path's total
// in the model, its title names the calls into it.
TEST_F(ReportOracleTest, FlameFramesAreTheModelsTree) {
  std::map<std::string, std::string> want;
  want["all"] =
      absl::StrFormat("%u (%u instructions, 100.00%%)", total_, total_);
  for (const auto& [path, f] : model_->tree()) {
    const std::string name = path.substr(path.rfind(';') + 1);
    const std::string calls =
        f.calls == 0
            ? ""
            : absl::StrFormat(", %u call%s", f.calls, f.calls == 1 ? "" : "s");
    want["all;" + path] =
        absl::StrFormat("%u (%u instructions, %s%s, counted_static)", f.total,
                        f.total, Percent(f.total, total_), calls);
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--flame", "--icicle", "--title", "Counted"},
        std::vector<std::string>{"--flame"}}) {
    const std::string svg = Report(args);
    std::map<std::string, std::string> got;
    std::vector<std::string> path;
    for (size_t at = svg.find("<g class=\"f"); at != std::string::npos;
         at = svg.find("<g class=\"f", at + 1)) {
      auto attribute = [&](const std::string& name) {
        const size_t a = svg.find(name + "=\"", at) + name.size() + 2;
        return svg.substr(a, svg.find('"', a) - a);
      };
      const size_t t = svg.find("<title>", at) + 7;
      const std::string title = svg.substr(t, svg.find("</title>", t) - t);
      int depth = 0;
      ASSERT_TRUE(absl::SimpleAtoi(attribute("data-d"), &depth));
      path.resize(depth);
      path.push_back(title.substr(0, title.find(' ')));
      got[absl::StrJoin(path, ";")] =
          attribute("data-v") + " " + title.substr(title.find(' ') + 1);
    }
    EXPECT_EQ(got, want) << args[0];
  }
}

// --range filters by trace offset, as the blocks listing shows it: the
// instructions of the blocks listed at offsets in [a, b). (The 28 of
// hwt_report_test: 0x30-0x3a holds the TNT packets at 0x36 and 0x38, where
// libipt, fetching ahead, places the 14 blocks from leaf2's return to rec's
// second jz: 2 + 26 instructions.)
TEST_F(ReportOracleTest, RangeKeepsTheBlocksListedInIt) {
  const testing::CommandResult blocks =
      RunCommand({ToolPath("hwt-decode"), "--blocks", Capture()});
  ASSERT_EQ(blocks.exit_code, 0) << blocks.err;
  std::vector<std::pair<uint64_t, uint64_t>> listed;  // offset, instructions
  for (absl::string_view line : absl::StrSplit(blocks.out, '\n')) {
    const std::vector<std::string> f = Fields(line);
    uint64_t offset = 0, n = 0;
    if (f.size() == 5 && absl::SimpleHexAtoi(f[0], &offset) &&
        absl::SimpleAtoi(f[2], &n)) {
      listed.push_back({offset, n});
    }
  }
  ASSERT_EQ(listed.size(), model_->blocks().size());
  for (uint64_t a : {0x27, 0x30, 0x36, 0x38, 0x3d}) {
    for (uint64_t b : {0x38, 0x3a, 0x41}) {
      if (b <= a) continue;
      uint64_t want = 0;
      for (const auto& [offset, n] : listed) {
        if (offset >= a && offset < b) want += n;
      }
      uint64_t got = 0;
      const std::string folded =
          Report({"--folded", "--range", absl::StrFormat("0x%x:0x%x", a, b)});
      for (absl::string_view line : absl::StrSplit(folded, '\n')) {
        uint64_t n = 0;
        if (!line.empty() &&
            absl::SimpleAtoi(line.substr(line.rfind(' ') + 1), &n)) {
          got += n;
        }
      }
      EXPECT_EQ(got, want) << std::hex << a << ":" << b;
    }
  }
}

}  // namespace
}  // namespace hwt
