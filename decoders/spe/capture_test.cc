// Whole-capture decoding: HWT SPE bundles decoded chunk by chunk (half
// buffers, some cut), the raw file hwt(8) writes (halves of several CPUs
// appended without framing, cut at unknown places), listings, and the errors
// for unusable inputs.
#include "capture/capture.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hwt::spe {
namespace {

using testing::CollectingSink;

std::string EncodedRecord(uint64_t pc, uint64_t timestamp,
                          uint16_t latency = 10) {
  SpeEncoder e;
  RecordSpec spec;
  spec.pc = pc;
  spec.op_class = 1;
  spec.op = 0x00;
  spec.events = 0x6;
  spec.total_latency = latency;
  spec.data_va = 0x10000 + pc;
  spec.data_source = 0xe;
  spec.timestamp = timestamp;
  EncodeRecord(spec, e);
  return e.bytes();
}

class SpeCaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("spe_capture_test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_.emplace(std::move(*dir));
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = dir_->path() + "/" + name;
    EXPECT_TRUE(WriteFileAtomically(path, bytes).ok());
    return path;
  }

  std::unique_ptr<capture::Capture> MakeCapture(capture::Manifest manifest) {
    return std::make_unique<capture::Capture>(
        capture::InputKind::kBundleDirectory, dir_->path(), dir_->path(),
        std::move(manifest), std::vector<capture::Record>{},
        capture::InputOptions{}, std::nullopt);
  }

  std::optional<TempDir> dir_;
};

// Two CPUs, two half-buffers each; cpu 1's first half ends with a cut record
// (flagged partial_record by BUFPTR_GET).
TEST_F(SpeCaptureTest, BundleIsDecodedChunkByChunk) {
  std::string half0a = EncodedRecord(0x400000, 1) + EncodedRecord(0x400004, 2);
  std::string half0b = EncodedRecord(0x400008, 3);
  std::string cut = EncodedRecord(0x40000c, 4);
  std::string half1a = EncodedRecord(0x500000, 5) + cut.substr(0, 14);
  std::string half1b = EncodedRecord(0x500004, 6) + EncodedRecord(0x500008, 7);
  Write("cpu0.spe", half0a + half0b);
  Write("cpu1.spe", half1a + half1b);

  capture::Manifest manifest;
  manifest.backend = capture::Backend::kSpe;
  manifest.mode = capture::TraceMode::kCpu;
  manifest.cpu.midr = 0x413fd0c1;  // Neoverse N1
  manifest.spe = capture::SpeConfig{4096, 2, 1};
  capture::BufferInfo b0;
  b0.id = 0;
  b0.cpu = 0;
  b0.file = "cpu0.spe";
  b0.size = half0a.size() + half0b.size();
  b0.chunks = {{0, half0a.size(), false, false, false},
               {half0a.size(), half0b.size(), false, false, true}};
  capture::BufferInfo b1;
  b1.id = 1;
  b1.cpu = 1;
  b1.file = "cpu1.spe";
  b1.size = half1a.size() + half1b.size();
  b1.chunks = {{0, half1a.size(), false, true, false},
               {half1a.size(), half1b.size(), true, false, true}};
  manifest.buffers = {b0, b1};
  auto capture = MakeCapture(manifest);

  CollectingSink sink;
  auto stats = DecodeCapture(*capture, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->cpu.name, "Neoverse N1");
  ASSERT_EQ(stats->buffers.size(), 2u);
  EXPECT_EQ(stats->buffer_names[1], "buffer 1 (cpu 1)");
  EXPECT_EQ(stats->buffers[0].records, 3u);
  EXPECT_EQ(stats->buffers[0].partial_records, 0u);
  EXPECT_EQ(stats->buffers[1].records, 3u);
  EXPECT_EQ(stats->buffers[1].partial_records, 1u);
  EXPECT_EQ(stats->buffers[1].chunks_partial_record, 1u);
  EXPECT_EQ(stats->buffers[1].chunks_data_lost_before, 1u);
  EXPECT_EQ(stats->total.records, 6u);
  EXPECT_EQ(stats->total.bytes,
            half0a.size() + half0b.size() + half1a.size() + half1b.size());
  EXPECT_EQ(stats->total.bytes_decoded + stats->total.bytes_skipped,
            stats->total.bytes);
  EXPECT_EQ(stats->total.data_sources.at(0xe), 6u);
  ASSERT_EQ(sink.records.size(), 7u);
  // Buffer order, then trace order; offsets are file offsets.
  EXPECT_EQ(sink.buffers[3], 1u);
  EXPECT_EQ(sink.records[3].pc, 0x500000u);
  EXPECT_EQ(sink.records[4].partial, PartialReason::kCutAtEnd);
  EXPECT_EQ(sink.records[4].offset, EncodedRecord(0x500000, 5).size());
  EXPECT_EQ(sink.records[5].offset, half1a.size());
  EXPECT_EQ(sink.records[6].timestamp, 7u);
  EXPECT_EQ(sink.ended, (std::vector<uint32_t>{0, 1}));
}

