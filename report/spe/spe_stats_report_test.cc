// The SPE --stats report in text and JSON for a decoded stream whose counts
// are known: two complete records, one partial, a skipped run.
#include "report/spe/spe_stats_report.h"

#include <string>

#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"
#include "gtest/gtest.h"

namespace hwt::report {
namespace {

spe::CaptureStats Stats() {
  spe::SpeEncoder e;
  spe::RecordSpec r;
  r.pc = 0x400000;
  r.op_class = 1;
  r.op = 0x00;
  r.events = 0x6;
  r.data_source = 0xe;
  r.timestamp = 1;
  EncodeRecord(r, e);  // 9 + 2 + 2 + 2 + 9 = 24 bytes
  e.Raw("\xff\xff\xff");
  r.op = 0x01;
  r.events = 0x2;
  r.data_source.reset();
  EncodeRecord(r, e);  // 9 + 2 + 2 + 9 = 22 bytes
  e.Address(0, spe::SpeEncoder::InstructionAddress(0x400004, 0, true));
  spe::CaptureStats stats;
  stats.cpu = spe::IdentifyCpu(0x413fd0c1);
  stats.buffers.push_back(spe::DecodeBytes(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(e.bytes().data()),
                          e.size()),
      nullptr));
  stats.buffer_names.push_back("buffer 0 (cpu 2)");
  stats.total.Merge(stats.buffers[0]);
  return stats;
}

TEST(SpeStatsReportTest, Text) {
  std::string text = FormatSpeStatsText(Stats());
  EXPECT_EQ(text,
            "SPE decode statistics: 1 buffer, CPU Neoverse N1\n"
            "total:\n"
            "  bytes 58: decoded 55, skipped 3 in 1 run\n"
            "  packets 10: TS 2, EVENTS 2, DATA-SOURCE 1, OP-TYPE 2, ADDR 3\n"
            "  records 2 complete, 1 partial (cut at end of data 1)\n"
            "  chunks 1 (partial record 0, data lost before 0, final 0)\n"
            "  operation classes: load 1, store 1\n"
            "  operations: load-gpr 1, store-gpr 1\n"
            "  events: retired 2, l1d-access 1\n"
            "  data sources: DRAM 1, none 1\n"
            "  skipped 0x00000018: 3 bytes (invalid header)\n"
            "buffer 0 (cpu 2):\n"
            "  bytes 58: decoded 55, skipped 3 in 1 run\n"
            "  packets 10: TS 2, EVENTS 2, DATA-SOURCE 1, OP-TYPE 2, ADDR 3\n"
            "  records 2 complete, 1 partial (cut at end of data 1)\n"
            "  chunks 1 (partial record 0, data lost before 0, final 0)\n"
            "  operation classes: load 1, store 1\n"
            "  operations: load-gpr 1, store-gpr 1\n"
            "  events: retired 2, l1d-access 1\n"
            "  data sources: DRAM 1, none 1\n"
            "  skipped 0x00000018: 3 bytes (invalid header)\n");
}

TEST(SpeStatsReportTest, Json) {
  nlohmann::json j = nlohmann::json::parse(FormatSpeStatsJson(Stats()));
  EXPECT_EQ(j["cpu"]["midr"], "0x413fd0c1");
  for (const auto& s : {j["total"], j["buffers"][0]}) {
    EXPECT_EQ(s["bytes"], 58);
    EXPECT_EQ(s["bytes_decoded"], 55);
    EXPECT_EQ(s["bytes_skipped"], 3);
    EXPECT_EQ(s["packets"], 10);
    EXPECT_EQ(s["packets_by_type"]["ADDR"], 3);
    EXPECT_EQ(s["records"], 2);
    EXPECT_EQ(s["partial_records"], 1);
    EXPECT_EQ(s["partial_by_reason"]["cut_at_end"], 1);
    EXPECT_EQ(s["operation_classes"]["load"], 1);
    EXPECT_EQ(s["operation_classes"]["store"], 1);
    EXPECT_EQ(s["operations"]["store-gpr"], 1);
    EXPECT_EQ(s["events"]["retired"], 2);
    EXPECT_EQ(s["data_sources"][0]["name"], "DRAM");
    EXPECT_EQ(s["records_without_data_source"], 1);
    EXPECT_EQ(s["skipped"][0]["offset"], 24);
    EXPECT_EQ(s["skipped"][0]["length"], 3);
    EXPECT_EQ(s["skipped"][0]["reason"], "invalid_header");
  }
  EXPECT_EQ(j["buffers"][0]["name"], "buffer 0 (cpu 2)");
}

}  // namespace
}  // namespace hwt::report
