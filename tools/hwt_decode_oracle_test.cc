// Independent checks of hwt-decode's counted.* goldens (hwt_decode_test
// compares the tool with them, and HWT_UPDATE_GOLDEN rewrites them): every
// listing of the committed capture testdata/decode/counted.hwt is compared
// here with what counted.S's hand-written execution, laid over objdump's
// disassembly of the recorded image, says it must be
// (tools/testing/counted_execution.h). The model is first checked against
// the hand counts committed beside counted.S.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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
using tools::testing::Insn;

std::string Capture() { return tools::testing::CountedCapture(); }
std::string ProgramImage() { return tools::testing::CountedProgramImage(); }

class DecodeOracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HWT_REQUIRE_TOOL("objdump");
    auto model = CountedExecution::Create(ProgramImage());
    ASSERT_TRUE(model.ok()) << model.status();
    model_ = std::make_unique<CountedExecution>(std::move(*model));
  }

  // hwt-decode ARGS on the capture; its output lines.
  std::vector<std::string> Decode(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ToolPath("hwt-decode")};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(Capture());
    const testing::CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  }

  std::unique_ptr<CountedExecution> model_;
};

std::vector<std::string> Fields(const std::string& line) {
  return absl::StrSplit(line, ' ', absl::SkipWhitespace());
}

uint64_t HexField(const std::string& text) {
  uint64_t v = 0;
  EXPECT_TRUE(absl::SimpleHexAtoi(text, &v)) << text;
  return v;
}

std::map<std::string, std::string> HandFile(const std::string& name,
                                            int value_fields) {
  auto text = ReadFileToString(SourceDir() + "/testdata/programs/" + name);
  EXPECT_TRUE(text.ok()) << text.status();
  std::map<std::string, std::string> out;
  for (absl::string_view line :
       absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
    std::vector<std::string> f = Fields(std::string(line));
    std::string key, value;
    for (size_t i = 0; i < f.size(); ++i) {
      std::string& part = i + value_fields < f.size() ? key : value;
      absl::StrAppend(&part, part.empty() ? "" : " ", f[i]);
    }
    out[key] = value;
  }
  return out;
}

// The model reproduces the hand counts committed with counted.S (79
// instructions, per function self and total, the call edges, the stacks).
TEST_F(DecodeOracleTest, ModelMatchesTheHandCounts) {
  EXPECT_EQ(model_->trace().size(), 79u);
  const std::map<std::string, uint64_t> self = model_->SelfByFunction();
  std::map<std::string, std::string> functions;
  for (const auto& [function, total] : model_->TotalByFunction()) {
    functions[function] = absl::StrCat(self.at(function), " ", total);
  }
  EXPECT_EQ(functions, HandFile("counted.functions", 2));
  std::map<std::string, std::string> folded;
  for (const auto& [path, frame] : model_->tree()) {
    if (frame.self > 0) folded[path] = std::to_string(frame.self);
  }
  std::map<std::string, std::string> hand_folded;
  for (const auto& [key, value] : HandFile("counted.folded", 1)) {
    hand_folded[key] = value;
  }
  EXPECT_EQ(folded, hand_folded);
  std::map<std::string, uint64_t> edges;
  for (const Block& b : model_->blocks()) {
    if (b.last->IsCall()) {
      ++edges[b.last->function + " " + model_->At(b.next)->function];
    }
  }
  std::map<std::string, std::string> edge_text;
  for (const auto& [edge, n] : edges) edge_text[edge] = std::to_string(n);
  EXPECT_EQ(edge_text, HandFile("counted.edges", 1));
}

// --insn (text and JSON lines): the 79 instructions in execution order,
// each named function+offset as objdump places it.
TEST_F(DecodeOracleTest, InstructionListingsFollowTheExecution) {
  std::vector<std::string> want;
  for (const Insn* insn : model_->trace()) {
    want.push_back(absl::StrFormat("%016x %s", insn->address, insn->Name()));
  }
  std::vector<std::string> text;
  for (const std::string& line : Decode({"--insn"})) {
    if (line.find('[') != std::string::npos) continue;
    const std::vector<std::string> f = Fields(line);
    ASSERT_GE(f.size(), 3u) << line;
    text.push_back(f[0] + " " + f[1]);
  }
  EXPECT_EQ(text, want);
  std::vector<std::string> json;
  for (const std::string& line : Decode({"--insn", "--format", "json"})) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (!j.contains("insn")) continue;
    const uint64_t ip = HexField(j["ip"].get<std::string>());
    const Insn* insn = model_->At(ip);
    ASSERT_NE(insn, nullptr) << line;
    EXPECT_EQ(j["function"], insn->Name()) << line;
    json.push_back(absl::StrFormat("%016x %s", ip, insn->Name()));
  }
  EXPECT_EQ(json, want);
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The packets' offsets, as --packets lists them.
std::set<uint64_t> PacketOffsets(const std::vector<std::string>& packets) {
  std::set<uint64_t> offsets;
  for (const std::string& line : packets) {
    offsets.insert(HexField(Fields(line)[0]));
  }
  return offsets;
}