// hwt(8) appends every half of every CPU to one file: record boundaries at
// half ends are unknown. A record cut between packets is split off when the
// next record's PC repeats; one cut inside a packet costs the damaged
// records, which are counted, never merged.
TEST_F(SpeCaptureTest, RawFileWithoutFramingResynchronises) {
  std::string cut_between =
      EncodedRecord(0x400010, 10).substr(0, 11);  // PC + op
  std::string cut_inside = EncodedRecord(0x400020, 11).substr(0, 20);  // mid-VA
  // PC 0x0000aaaa00401000: after the cut VA swallows its first bytes, the
  // rest (aa aa 00 80) is two invalid bytes, a PAD and an invalid byte.
  std::string after_inside = EncodedRecord(0x0000aaaa00401000, 12);
  std::string file = EncodedRecord(0x400000, 1) + EncodedRecord(0x400004, 2) +
                     cut_between + EncodedRecord(0x400030, 3) + cut_inside +
                     after_inside + EncodedRecord(0x400040, 13);
  std::string path = Write("spe.raw", file);

  capture::Manifest manifest;
  manifest.backend = capture::Backend::kSpe;
  capture::BufferInfo info;
  info.file = path;  // raw files are named by absolute path
  info.size = file.size();
  manifest.buffers = {info};
  auto capture = MakeCapture(manifest);

  CollectingSink sink;
  auto stats = DecodeCapture(*capture, sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  const SpeStats& s = stats->total;
  EXPECT_EQ(s.bytes, file.size());
  EXPECT_EQ(s.bytes_decoded + s.bytes_skipped, s.bytes);
  std::vector<uint64_t> complete_pcs;
  for (const auto& r : sink.Complete()) complete_pcs.push_back(r.pc);
  EXPECT_EQ(complete_pcs,
            (std::vector<uint64_t>{0x400000, 0x400004, 0x400030, 0x400040}));
  EXPECT_EQ(
      s.partial_by_reason[static_cast<int>(PartialReason::kRepeatedPacket)],
      1u);
  EXPECT_EQ(s.partial_by_reason[static_cast<int>(PartialReason::kInvalidBytes)],
            1u);
  EXPECT_EQ(s.partial_by_reason[static_cast<int>(PartialReason::kNoPc)], 1u);
  EXPECT_EQ(s.bytes_skipped, 3u);
  EXPECT_EQ(s.skipped_ranges, 2u);
}

TEST_F(SpeCaptureTest, PacketListingWithChunkMarkersAndPartialRecords) {
  std::string half0 =
      EncodedRecord(0x400000, 1) + EncodedRecord(0x400004, 2).substr(0, 9);
  std::string half1 = EncodedRecord(0x400008, 3);
  Write("cpu0.spe", half0 + half1);
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kSpe;
  capture::BufferInfo b;
  b.cpu = 0;
  b.file = "cpu0.spe";
  b.size = half0.size() + half1.size();
  b.chunks = {{0, half0.size(), false, true, false},
              {half0.size(), half1.size(), false, false, true}};
  manifest.buffers = {b};
  auto capture = MakeCapture(manifest);

  struct Lines : public PacketSink {
    void OnPacket(uint32_t stream, uint64_t offset,
                  std::string_view text) override {
      lines.push_back(FormatListingLine(offset, text));
    }
    std::vector<std::string> lines;
  } lines;
  auto stats = ListCapturePackets(*capture, lines);
  ASSERT_TRUE(stats.ok()) << stats.status();
  // Every packet, two chunk markers, one partial-record note.
  EXPECT_EQ(lines.lines.size(), stats->total.packets + 2 + 1);
  EXPECT_EQ(lines.lines[0],
            absl::StrFormat("0x00000000: [chunk 0x0 size %d partial-record]",
                            half0.size()));
  EXPECT_EQ(lines.lines[1],
            "0x00000000: b0 00 00 40 00 00 00 00 80                     "
            " PC 0x400000 el0 ns=1");
  bool found_note = false;
  for (const std::string& line : lines.lines) {
    if (line.find("[partial record") != std::string::npos) {
      found_note = true;
      EXPECT_NE(line.find("cut at end of data"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found_note);
  EXPECT_EQ(stats->total.records, 2u);
  EXPECT_EQ(stats->total.partial_records, 1u);
}

TEST_F(SpeCaptureTest, RecordListingsAsTextAndJson) {
  Write("cpu0.spe", EncodedRecord(0x400000, 42, 99));
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kSpe;
  manifest.cpu.midr = 0x413fd0c1;
  capture::BufferInfo b;
  b.file = "cpu0.spe";
  manifest.buffers = {b};
  auto capture = MakeCapture(manifest);

  std::vector<std::string> json_lines;
  RecordListingSink json(
      RecordListingSink::Format::kJson, IdentifyCpu(0x413fd0c1),
      [&](std::string_view line) { json_lines.emplace_back(line); });
  ASSERT_TRUE(DecodeCapture(*capture, json).ok());
  ASSERT_EQ(json_lines.size(), 1u);
  auto j = nlohmann::json::parse(json_lines[0]);
  EXPECT_EQ(j["pc"]["address"], "0x400000");
  EXPECT_EQ(j["pc"]["el"], 0);
  EXPECT_EQ(j["pc"]["ns"], true);
  EXPECT_EQ(j["total_latency"], 99);
  EXPECT_EQ(j["op"]["category"], "load-gpr");
  EXPECT_EQ(j["op"]["text"], "LD GP-REG");
  EXPECT_EQ(j["events"], nlohmann::json::array({"retired", "l1d-access"}));
  EXPECT_EQ(j["data_source"], 14);
  EXPECT_EQ(j["data_source_name"], "DRAM");
  EXPECT_EQ(j["data_va"], "0x410000");
  EXPECT_EQ(j["timestamp"], 42);
  EXPECT_EQ(j["complete"], true);

  std::vector<std::string> text_lines;
  RecordListingSink text(
      RecordListingSink::Format::kText, IdentifyCpu(0x413fd0c1),
      [&](std::string_view line) { text_lines.emplace_back(line); });
  ASSERT_TRUE(DecodeCapture(*capture, text).ok());
  ASSERT_EQ(text_lines.size(), 1u);
  EXPECT_EQ(text_lines[0],
            "[0] 0x00000000 pc=0x400000 el0 ns=1 op=\"LD GP-REG\" lat=99 "
            "ev=retired,l1d-access va=0x410000 tag=0x00 ds=DRAM ts=42");
}

TEST_F(SpeCaptureTest, UnusableInputsAreErrors) {
  Write("small.spe", EncodedRecord(0x400000, 1));
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kPt;
  capture::BufferInfo b;
  b.file = "small.spe";
  manifest.buffers = {b};
  CollectingSink sink;
  auto not_spe = DecodeCapture(*MakeCapture(manifest), sink);
  EXPECT_EQ(not_spe.status().code(), absl::StatusCode::kFailedPrecondition);

  manifest.backend = capture::Backend::kSpe;
  manifest.buffers[0].chunks = {{0, 4096, false, false, false}};
  auto past_end = DecodeCapture(*MakeCapture(manifest), sink);
  EXPECT_EQ(past_end.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(past_end.status().message().find("small.spe"), std::string::npos)
      << past_end.status();
  EXPECT_NE(past_end.status().message().find("0x0"), std::string::npos);

  manifest.buffers[0].chunks.clear();
  manifest.buffers[0].file = "missing.spe";
  auto missing = DecodeCapture(*MakeCapture(manifest), sink);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.spe"), std::string::npos)
      << missing.status();
}

}  // namespace
}  // namespace hwt::spe
