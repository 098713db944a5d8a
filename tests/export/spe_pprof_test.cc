// The pprof export of an SPE capture, read back by go tool pprof: a raw SPE
// trace written with the packet encoder (so every sample and latency is
// known) over counted.S's program image; per function, the samples and the
// summed latencies pprof reports must be the encoded ones.
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "decoders/spe/testing/counted_samples.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/testing/consumers.h"

namespace hwt::export_test {
namespace {

std::string ProgramImage() {
  const std::string capture =
      testing::SourceDir() + "/testdata/decode/counted.hwt";
  auto manifest = ReadFileToString(capture + "/manifest.json");
  if (!manifest.ok()) return "";
  const nlohmann::json json = nlohmann::json::parse(*manifest);
  for (const auto& entry : json["images"]) {
    if (entry["original_path"].get<std::string>().find("counted_static") !=
        std::string::npos) {
      return capture + "/" + entry["file"].get<std::string>();
    }
  }
  return "";
}

// go tool pprof -top's flat column per function, for one sample index
// (values may carry their unit: "200cycles").
std::map<std::string, uint64_t> FlatPerFunction(const std::string& go,
                                                const std::string& file,
                                                const std::string& index,
                                                uint64_t* total) {
  auto r = RunTool({go, "tool", "pprof", "-top", "-nodecount=1000",
                    "-nodefraction=0", "-sample_index=" + index, file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  EXPECT_TRUE(
      std::regex_search(r.out, m, std::regex(R"(of (\d+)[a-z]* total)")))
      << r.out;
  *total = m.empty() ? 0 : std::stoull(m[1]);
  std::map<std::string, uint64_t> out;
  const std::regex row(
      R"(^\s*(\d+)[a-z]*\s+[\d.]+%\s+[\d.]+%\s+(\d+)[a-z]*\s+[\d.]+%\s+(.+?)\s*$)");
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    const std::string s(line);
    if (std::regex_match(s, m, row)) out[m[3]] += std::stoull(m[1]);
  }
  return out;
}

TEST(SpePprofTest, GoToolPprofCountsTheEncodedSamplesAndLatencies) {
  HWT_REQUIRE_CONSUMER(go, "go");
  auto dir = TempDir::Create("spe-pprof-test");
  ASSERT_TRUE(dir.ok());
  const std::string image = dir->path() + "/counted_static";
  auto bytes = ReadFileToString(ProgramImage());
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(WriteFileAtomically(image, *bytes).ok());
  // leaf (0x401050-0x401058): 3 samples, 60 cycles; special (0x401077-):
  // 2 samples, 200 cycles; one outside every image (5 cycles).
  const std::string trace = dir->path() + "/trace.spe";
  ASSERT_TRUE(
      WriteFileAtomically(trace, spe::testing::CountedSamplesTrace()).ok());
  const std::string pprof = dir->path() + "/spe.pb.gz";
  auto r = RunTool({testing::ToolPath("hwt-report"), "-q", "--pprof=" + pprof,
                    "--backend", "spe", "--image", image + "@0", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  uint64_t samples = 0, cycles = 0;
  auto by_samples = FlatPerFunction(go, pprof, "samples", &samples);
  auto by_latency = FlatPerFunction(go, pprof, "latency", &cycles);
  EXPECT_EQ(samples, 6u);
  EXPECT_EQ(cycles, 265u);
  EXPECT_EQ(by_samples["leaf"], 3u);
  EXPECT_EQ(by_samples["special"], 2u);
  EXPECT_EQ(by_latency["leaf"], 60u);
  EXPECT_EQ(by_latency["special"], 200u);
  // The sample outside every image is there, under the name the other
  // reports give it.
  uint64_t elsewhere = 0;
  for (const auto& [name, n] : by_samples) {
    if (name != "leaf" && name != "special") elsewhere += n;
  }
  EXPECT_EQ(elsewhere, 1u);

  // Control-flow exports still do not apply to samples.
  r = RunTool({testing::ToolPath("hwt-report"), "--bolt", "--backend", "spe",
               "--image", image + "@0", trace});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

}  // namespace
}  // namespace hwt::export_test