// --blocks: the model's 38 blocks (start, last instruction, count, kind,
// name); each at the offset of a packet of the trace (or its end, 0x40, for
// the syscall's block, decoded after the last packet), in trace order.
TEST_F(DecodeOracleTest, BlockListingHasTheModelsBlocks) {
  std::vector<std::string> want;
  for (const Block& b : model_->blocks()) {
    want.push_back(absl::StrFormat("%016x-%016x %d %s %s", b.first->address,
                                   b.last->address, b.instructions, b.kind,
                                   b.first->Name()));
  }
  ASSERT_EQ(want.size(), 38u);
  std::set<uint64_t> packets = PacketOffsets(Decode({"--packets"}));
  packets.insert(FileSize(Capture() + "/buffers/0.bin"));
  std::vector<std::string> got;
  uint64_t last_offset = 0;
  for (const std::string& line : Decode({"--blocks"})) {
    if (line.find('[') != std::string::npos) continue;
    const std::vector<std::string> f = Fields(line);
    ASSERT_EQ(f.size(), 5u) << line;
    const uint64_t offset = HexField(f[0]);
    EXPECT_TRUE(packets.count(offset)) << line;
    EXPECT_GE(offset, last_offset) << line;
    last_offset = offset;
    got.push_back(absl::StrJoin({f[1], f[2], f[3], f[4]}, " "));
  }
  EXPECT_EQ(got, want);
}

// --branches: from each block's last instruction to where execution went
// next, with the block's kind; the final syscall leaves the trace ("?").
TEST_F(DecodeOracleTest, BranchListingHasTheModelsBranches) {
  std::vector<std::string> want;
  for (const Block& b : model_->blocks()) {
    if (b.next == 0) {
      want.push_back(absl::StrFormat("%016x ? %s %s", b.last->address, b.kind,
                                     b.last->Name()));
    } else {
      want.push_back(absl::StrFormat("%016x %016x %s %s %s", b.last->address,
                                     b.next, b.kind, b.last->Name(),
                                     model_->At(b.next)->Name()));
    }
  }
  std::vector<std::string> got;
  for (const std::string& line : Decode({"--branches"})) {
    std::vector<std::string> f = Fields(line);
    f.erase(std::remove(f.begin(), f.end(), "->"), f.end());
    f.erase(f.begin());  // the offset
    got.push_back(absl::StrJoin(f, " "));
  }
  EXPECT_EQ(got, want);
}

// --calls: one line per entered function, indented two spaces per depth.
TEST_F(DecodeOracleTest, CallListingHasTheModelsCalls) {
  std::vector<std::string> want;
  for (const auto& [depth, name] : model_->calls()) {
    want.push_back(std::string(2 * depth, ' ') + name);
  }
  ASSERT_EQ(want.size(), 13u);  // _start and its 12 executed calls
  std::vector<std::string> got;
  for (const std::string& line : Decode({"--calls"})) {
    ASSERT_GT(line.size(), 10u) << line;
    got.push_back(line.substr(10));  // after "0000002d  "
  }
  EXPECT_EQ(got, want);
}

