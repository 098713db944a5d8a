// The SPE TraceDecoder gives what the record decoder gives: one kSample event
// per complete record (the record alongside for SPE-aware sinks), one gap per
// skipped run, the same packet listing, and StreamStats that follow from the
// SpeStats. Inputs: encoded samples, the real records and the invalid input
// of testdata/spe, and the counted samples the report tests use, each as one
// raw file and cut into half-buffer chunks.
#include "decoders/spe/trace_decoder.h"

#include <memory>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/hex_dump.h"
#include "base/testing/test_env.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/encoder.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/sample_sink.h"
#include "decoders/spe/testing/counted_samples.h"
#include "decoders/spe/testing/spe_decode.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

using testing::CollectingSink;

// Keeps every event, and every sample's record when given one.
class KeepingSampleSink : public SampleRecordSink {
 public:
  void OnSamples(uint32_t stream, absl::Span<const Event> batch,
                 absl::Span<const Record> records) override {
    for (const Event& event : batch) {
      events.push_back(event);
      streams.push_back(stream);
      if (event.kind != EventKind::kSample) continue;
      ASSERT_LT(event.code, records.size());
      samples.push_back(records[event.code]);
    }
    ++batches;
  }
  void OnStreamEnd(uint32_t stream) override { ended.push_back(stream); }

  std::vector<Event> events;
  std::vector<uint32_t> streams;
  std::vector<Record> samples;
  std::vector<uint32_t> ended;
  int batches = 0;
};

// Keeps the events of a sink that knows nothing of SPE.
class KeepingEventSink : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> batch) override {
    events.insert(events.end(), batch.begin(), batch.end());
  }
  std::vector<Event> events;
};

class KeepingPacketSink : public PacketSink {
 public:
  void OnPacket(uint32_t stream, uint64_t offset,
                std::string_view text) override {
    lines += std::to_string(stream) + " " + FormatListingLine(offset, text);
    lines += "\n";
  }
  std::string lines;
};

std::string TestData(const std::string& name) {
  return hwt::testing::SourceDir() + "/testdata/spe/" + name;
}

std::string ReadHex(const std::string& name) {
  auto text = ReadFileToString(TestData(name));
  EXPECT_TRUE(text.ok()) << text.status();
  auto bytes = ParseHexDump(text.value_or(""));
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or("");
}

std::string EncodedSamples() {
  SpeEncoder encoder;
  for (int i = 0; i < 9; ++i) {
    RecordSpec spec;
    spec.pc = 0x400000 + 4 * i;
    spec.el = i % 3 == 0 ? 1 : 0;
    spec.op_class = i % 2;
    spec.events = 0x6 | (static_cast<uint64_t>(i) << 8);
    if (i != 4) spec.total_latency = static_cast<uint16_t>(10 * i + 1);
    spec.issue_latency = 3;
    spec.data_va = 0x10000 + 64 * i;
    if (i % 4 != 1) spec.data_source = i;
    if (i % 3 == 2) spec.timestamp = 1000 + i;
    EncodeRecord(spec, encoder);
  }
  return encoder.bytes();
}

class SpeTraceDecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("spe_trace_decoder_test");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_.emplace(std::move(*dir));
  }

  // One buffer per trace: cut into `chunks` equal chunks (the last one
  // final), or one raw file without chunks when `chunks` is 0.
  std::unique_ptr<capture::Capture> MakeCapture(
      const std::vector<std::string>& traces, size_t chunks) {
    capture::Manifest manifest;
    manifest.backend = capture::Backend::kSpe;
    manifest.mode = capture::TraceMode::kCpu;
    manifest.cpu.midr = 0x413fd0c1;  // Neoverse N1
    for (size_t b = 0; b < traces.size(); ++b) {
      const std::string name = "cpu" + std::to_string(b) + ".spe";
      EXPECT_TRUE(
          WriteFileAtomically(dir_->path() + "/" + name, traces[b]).ok());
      capture::BufferInfo info;
      info.id = static_cast<uint32_t>(b);
      info.cpu = static_cast<int32_t>(b);
      info.file = name;
      info.size = traces[b].size();
      const uint64_t step = chunks == 0 ? 0 : traces[b].size() / chunks;
      for (size_t c = 0; c < chunks; ++c) {
        const uint64_t start = c * step;
        const uint64_t end = c + 1 == chunks ? traces[b].size() : start + step;
        info.chunks.push_back(
            {start, end - start, c > 0, c + 1 < chunks, c + 1 == chunks});
      }
      manifest.buffers.push_back(info);
    }
    return std::make_unique<capture::Capture>(
        capture::InputKind::kBundleDirectory, dir_->path(), dir_->path(),
        std::move(manifest), std::vector<capture::Record>{},
        capture::InputOptions{}, std::nullopt);
  }

  // The SPE decoder's events and the record decoder's records of the same
  // capture agree sample for sample and gap for skipped run.
  void ExpectSameAsRecordDecoder(const capture::Capture& capture,
                                 size_t batch_size = 1024) {
    CollectingSink records;
    auto expected = DecodeCapture(capture, records);
    ASSERT_TRUE(expected.ok()) << expected.status();

    DecodeOptions options;
    options.batch_size = batch_size;
    auto decoder = SpeTraceDecoder::Create(capture, options);
    ASSERT_TRUE(decoder.ok()) << decoder.status();
    KeepingSampleSink sink;
    ASSERT_TRUE((*decoder)->Decode(sink).ok());

    const CpuModel cpu = expected->cpu;
    std::vector<std::string> want_samples, got_samples;
    for (size_t i = 0; i < records.records.size(); ++i) {
      if (!records.records[i].complete()) continue;
      want_samples.push_back(
          FormatRecordJson(records.records[i], records.buffers[i], cpu));
    }
    std::vector<std::string> want_gaps, got_gaps;
    for (size_t b = 0; b < expected->buffers.size(); ++b) {
      for (const SkippedRange& range : expected->buffers[b].skipped) {
        want_gaps.push_back(std::to_string(b) + " " +
                            std::to_string(range.offset) + " " +
                            std::to_string(range.length));
      }
    }
    size_t sample = 0;
    for (size_t i = 0; i < sink.events.size(); ++i) {
      const Event& e = sink.events[i];
      if (e.kind == EventKind::kGap) {
        EXPECT_EQ(e.reason, GapReason::kDecodeError);
        got_gaps.push_back(std::to_string(sink.streams[i]) + " " +
                           std::to_string(e.offset) + " " +
                           std::to_string(e.value));
        continue;
      }
      ASSERT_EQ(e.kind, EventKind::kSample);
      ASSERT_LT(sample, sink.samples.size());
      const Record& r = sink.samples[sample++];
      got_samples.push_back(FormatRecordJson(r, sink.streams[i], cpu));
      EXPECT_EQ(e.ip, r.pc);
      EXPECT_EQ(e.offset, r.offset);
      EXPECT_EQ(e.isa, Isa::kA64);
      EXPECT_EQ(e.value, r.has(kFieldTotalLatency) ? r.total_latency : 0u);
      EXPECT_EQ(e.time, r.has(kFieldTimestamp) ? r.timestamp : 0u);
    }
    EXPECT_EQ(got_samples, want_samples);
    EXPECT_EQ(got_gaps, want_gaps);
    std::vector<uint32_t> all_buffers;
    for (uint32_t b = 0; b < capture.manifest().buffers.size(); ++b) {
      all_buffers.push_back(b);
    }
    EXPECT_EQ(sink.ended, all_buffers);

    // StreamStats are what the SpeStats imply; the SpeStats are the record
    // decoder's.
    const CaptureStats* spe_stats = SpeCaptureStatsOf(**decoder);
    ASSERT_NE(spe_stats, nullptr);
    EXPECT_EQ(spe_stats->cpu.name, cpu.name);
    EXPECT_EQ(spe_stats->cpu.midr, cpu.midr);
    EXPECT_EQ(spe_stats->buffer_names, expected->buffer_names);
    ASSERT_EQ((*decoder)->stats().size(), expected->buffers.size());
    for (size_t b = 0; b < expected->buffers.size(); ++b) {
      const SpeStats& want = expected->buffers[b];
      const StreamStats& got = (*decoder)->stats()[b];
      EXPECT_EQ(got, ToStreamStats(want));
      EXPECT_EQ(got, ToStreamStats(spe_stats->buffers[b]));
      EXPECT_EQ(spe_stats->buffers[b].partial_records, want.partial_records);
      EXPECT_EQ(spe_stats->buffers[b].events, want.events);
      EXPECT_EQ(spe_stats->buffers[b].data_sources, want.data_sources);
      EXPECT_EQ(got.trace_bytes, want.bytes);
      EXPECT_EQ(got.trace_bytes, got.bytes_decoded + got.bytes_lost);
      EXPECT_EQ(got.errors, want.skipped_ranges);
      EXPECT_EQ(got.error_list.size(), want.skipped.size());
    }
    EXPECT_EQ(spe_stats->total.records, expected->total.records);
    EXPECT_EQ(spe_stats->total.bytes_skipped, expected->total.bytes_skipped);
  }

  std::optional<TempDir> dir_;
};

TEST_F(SpeTraceDecoderTest, EncodedSamplesAreTheRecords) {
  const std::string trace = EncodedSamples();
  ExpectSameAsRecordDecoder(*MakeCapture({trace}, 0));
  // Half-buffers cut records (partial: no samples) and small batches.
  ExpectSameAsRecordDecoder(*MakeCapture({trace, trace}, 2));
  ExpectSameAsRecordDecoder(*MakeCapture({trace}, 3), /*batch_size=*/2);
}

TEST_F(SpeTraceDecoderTest, CountedSamplesAreTheRecords) {
  ExpectSameAsRecordDecoder(*MakeCapture({testing::CountedSamplesTrace()}, 0));
}

