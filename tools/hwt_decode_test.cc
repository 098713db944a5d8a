// Runs hwt-decode as a user would and compares every mode's output with golden
// files beside the committed capture testdata/decode/counted.hwt (a recording
// of testdata/programs/counted.S, whose 79 instructions are counted by hand in
// its comments). HWT_UPDATE_GOLDEN=1 rewrites the golden files.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_replace.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
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

void ExpectGolden(const std::string& output, const std::string& name) {
  std::string text = absl::StrReplaceAll(output, {{Capture(), "INPUT"}});
  testing::ExpectMatchesGolden(text, Golden(name));
}

class HwtDecodeGoldenTest
    : public ::testing::TestWithParam<
          std::pair<std::vector<std::string>, std::string>> {};

TEST_P(HwtDecodeGoldenTest, MatchesGolden) {
  std::vector<std::string> argv = {ToolPath("hwt-decode")};
  for (const auto& arg : GetParam().first) argv.push_back(arg);
  argv.push_back(Capture());
  auto result = RunCommand(argv);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  ExpectGolden(result.out, GetParam().second);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, HwtDecodeGoldenTest,
    ::testing::Values(
        std::make_pair(std::vector<std::string>{}, "counted.stats.txt"),
        std::make_pair(std::vector<std::string>{"--stats", "--format", "json"},
                       "counted.stats.json"),
        std::make_pair(std::vector<std::string>{"--packets"},
                       "counted.packets.txt"),
        std::make_pair(std::vector<std::string>{"--insn"}, "counted.insn.txt"),
        std::make_pair(std::vector<std::string>{"--insn", "--format", "json"},
                       "counted.insn.jsonl"),
        std::make_pair(std::vector<std::string>{"--blocks"},
                       "counted.blocks.txt"),
        std::make_pair(std::vector<std::string>{"--branches"},
                       "counted.branches.txt"),
        std::make_pair(std::vector<std::string>{"--calls"},
                       "counted.calls.txt")),
    [](const auto& info) {
      std::string name = info.param.second;
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

// The instruction listing has exactly the 79 instructions counted.S's
// comments add up to (plus the enable/exec-mode/disable event lines).
TEST(HwtDecodeTest, InstructionListingHasTheHandCountedInstructions) {
  auto result = RunCommand({ToolPath("hwt-decode"), "--insn", Capture()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  int instructions = 0;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find('[') == std::string::npos) ++instructions;
  }
  EXPECT_EQ(instructions, 79);
}

// The scripted form from the issue: a raw trace with its CPU and image.
TEST(HwtDecodeTest, RawTraceWithCpuAndImage) {
  auto manifest = ReadFileToString(Capture() + "/manifest.json");
  ASSERT_TRUE(manifest.ok());
  auto json = nlohmann::json::parse(*manifest);
  std::string image;
  for (const auto& entry : json["images"]) {
    if (entry["original_path"].get<std::string>().find("counted_static") !=
        std::string::npos) {
      image = Capture() + "/" + entry["file"].get<std::string>();
    }
  }
  ASSERT_FALSE(image.empty());
  auto result = RunCommand({ToolPath("hwt-decode"), "--stats", "--format",
                            "json", "--cpu", "6/85/4", "--image", image,
                            Capture() + "/buffers/0.bin"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto stats = nlohmann::json::parse(result.out);
  EXPECT_EQ(stats["total"]["instructions"], 79);
  EXPECT_EQ(stats["total"]["errors"], 0);
  EXPECT_EQ(stats["total"]["bytes_lost"], 0);
  EXPECT_EQ(stats["backend"], "pt");
}

TEST(HwtDecodeTest, CorruptTraceExitsOneAndReportsTheOffset) {
  auto dir = TempDir::Create("hwt-decode-test");
  ASSERT_TRUE(dir.ok());
  auto trace = ReadFileToString(Capture() + "/buffers/0.bin");
  ASSERT_TRUE(trace.ok());
  std::string corrupt = *trace;
  // Garbage after the first PSB+ (an undefined opcode stream).
  for (size_t i = 0x30; i < 0x38 && i < corrupt.size(); ++i)
    corrupt[i] = '\xd9';
  std::string path = dir->path() + "/corrupt.pt";
  ASSERT_TRUE(WriteFileAtomically(path, corrupt).ok());
  auto result = RunCommand({ToolPath("hwt-decode"), "--stats", "--format",
                            "json", "--cpu", "6/85/4", path});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  auto stats = nlohmann::json::parse(result.out);
  EXPECT_GE(stats["total"]["errors"].get<int>(), 1);
  ASSERT_FALSE(stats["streams"][0]["error_list"].empty());
  // libipt reports an error at the packet it was consuming when it noticed:
  // the TNT at 0x2d whose branch needed the corrupted TIP at 0x2f.
  const int offset = stats["streams"][0]["error_list"][0]["offset"];
  EXPECT_GE(offset, 0x27);
  EXPECT_LT(offset, 0x40);
  // Every byte is accounted for.
  EXPECT_EQ(stats["total"]["trace_bytes"].get<uint64_t>(),
            stats["total"]["bytes_decoded"].get<uint64_t>() +
                stats["total"]["bytes_lost"].get<uint64_t>());
}

// --stats --fast: the hand-counted 79 instructions, as the full decode
// counts them; no block count; the same exit status for a corrupt trace.
// --stats decodes on the fast engine by default: every statistic (blocks
// and the error list included) is libipt's, and a note says how much went
// which way. The demo walks 9 of its 10 segments; a corrupt copy of the
// counted program's trace has errors, which the fast engine leaves to libipt.
TEST(HwtDecodeTest, StatsOnTheFastEngineAreLibiptsStats) {
  auto dir = TempDir::Create("hwt-decode-test");
  ASSERT_TRUE(dir.ok());
  const std::string demo = SourceDir() + "/testdata/demo.hwt";
  auto trace = ReadFileToString(Capture() + "/buffers/0.bin");
  ASSERT_TRUE(trace.ok());
  std::string corrupt = *trace;
  for (size_t i = 0x30; i < 0x38 && i < corrupt.size(); ++i) {
    corrupt[i] = '\xd9';
  }
  const std::string corrupt_path = dir->path() + "/corrupt.pt";
  ASSERT_TRUE(WriteFileAtomically(corrupt_path, corrupt).ok());
  struct Input {
    std::vector<std::string> args;
    int exit_code;
  };
  for (const Input& input :
       {Input{{demo}, 0}, Input{{"--cpu", "6/85/4", corrupt_path}, 1}}) {
    auto stats = [&](const std::string& decoder) {
      std::vector<std::string> argv = {ToolPath("hwt-decode"),
                                       "--stats",
                                       "--format",
                                       "json",
                                       "--decoder",
                                       decoder};
      argv.insert(argv.end(), input.args.begin(), input.args.end());
      auto result = RunCommand(argv);
      EXPECT_EQ(result.exit_code, input.exit_code) << result.err;
      return nlohmann::json::parse(result.out, nullptr, false);
    };
    nlohmann::json fast = stats("auto");
    nlohmann::json libipt = stats("libipt");
    ASSERT_TRUE(fast.contains("notes")) << fast.dump();
    EXPECT_THAT(fast["notes"].dump(), HasSubstr("PSB segments walked"));
    EXPECT_FALSE(libipt.contains("notes"));
    fast.erase("notes");
    EXPECT_EQ(fast, libipt);
  }
  auto demo_stats = RunCommand({ToolPath("hwt-decode"), "--stats", demo});
  EXPECT_THAT(demo_stats.out, HasSubstr("fast path: 9 of 10 PSB segments"));
}

TEST(HwtDecodeTest, FastCountHasTheHandCountedInstructions) {
  auto result = RunCommand({ToolPath("hwt-decode"), "--stats", "--fast",
                            "--format", "json", Capture()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto stats = nlohmann::json::parse(result.out);
  EXPECT_EQ(stats["total"]["instructions"], 79);
  EXPECT_EQ(stats["total"]["errors"], 0);
  EXPECT_TRUE(stats["total"]["blocks"].is_null());
  ASSERT_EQ(stats["notes"].size(), 1u);
  EXPECT_THAT(stats["notes"][0].get<std::string>(),
              HasSubstr("fast path: 1 of 1 PSB segments walked"));

  auto text = RunCommand({ToolPath("hwt-decode"), "--fast", Capture()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("blocks         not counted"));

  auto dir = TempDir::Create("hwt-decode-test");
  ASSERT_TRUE(dir.ok());
  auto trace = ReadFileToString(Capture() + "/buffers/0.bin");
  ASSERT_TRUE(trace.ok());
  std::string corrupt = *trace;
  for (size_t i = 0x30; i < 0x38 && i < corrupt.size(); ++i) {
    corrupt[i] = '\xd9';
  }
  const std::string path = dir->path() + "/corrupt.pt";
  ASSERT_TRUE(WriteFileAtomically(path, corrupt).ok());
  auto full = RunCommand({ToolPath("hwt-decode"), "--stats", "--format", "json",
                          "--cpu", "6/85/4", path});
  auto fast = RunCommand({ToolPath("hwt-decode"), "--stats", "--fast",
                          "--format", "json", "--cpu", "6/85/4", path});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_EQ(fast.exit_code, 1);
  auto full_stats = nlohmann::json::parse(full.out);
  auto fast_stats = nlohmann::json::parse(fast.out);
  EXPECT_EQ(fast_stats["total"]["instructions"],
            full_stats["total"]["instructions"]);
  EXPECT_EQ(fast_stats["streams"][0]["error_list"],
            full_stats["streams"][0]["error_list"]);

  // --fast only counts: not with a listing.
  auto listing =
      RunCommand({ToolPath("hwt-decode"), "--fast", "--insn", Capture()});
  EXPECT_EQ(listing.exit_code, 2);
  EXPECT_THAT(listing.err, HasSubstr("--fast"));
}

TEST(HwtDecodeTest, BadUsageAndInputsExitTwo) {
  auto missing = RunCommand({ToolPath("hwt-decode"), "/nonexistent.hwt"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent.hwt"));
  auto records = RunCommand({ToolPath("hwt-decode"), "--records", Capture()});
  EXPECT_EQ(records.exit_code, 2);
  EXPECT_THAT(records.err, HasSubstr("SPE"));
  auto format =
      RunCommand({ToolPath("hwt-decode"), "--format", "xml", Capture()});
  EXPECT_EQ(format.exit_code, 2);
  auto two_modes =
      RunCommand({ToolPath("hwt-decode"), "--insn", "--calls", Capture()});
  EXPECT_EQ(two_modes.exit_code, 2);
  auto cpu = RunCommand({ToolPath("hwt-decode"), "--cpu", "x", Capture()});
  EXPECT_EQ(cpu.exit_code, 2);
  EXPECT_THAT(cpu.err, HasSubstr("--cpu"));
  auto help = RunCommand({ToolPath("hwt-decode"), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--stats"));
}

TEST(HwtDecodeTest, OutputFileIsWrittenWhole) {
  auto dir = TempDir::Create("hwt-decode-test");
  ASSERT_TRUE(dir.ok());
  std::string path = dir->path() + "/insn.txt";
  auto result =
      RunCommand({ToolPath("hwt-decode"), "--insn", "-o", path, Capture()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  auto written = ReadFileToString(path);
  ASSERT_TRUE(written.ok());
  auto stdout_run = RunCommand({ToolPath("hwt-decode"), "--insn", Capture()});
  EXPECT_EQ(*written, stdout_run.out);
}

}  // namespace
}  // namespace hwt