// --stats (text and JSON): the model's instructions and blocks, the buffer
// file's size decoded whole, no error.
TEST_F(DecodeOracleTest, StatisticsHaveTheModelsFigures) {
  const uint64_t bytes = FileSize(Capture() + "/buffers/0.bin");
  ASSERT_EQ(bytes, 64u);
  const uint64_t insns = model_->trace().size();
  const uint64_t blocks = model_->blocks().size();
  std::vector<std::string> json_lines = Decode({"--stats", "--format", "json"});
  const nlohmann::json stats =
      nlohmann::json::parse(absl::StrJoin(json_lines, "\n"));
  for (const nlohmann::json* s : {&stats["total"], &stats["streams"][0]}) {
    EXPECT_EQ((*s)["instructions"], insns);
    EXPECT_EQ((*s)["blocks"], blocks);
    EXPECT_EQ((*s)["trace_bytes"], bytes);
    EXPECT_EQ((*s)["bytes_decoded"], bytes);
    EXPECT_EQ((*s)["bytes_lost"], 0);
    EXPECT_EQ((*s)["errors"], 0);
    EXPECT_EQ((*s)["overflows"], 0);
  }
  // Text: "NAME  VALUE ..." lines, NAME being the words before the first
  // number.
  std::map<std::string, std::string> text;
  for (const std::string& line : Decode({"--stats"})) {
    std::vector<std::string> words;
    for (const std::string& f : Fields(line)) {
      double number = 0;
      if (absl::SimpleAtod(f, &number)) {
        text[absl::StrJoin(words, " ")] = f;
        break;
      }
      words.push_back(f);
    }
  }
  EXPECT_EQ(text["instructions"], std::to_string(insns));
  EXPECT_EQ(text["blocks"], std::to_string(blocks));
  EXPECT_EQ(text["trace bytes"], std::to_string(bytes));
  EXPECT_EQ(text["errors"], "0");
  EXPECT_EQ(text["instructions per trace byte"],
            absl::StrFormat("%.2f", static_cast<double>(insns) / bytes));
}

// Size of a PT packet from its listed name (Intel SDM vol. 3, "Packet
// Definitions"); IP packets by their IPBytes field: 0, 2, 4, 6, 6 or 8
// bytes of payload.
int PacketSize(const std::vector<std::string>& f) {
  const std::string& kind = f[1];
  if (kind == "psb") return 16;
  if (kind == "tsc") return 8;
  if (kind == "tma") return 7;
  if (kind == "cbr") return 4;
  if (kind == "psbend" || kind == "mode.exec" || kind == "mtc") return 2;
  if (kind == "cyc" || absl::StartsWith(kind, "tnt.8")) return 1;
  if (absl::StartsWith(kind, "tip")) {
    const int ip_bytes[] = {0, 2, 4, 6, 6, -1, 8, -1};
    return 1 + ip_bytes[f[2][0] - '0'];
  }
  return -1;
}

// --packets: packets back to back over the 64 bytes, each of its SDM size;
// the TNT bits are the model's conditional branches and (compressed)
// returns, in order; TIP.PGE enters at _start, the one TIP is the indirect
// call's target, TIP.PGD is the syscall leaving user space.
TEST_F(DecodeOracleTest, PacketListingCarriesTheModelsBranches) {
  const std::vector<std::string> packets = Decode({"--packets"});
  uint64_t expected_offset = 0;
  std::string tnt;
  std::vector<std::string> tips;
  for (const std::string& line : packets) {
    const std::vector<std::string> f = Fields(line);
    ASSERT_GE(f.size(), 2u) << line;
    EXPECT_EQ(HexField(f[0]), expected_offset) << line;
    const int size = PacketSize(f);
    ASSERT_GT(size, 0) << line;
    expected_offset += static_cast<uint64_t>(size);
    if (absl::StartsWith(f[1], "tnt")) tnt += f[2];
    if (absl::StartsWith(f[1], "tip")) tips.push_back(f[1] + " " + f.back());
    if (f[1] == "mode.exec") {
      EXPECT_EQ(f[2], "cs.l");  // 64-bit code
    }
  }
  EXPECT_EQ(expected_offset, FileSize(Capture() + "/buffers/0.bin"));
  EXPECT_EQ(tnt, model_->TntBits());
  EXPECT_EQ(tnt.size(), 24u);  // 12 conditional branches, 12 returns
  ASSERT_EQ(model_->IndirectTargets().size(), 1u);
  // IP compression: the listing shows the bytes each packet carries.
  EXPECT_EQ(tips, (std::vector<std::string>{
                      absl::StrFormat("tip.pge ????????%08x",
                                      model_->trace().front()->address),
                      absl::StrFormat("tip ????????????%04x",
                                      model_->IndirectTargets()[0] & 0xffff),
                      "tip.pgd ????????????????"}));
}

}  // namespace
}  // namespace hwt
