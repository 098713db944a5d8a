// Fuzzes the ARM SPE decoder: packet decoding and resynchronisation, record
// assembly, statistics, the text/JSON record formatting and the packet
// listing, over raw bytes (DecodeBytes) and over a capture whose buffer is
// the input cut into two half-buffer chunks (DecodeCapture,
// ListCapturePackets), as hwt(8) writes SPE. Seeds: the real records of
// testdata/spe (quipper) and a synthetic mix.
//
// Checks: no crash, no hang; every byte is in a packet or skipped
// (bytes == bytes_decoded + bytes_skipped == input size); partial records
// add up by reason; records lie inside the buffer, in order; packet offsets
// lie inside the buffer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/hex_dump.h"
#include "capture/capture.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/listing.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::fuzz::Fail;

constexpr uint64_t kNeoverseN1Midr = 0x410fd0c0;

std::unique_ptr<hwt::capture::Capture>* g_capture_template = nullptr;
std::string* g_trace_path = nullptr;

class CheckingRecordSink : public hwt::spe::RecordSink {
 public:
  CheckingRecordSink(uint64_t base, uint64_t limit, bool format)
      : base_(base), limit_(limit), format_(format) {
    cpu_ = hwt::spe::IdentifyCpu(kNeoverseN1Midr);
  }
  void OnRecords(uint32_t buffer,
                 absl::Span<const hwt::spe::Record> records) override {
    for (const hwt::spe::Record& record : records) {
      if (record.offset < base_ || record.end_offset > limit_ ||
          record.offset > record.end_offset) {
        Fail(
            absl::StrFormat("record [0x%x, 0x%x) outside the buffer "
                            "[0x%x, 0x%x)",
                            record.offset, record.end_offset, base_, limit_));
      }
      if (record.offset < last_end_) {
        Fail(
            absl::StrFormat("record at 0x%x overlaps the previous one "
                            "(ends at 0x%x)",
                            record.offset, last_end_));
      }
      last_end_ = record.end_offset;
      if (format_) {
        text_ += hwt::spe::FormatRecordText(record, cpu_);
        text_ += hwt::spe::FormatRecordJson(record, buffer, cpu_);
      }
      ++records_;
    }
  }
  void OnBufferEnd(uint32_t) override { ++ends_; }
  uint64_t records() const { return records_; }
  int ends() const { return ends_; }

 private:
  uint64_t base_;
  uint64_t limit_;
  bool format_;
  hwt::spe::CpuModel cpu_;
  uint64_t last_end_ = 0;
  uint64_t records_ = 0;
  int ends_ = 0;
  std::string text_;
};

class CheckingPacketSink : public hwt::PacketSink {
 public:
  explicit CheckingPacketSink(uint64_t limit) : limit_(limit) {}
  void OnPacket(uint32_t, uint64_t offset, std::string_view text) override {
    if (offset > limit_) {
      Fail(
          absl::StrFormat("listing line \"%s\" at 0x%x beyond the %u-byte "
                          "buffer",
                          std::string(text), offset, limit_));
    }
  }

 private:
  uint64_t limit_;
};

void CheckStats(const hwt::spe::SpeStats& stats, uint64_t size,
                uint64_t records_delivered, const char* what) {
  if (stats.bytes != size ||
      stats.bytes != stats.bytes_decoded + stats.bytes_skipped) {
    Fail(absl::StrFormat("%s: %u bytes in, %u decoded + %u skipped", what, size,
                         stats.bytes_decoded, stats.bytes_skipped));
  }
  uint64_t partial = 0;
  for (uint64_t n : stats.partial_by_reason) partial += n;
  if (partial != stats.partial_records) {
    Fail(absl::StrFormat("%s: %u partial records, %u by reason", what,
                         stats.partial_records, partial));
  }
  if (records_delivered != stats.records + stats.partial_records) {
    Fail(absl::StrFormat("%s: %u records delivered, %u + %u partial counted",
                         what, records_delivered, stats.records,
                         stats.partial_records));
  }
  uint64_t skipped = 0;
  for (const auto& range : stats.skipped) skipped += range.length;
  if (stats.skipped_ranges <= hwt::spe::SpeStats::kMaxListedSkips &&
      skipped != stats.bytes_skipped) {
    Fail(absl::StrFormat("%s: skipped ranges add up to %u, %u counted", what,
                         skipped, stats.bytes_skipped));
  }
}