TEST_F(SpeTraceDecoderTest, RealRecordsAndInvalidInputAreTheRecords) {
  const std::string records = ReadHex("quipper_records.hex");
  const std::string invalid = ReadHex("quipper_invalid.hex");
  ExpectSameAsRecordDecoder(*MakeCapture({records, invalid}, 0));
  ExpectSameAsRecordDecoder(*MakeCapture({records + invalid + records}, 2));
  ExpectSameAsRecordDecoder(
      *MakeCapture({invalid + records + invalid, records}, 3), 1);
}

// Invalid bytes at the end of one chunk and the start of the next are one
// skipped run, so one gap and one error.
TEST_F(SpeTraceDecoderTest, SkippedRunAcrossChunksIsOneGap) {
  const std::string garbage = "\xff\xff\xff\xff";
  const std::string trace =
      EncodedSamples() + garbage + garbage + EncodedSamples();
  auto capture = MakeCapture({trace}, 0);
  capture::Manifest manifest = capture->manifest();
  const uint64_t half = EncodedSamples().size() + garbage.size();
  manifest.buffers[0].chunks = {
      {0, half, false, false, false},
      {half, trace.size() - half, false, false, true}};
  capture::Capture chunked(capture::InputKind::kBundleDirectory, dir_->path(),
                           dir_->path(), manifest,
                           std::vector<capture::Record>{},
                           capture::InputOptions{}, std::nullopt);
  ExpectSameAsRecordDecoder(chunked);
  auto decoder = SpeTraceDecoder::Create(chunked);
  ASSERT_TRUE(decoder.ok());
  KeepingEventSink sink;
  ASSERT_TRUE((*decoder)->Decode(sink).ok());
  int gaps = 0;
  for (const Event& e : sink.events) gaps += e.kind == EventKind::kGap;
  EXPECT_EQ(gaps, 1);
  EXPECT_EQ((*decoder)->stats()[0].errors, 1u);
  EXPECT_EQ((*decoder)->stats()[0].bytes_lost, 2 * garbage.size());
}

// A sink that knows nothing of SPE gets the same events, without records.
TEST_F(SpeTraceDecoderTest, PlainSinksGetTheSameEvents) {
  auto capture =
      MakeCapture({EncodedSamples() + ReadHex("quipper_invalid.hex")}, 2);
  auto decoder = SpeTraceDecoder::Create(*capture);
  ASSERT_TRUE(decoder.ok());
  KeepingSampleSink with_records;
  ASSERT_TRUE((*decoder)->Decode(with_records).ok());
  KeepingEventSink plain;
  ASSERT_TRUE((*decoder)->Decode(plain).ok());
  ASSERT_EQ(plain.events.size(), with_records.events.size());
  for (size_t i = 0; i < plain.events.size(); ++i) {
    EXPECT_EQ(DescribeEvent(plain.events[i]),
              DescribeEvent(with_records.events[i]));
  }
}

TEST_F(SpeTraceDecoderTest, StreamsAreTheBuffers) {
  auto capture = MakeCapture({EncodedSamples(), EncodedSamples()}, 0);
  auto decoder = SpeTraceDecoder::Create(*capture);
  ASSERT_TRUE(decoder.ok());
  const auto& streams = (*decoder)->streams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[1].id, 1u);
  EXPECT_EQ(streams[1].buffer_index, 1u);
  EXPECT_EQ(streams[1].name, "buffer 1 (cpu 1)");
  EXPECT_EQ(streams[1].cpu, 1);
  EXPECT_EQ((*decoder)->stats().size(), 2u);
}

TEST_F(SpeTraceDecoderTest, ListPacketsIsTheRecordDecodersListing) {
  auto capture = MakeCapture(
      {EncodedSamples(), ReadHex("quipper_invalid.hex") + EncodedSamples()}, 2);
  KeepingPacketSink want;
  auto expected = ListCapturePackets(*capture, want);
  ASSERT_TRUE(expected.ok());
  auto decoder = SpeTraceDecoder::Create(*capture);
  ASSERT_TRUE(decoder.ok());
  KeepingPacketSink got;
  ASSERT_TRUE((*decoder)->ListPackets(got).ok());
  EXPECT_EQ(got.lines, want.lines);
  EXPECT_FALSE(got.lines.empty());
  for (size_t b = 0; b < expected->buffers.size(); ++b) {
    EXPECT_EQ((*decoder)->stats()[b], ToStreamStats(expected->buffers[b]));
  }
  EXPECT_EQ(SpeCaptureStatsOf(**decoder)->total.packets,
            expected->total.packets);
}

TEST_F(SpeTraceDecoderTest, OtherCapturesAreRefused) {
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kPt;
  capture::Capture pt(capture::InputKind::kBundleDirectory, "pt.hwt",
                      dir_->path(), manifest, std::vector<capture::Record>{},
                      capture::InputOptions{}, std::nullopt);
  EXPECT_TRUE(absl::IsFailedPrecondition(SpeTraceDecoder::Create(pt).status()));
}

}  // namespace
}  // namespace hwt::spe
