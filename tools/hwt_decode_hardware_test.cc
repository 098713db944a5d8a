// Real Intel PT hardware in the suite: three captures kAFL/Nyx recorded on
// Intel CPUs (shared corpus libxdc-pt/), whose code comes as a page cache
// (STEM.addr + STEM.dump), not an ELF. hwt-decode reads the page cache as
// --image; each trace must decode with no error but its hardware overflows,
// every decode path (--jobs 1, --jobs 2, the fast count, the profile) must
// give the same figures, and the 32-bit process must be decoded in 32-bit
// mode (its instruction starts are those of objdump -m i386, not x86-64).
//
// The captures do not record the CPU. Without --cpu the decoder applies no
// errata and avscript_32 stops at its first TNT: its PSB+ holds a FUP that
// the PSB+ errata (bdm70) tell libipt to ignore, so the tests name a CPU
// (any Intel Core libipt knows gives the same result).
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hwt {
namespace {

using testing::RunCommand;
using testing::ToolPath;

constexpr char kCpu[] = "6/85";

struct HardwareCapture {
  const char* name;
  const char* trace;   // relative to libxdc-pt/
  const char* memory;  // the page cache's .dump
  int overflows;       // the hardware's own: the only errors allowed
};

void PrintTo(const HardwareCapture& capture, std::ostream* os) {
  *os << capture.name;
}

const HardwareCapture kCaptures[] = {
    {"Unzip", "Unzip/trace", "Unzip/data.dump", 0},
    {"mruby", "mruby/trace", "mruby/data.dump", 1},
    {"avscript_32", "avscript_32/failed_trace_12709_1",
     "avscript_32/page_cache.dump", 0},
};

class HardwareTraceTest : public ::testing::TestWithParam<HardwareCapture> {
 protected:
  void SetUp() override {
    HWT_REQUIRE_CORPUS(corpus);
    trace_ = corpus + "/libxdc-pt/" + GetParam().trace;
    memory_ = corpus + "/libxdc-pt/" + GetParam().memory;
  }
  std::vector<std::string> Decode(std::vector<std::string> flags) const {
    std::vector<std::string> argv = {ToolPath("hwt-decode"),
                                     "--backend",
                                     "pt",
                                     "--cpu",
                                     kCpu,
                                     "--image",
                                     memory_};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(trace_);
    return argv;
  }
  // The --stats figures of one decode path, checked for what every path
  // must show: every byte decoded, no error but the hardware's overflows.
  nlohmann::json Stats(std::vector<std::string> flags) const {
    flags.insert(flags.end(), {"--stats", "--format", "json", "-q"});
    auto result = RunCommand(Decode(flags));
    const int expected_exit = GetParam().overflows > 0 ? 1 : 0;
    EXPECT_EQ(result.exit_code, expected_exit) << result.err;
    nlohmann::json stats = nlohmann::json::parse(result.out, nullptr, false);
    EXPECT_FALSE(stats.is_discarded()) << result.out.substr(0, 200);
    if (stats.is_discarded()) return {};
    const nlohmann::json& buffer = stats["buffers"][0];
    EXPECT_EQ(buffer["bytes_lost"], 0);
    EXPECT_EQ(buffer["bytes_decoded"], buffer["trace_bytes"]);
    EXPECT_EQ(buffer["errors"], GetParam().overflows);
    EXPECT_EQ(buffer["overflows"], GetParam().overflows);
    return buffer;
  }
  std::string trace_;
  std::string memory_;
};

TEST_P(HardwareTraceTest, EveryDecodePathGivesTheSameFigures) {
  nlohmann::json one = Stats({"--jobs", "1"});
  nlohmann::json two = Stats({"--jobs", "2"});
  nlohmann::json fast = Stats({"--fast"});
  ASSERT_TRUE(one.is_object() && two.is_object() && fast.is_object());
  EXPECT_GT(one["instructions"].get<uint64_t>(), 100000u);
  EXPECT_EQ(two["instructions"], one["instructions"]);
  EXPECT_EQ(two["blocks"], one["blocks"]);
  EXPECT_EQ(fast["instructions"], one["instructions"]);
}

TEST_P(HardwareTraceTest, ProfileCountsEveryDecodedInstruction) {
  nlohmann::json stats = Stats({});
  ASSERT_TRUE(stats.is_object());
  std::vector<std::string> argv = {ToolPath("hwt-report"),
                                   "--backend",
                                   "pt",
                                   "--cpu",
                                   kCpu,
                                   "--image",
                                   memory_,
                                   "-q",
                                   "--folded",
                                   trace_};
  std::string folded[2];
  for (int jobs : {1, 2}) {
    std::vector<std::string> with_jobs = argv;
    with_jobs.insert(with_jobs.end() - 1, {"--jobs", std::to_string(jobs)});
    auto result = RunCommand(with_jobs);
    EXPECT_EQ(result.exit_code, GetParam().overflows > 0 ? 1 : 0) << result.err;
    folded[jobs - 1] = result.out;
  }
  EXPECT_EQ(folded[0], folded[1]);
  uint64_t total = 0;
  std::istringstream lines(folded[0]);
  for (std::string line; std::getline(lines, line);) {
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(total, stats["instructions"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(LibxdcPt, HardwareTraceTest,
                         ::testing::ValuesIn(kCaptures), [](const auto& info) {
                           return std::string(info.param.name);
                         });

// The instruction starts objdump finds sweeping one page in `machine` mode.
std::set<uint64_t> ObjdumpStarts(const std::string& machine,
                                 const std::string& page_file,
                                 uint64_t address) {
  char vma[32];
  snprintf(vma, sizeof vma, "--adjust-vma=0x%llx",
           static_cast<unsigned long long>(address));
  auto result = RunCommand(
      {"objdump", "-D", "-b", "binary", "-m", machine, vma, page_file});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::set<uint64_t> starts;
  std::regex line(R"(^\s*([0-9a-f]+):)");
  std::istringstream text(result.out);
  for (std::string l; std::getline(text, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) {
      starts.insert(std::stoull(m[1].str(), nullptr, 16));
    }
  }
  return starts;
}

TEST(HardwareTrace32BitTest, InstructionsAreDecodedInThirtyTwoBitMode) {
  HWT_REQUIRE_CORPUS(corpus);
  HWT_REQUIRE_TOOL("objdump");
  const std::string stem = corpus + "/libxdc-pt/avscript_32/page_cache";
  const std::string trace =
      corpus + "/libxdc-pt/avscript_32/failed_trace_12709_1";
  // The first 50,000 instructions (the listing is cut by head).
  auto result = RunCommand(
      {"sh", "-c",
       "\"$0\" --backend pt --cpu 6/85 --image \"$1\" -q --insn --format json "
       "\"$2\" | head -n 50000",
       ToolPath("hwt-decode"), stem + ".dump", trace});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::map<uint64_t, std::set<uint64_t>> executed;  // page -> addresses
  bool saw_32_bit = false;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    if (j.contains("kind") && j["kind"] == "exec-mode") {
      EXPECT_EQ(j["text"], "[exec mode: 32-bit]");
      saw_32_bit = true;
    }
    if (!j.contains("insn")) continue;
    const uint64_t ip = std::stoull(j["ip"].get<std::string>(), nullptr, 16);
    executed[ip & ~0xfffull].insert(ip);
  }
  EXPECT_TRUE(saw_32_bit);
  ASSERT_GT(executed.size(), 10u);

  // The page cache read here on its own: little-endian u64 page addresses,
  // then the 4 KiB pages in the same order.
  std::ifstream addr_file(stem + ".addr", std::ios::binary);
  std::ifstream dump_file(stem + ".dump", std::ios::binary);
  std::map<uint64_t, std::string> pages;
  for (uint64_t address;
       addr_file.read(reinterpret_cast<char*>(&address), 8);) {
    std::string page(4096, '\0');
    ASSERT_TRUE(dump_file.read(page.data(), page.size()));
    pages[address] = page;
  }
  auto dir = TempDir::Create("hardware-32-bit");
  ASSERT_TRUE(dir.ok());
  size_t checked = 0, not_x86_64_starts = 0;
  for (const auto& [page, addresses] : executed) {
    ASSERT_TRUE(pages.count(page)) << std::hex << page;
    const std::string file = dir->path() + "/page.bin";
    std::ofstream(file, std::ios::binary) << pages[page];
    std::set<uint64_t> i386 = ObjdumpStarts("i386", file, page);
    std::set<uint64_t> x86_64 = ObjdumpStarts("i386:x86-64", file, page);
    for (uint64_t ip : addresses) {
      EXPECT_TRUE(i386.count(ip)) << std::hex << "0x" << ip
                                  << " is no instruction start in 32-bit mode";
      if (!x86_64.count(ip)) ++not_x86_64_starts;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
  // The check tells the modes apart: 64-bit decoding would start some of
  // these instructions elsewhere (a 0x40-0x4f byte is inc/dec here, REX
  // there).
  EXPECT_GT(not_x86_64_starts, 0u);
}

}  // namespace
}  // namespace hwt
