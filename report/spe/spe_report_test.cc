// SPE reports on a small synthetic profile whose every number is worked out
// by hand: the text report is compared with a golden file
// (testdata/spe/synthetic_report.txt), the JSON field by field, and data-symbol
// attribution through a fake symbol source.
#include "report/spe/spe_report.h"

#include <string>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "decoders/spe/encoder.h"
#include "gtest/gtest.h"

namespace hwt::report {
namespace {

using analysis::SpeProfile;
using spe::RecordSpec;
using spe::SpeEncoder;

class FakeResolver : public analysis::FunctionResolver {
 public:
  std::optional<analysis::FunctionRange> FunctionAt(uint32_t image,
                                                    uint64_t vaddr) override {
    if (image == 0 && vaddr >= 0x400000 && vaddr < 0x400100) {
      return analysis::FunctionRange{0x400000, 0x400100};
    }
    if (image == 0 && vaddr >= 0x400100 && vaddr < 0x400200) {
      return analysis::FunctionRange{0x400100, 0x400200};
    }
    if (image == 1 && vaddr >= 0x10000 && vaddr < 0x10400) {
      return analysis::FunctionRange{0x10000, 0x10400};
    }
    return std::nullopt;
  }
};

class FakeSymbols : public ProfileSymbols {
 public:
  std::string FunctionName(uint32_t image, uint64_t start) override {
    ++function_calls;
    if (image == 0 && start == 0x400000) return "main";
    if (image == 0 && start == 0x400100) return "work";
    if (image == 1 && start == 0x10000) return "memcpy";
    return "";
  }
  std::string ImagePath(uint32_t image) override { return ""; }
  std::optional<SymbolAt> SymbolContaining(uint32_t image,
                                           uint64_t vaddr) override {
    ++data_calls;
    if (image == 1 && vaddr >= 0x30000 && vaddr < 0x30100) {
      return SymbolAt{"table", 0x30000, 0x100};
    }
    return std::nullopt;
  }
  int function_calls = 0;
  int data_calls = 0;
};

SpeProfile BuildProfile() {
  static capture::AddressSpaceTimeline* timeline = [] {
    auto* t = new capture::AddressSpaceTimeline();
    t->SetBufferCount(1);
    capture::Image app;
    app.recorded_path = "/usr/bin/app";
    t->AddImage(app);
    capture::Image lib;
    lib.recorded_path = "/lib/libc.so.7";
    t->AddImage(lib);
    uint32_t r0 = t->AddRegion({0, 0x400000, 0x410000, 0, 0x10000, 0});
    uint32_t r1 = t->AddRegion(
        {1, 0x800010000, 0x800020000, 0x10000, 0x10000, 0x800000000});
    for (uint32_t r : {r0, r1}) {
      capture::AddressSpaceChange change;
      change.region = r;
      t->AddChange(0, change);
    }
    return t;
  }();
  std::vector<std::vector<capture::ElfSegment>> loads(2);
  capture::ElfSegment text, data;
  text.type = data.type = 1;
  text.vaddr = 0x10000;
  text.memsz = 0x10000;
  data.vaddr = 0x30000;
  data.memsz = 0x8000;
  loads[1] = {text, data};

  SpeEncoder e;
  const uint64_t va[4] = {0x800030010, 0x800030050, 0x800030200, 0x7fff1000};
  for (int i = 0; i < 4; ++i) {  // work: 4 loads
    RecordSpec r;
    r.pc = 0x400104;
    r.op_class = 1;
    r.op = 0x00;
    r.events = 0x6 | (i == 3 ? 0x8 : 0);
    r.total_latency = 10 * (i + 1);
    r.issue_latency = i + 1;
    r.data_va = va[i];
    r.data_source = i == 3 ? 0xe : 0x0;
    EncodeRecord(r, e);
  }
  for (int i = 0; i < 2; ++i) {  // main: 2 conditional branches
    RecordSpec r;
    r.pc = 0x400010;
    r.op_class = 2;
    r.op = 0x01;
    r.events = 0x2 | (i == 0 ? 0x80 : 0);
    r.total_latency = 5;
    EncodeRecord(r, e);
  }
  {  // memcpy: 1 store
    RecordSpec r;
    r.pc = 0x800010040;
    r.op_class = 1;
    r.op = 0x01;
    r.total_latency = 100;
    r.data_va = 0x7fff1008;
    EncodeRecord(r, e);
  }
  {  // kernel, outside every image
    RecordSpec r;
    r.pc = 0xffff000000001000;
    r.el = 1;
    r.op_class = 0;
    EncodeRecord(r, e);
  }
  analysis::SampleAddressMap map(timeline, 1, loads);
  FakeResolver resolver;
  analysis::SpeProfileBuilder builder(&map, &resolver,
                                      spe::IdentifyCpu(0x413fd0c1));
  spe::DecodeBytes(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(e.bytes().data()),
                          e.size()),
      &builder);
  return builder.Finish();
}

TEST(SpeReportTest, TextReportMatchesGolden) {
  SpeProfile profile = BuildProfile();
  FakeSymbols symbols;
  std::string text = FormatSpeReportText(profile, &symbols);
  auto golden = ReadFileToString(hwt::testing::SourceDir() +
                                 "/testdata/spe/synthetic_report.txt");
  ASSERT_TRUE(golden.ok()) << golden.status();
  EXPECT_EQ(text, *golden);
  // Function names are asked once per function per report, data symbols
  // once per unique data address.
  EXPECT_EQ(symbols.function_calls, 3);
  EXPECT_EQ(symbols.data_calls, 3);
}

TEST(SpeReportTest, Json) {
  SpeProfile profile = BuildProfile();
  FakeSymbols symbols;
  nlohmann::json j = nlohmann::json::parse(
      FormatSpeReportJson(profile, &symbols, SpeReportOptions{2}));
  EXPECT_EQ(j["cpu"]["name"], "Neoverse N1");
  EXPECT_EQ(j["summary"]["samples"], 8);
  EXPECT_EQ(j["summary"]["samples_in_images"], 7);
  EXPECT_EQ(j["summary"]["kernel_samples"], 1);
  EXPECT_EQ(j["summary"]["samples_with_data_address"], 5);
  EXPECT_EQ(j["summary"]["data_addresses_in_images"], 3);
  EXPECT_EQ(j["operations"]["load-gpr"], 4);
  EXPECT_EQ(j["operations"]["store-gpr"], 1);
  EXPECT_EQ(j["operations"]["branch-conditional"], 2);
  EXPECT_EQ(j["operations"]["other"], 1);
  EXPECT_EQ(j["events"]["retired"], 8);
  EXPECT_EQ(j["events"]["l1d-refill"], 1);
  EXPECT_EQ(j["events"]["mispredicted"], 1);
  // Total latency: 10 20 30 40 5 5 100 -> 7 values, sorted 5 5 10 20 30 40
  // 100: p50 = rank 4 = 20, p90 = rank 7 = 100.
  EXPECT_EQ(j["latency"]["total"]["count"], 7);
  EXPECT_EQ(j["latency"]["total"]["p50"], 20);
  EXPECT_EQ(j["latency"]["total"]["p90"], 100);
  EXPECT_EQ(j["latency"]["total"]["max"], 100);
  EXPECT_DOUBLE_EQ(j["latency"]["total"]["mean"].get<double>(), 210.0 / 7);
  EXPECT_EQ(j["latency"]["issue"]["count"], 4);
  EXPECT_EQ(j["data_sources"][0]["name"], "L1D");
  EXPECT_EQ(j["data_sources"][0]["samples"], 3);
  EXPECT_EQ(j["data_sources"][1]["name"], "DRAM");
  EXPECT_EQ(j["samples_without_data_source"], 4);
  // Top 2 functions.
  ASSERT_EQ(j["functions"].size(), 2u);
  const auto& work = j["functions"][0];
  EXPECT_EQ(work["name"], "work");
  EXPECT_EQ(work["image"], "app");
  EXPECT_EQ(work["samples"], 4);
  EXPECT_DOUBLE_EQ(work["percent"].get<double>(), 50.0);
  EXPECT_EQ(work["start"], "0x400100");
  EXPECT_EQ(work["end"], "0x400200");
  EXPECT_EQ(work["latency"]["total"]["p50"], 20);
  EXPECT_EQ(work["latency"]["total"]["p99"], 40);
  EXPECT_DOUBLE_EQ(work["latency"]["issue"]["mean"].get<double>(), 2.5);
  EXPECT_EQ(work["counters"]["l1d_refill"], 1);
  EXPECT_EQ(work["events"]["l1d-access"], 4);
  EXPECT_EQ(work["data_sources"][1]["name"], "DRAM");
  EXPECT_EQ(j["functions"][1]["name"], "main");
  EXPECT_EQ(j["functions"][1]["counters"]["mispredicted"], 1);
  ASSERT_EQ(j["instructions"].size(), 2u);
  EXPECT_EQ(j["instructions"][0]["location"], "work+0x4");
  EXPECT_EQ(j["instructions"][0]["vaddr"], "0x400104");
  EXPECT_EQ(j["instructions"][1]["location"], "main+0x10");
  // Stack line 0x7fff1000 holds two samples (work's and memcpy's).
  EXPECT_EQ(j["cache_lines"][0]["address"], "0x7fff1000");
  EXPECT_EQ(j["cache_lines"][0]["samples"], 2);
  EXPECT_EQ(j["cache_lines"][0]["loads"], 1);
  EXPECT_EQ(j["cache_lines"][0]["stores"], 1);
  EXPECT_EQ(j["pages"][0]["address"], "0x800030000");
  EXPECT_EQ(j["pages"][0]["samples"], 3);
  EXPECT_EQ(j["data_symbols"][0]["symbol"], "table");
  EXPECT_EQ(j["data_symbols"][0]["samples"], 2);
  EXPECT_EQ(j["data_symbols"][0]["start"], "0x30000");
  EXPECT_EQ(j["data_symbols"][1]["symbol"], "[libc.so.7 data]");
  EXPECT_EQ(j["data_symbols"][1]["samples"], 1);
}

TEST(SpeReportTest, DataSymbolsWithoutASource) {
  SpeProfile profile = BuildProfile();
  auto rows = AggregateDataSymbols(profile, nullptr);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "[libc.so.7 data]");
  EXPECT_EQ(rows[0].counters.samples, 3u);
  EXPECT_FALSE(rows[0].has_symbol);
}

}  // namespace
}  // namespace hwt::report