void Initialize() {
  std::vector<std::string> seeds;
  for (const char* name : {"quipper_records.hex", "quipper_invalid.hex"}) {
    std::string text;
    const std::string path = hwt::fuzz::SourceDir() + "/testdata/spe/" + name;
    if (!hwt::fuzz::ReadFile(path, &text)) Fail("cannot read " + path);
    absl::StatusOr<std::string> bytes = hwt::ParseHexDump(text);
    hwt::fuzz::CheckOk(bytes.status(), path);
    seeds.push_back(*bytes);
  }
  seeds.push_back(seeds[0] + seeds[1] + seeds[0]);
  hwt::fuzz::WriteGeneratedSeeds("spe", seeds);

  g_trace_path = new std::string(hwt::fuzz::ScratchDir() + "/spe.bin");
  hwt::capture::Manifest manifest;
  manifest.backend = hwt::capture::Backend::kSpe;
  manifest.mode = hwt::capture::TraceMode::kCpu;
  manifest.cpu.arch = "aarch64";
  manifest.cpu.midr = kNeoverseN1Midr;
  manifest.spe.emplace();
  hwt::capture::BufferInfo buffer;
  buffer.id = 0;
  buffer.cpu = 0;
  buffer.file = *g_trace_path;
  manifest.buffers.push_back(buffer);
  g_capture_template = new std::unique_ptr<hwt::capture::Capture>(
      std::make_unique<hwt::capture::Capture>(
          hwt::capture::InputKind::kRawFile, *g_trace_path,
          hwt::fuzz::ScratchDir(), std::move(manifest),
          std::vector<hwt::capture::Record>(), hwt::capture::InputOptions(),
          std::nullopt));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = absl::MakeConstSpan(data, size);
  {
    CheckingRecordSink sink(0, size, /*format=*/true);
    hwt::spe::DecodeOptions options;
    options.midr = kNeoverseN1Midr;
    options.batch_size = 7;  // many batches
    hwt::spe::SpeStats stats = hwt::spe::DecodeBytes(bytes, &sink, options);
    CheckStats(stats, size, sink.records(), "DecodeBytes");
    HWT_FUZZ_CHECK(sink.ends() == 1, "DecodeBytes: buffer end not reported");
  }

  // The same bytes as a capture buffer of two half-buffer chunks.
  hwt::fuzz::WriteFileOrDie(*g_trace_path, bytes);
  const hwt::capture::Capture& base = **g_capture_template;
  hwt::capture::Manifest manifest = base.manifest();
  manifest.buffers[0].size = size;
  if (size >= 2) {
    const uint64_t half = size / 2;
    manifest.buffers[0].chunks = {{0, half, false, true, false},
                                  {half, size - half, false, true, true}};
  }
  hwt::capture::Capture capture(base.kind(), base.source_path(), base.root(),
                                std::move(manifest), {}, base.options(),
                                std::nullopt);
  {
    CheckingRecordSink sink(0, size, /*format=*/false);
    auto stats = hwt::spe::DecodeCapture(capture, sink);
    hwt::fuzz::CheckOk(stats.status(), "DecodeCapture");
    CheckStats(stats->total, size, sink.records(), "DecodeCapture");
  }
  {
    CheckingPacketSink sink(size);
    auto stats = hwt::spe::ListCapturePackets(capture, sink);
    hwt::fuzz::CheckOk(stats.status(), "ListCapturePackets");
    CheckStats(stats->total, size,
               stats->total.records + stats->total.partial_records,
               "ListCapturePackets");
  }
  return 0;
}
