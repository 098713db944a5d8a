// SPE decode entry points; see decoder.h.
#include "decoders/spe/decoder.h"

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "decoders/spe/listing.h"
#include "decoders/spe/scanner.h"

namespace hwt::spe {
namespace {

// Checks a buffer's chunks against its file before anything is decoded.
absl::Status CheckChunks(const capture::Capture& capture, size_t buffer,
                         const std::vector<capture::BufferChunk>& chunks,
                         uint64_t file_size) {
  for (const capture::BufferChunk& chunk : chunks) {
    if (chunk.offset > file_size || chunk.size > file_size - chunk.offset) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: chunk at offset 0x%x size %d runs past the end of the file "
          "(%d bytes)",
          capture.BufferPath(buffer), chunk.offset, chunk.size, file_size));
    }
  }
  return absl::OkStatus();
}

// Scanner visitor for listings: lists every packet and skipped run, and
// assembles records for the statistics and the partial-record notes.
class ListingVisitor : public RecordOutput {
 public:
  ListingVisitor(uint32_t buffer, const CpuModel& cpu, PacketSink& sink,
                 SpeStats* stats)
      : buffer_(buffer),
        cpu_(cpu),
        sink_(sink),
        assembler_(stats, this, /*deliver_partial=*/true, /*batch_size=*/1) {}

  void StartChunk(const uint8_t* data, uint64_t file_offset) {
    data_ = data;
    file_offset_ = file_offset;
  }
  void OnPacket(const Packet& packet) {
    sink_.OnPacket(
        buffer_, packet.offset,
        FormatPacket(data_ + (packet.offset - file_offset_), packet, cpu_));
    assembler_.OnPacket(packet);
  }
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
    sink_.OnPacket(
        buffer_, offset,
        FormatSkipped(data_ + (offset - file_offset_), length, reason));
    assembler_.OnSkipped(offset, length, reason);
  }
  void OnRecords(absl::Span<const Record> records) override {
    for (const Record& record : records) {
      if (record.complete()) continue;
      sink_.OnPacket(buffer_, record.offset,
                     absl::StrFormat("[partial record 0x%x-0x%x: %s]",
                                     record.offset, record.end_offset,
                                     PartialReasonName(record.partial)));
    }
  }
  RecordAssembler& assembler() { return assembler_; }

 private:
  uint32_t buffer_;
  const CpuModel& cpu_;
  PacketSink& sink_;
  RecordAssembler assembler_;
  const uint8_t* data_ = nullptr;
  uint64_t file_offset_ = 0;
};

}  // namespace

BufferDecoder::BufferDecoder(uint32_t buffer, SpeStats* stats, RecordSink* sink,
                             const DecodeOptions& options)
    : buffer_(buffer),
      stats_(stats),
      sink_(sink),
      output_(buffer, sink),
      assembler_(stats, sink != nullptr ? &output_ : nullptr,
                 options.deliver_partial_records, options.batch_size) {}

BufferDecoder::~BufferDecoder() { Finish(); }

void BufferDecoder::DecodeChunk(absl::Span<const uint8_t> bytes,
                                uint64_t file_offset,
                                const capture::BufferChunk& flags) {
  CountChunk(flags, bytes.size(), stats_);
  ScanPackets(bytes.data(), bytes.size(), file_offset, assembler_);
  assembler_.EndChunk();
}

void BufferDecoder::DecodeChunk(absl::Span<const uint8_t> bytes,
                                uint64_t file_offset) {
  DecodeChunk(bytes, file_offset, capture::BufferChunk());
}

void BufferDecoder::Finish() {
  if (finished_) return;
  finished_ = true;
  assembler_.Flush();
  if (sink_ != nullptr) sink_->OnBufferEnd(buffer_);
}

void CountChunk(const capture::BufferChunk& flags, uint64_t size,
                SpeStats* stats) {
  ++stats->chunks;
  stats->bytes += size;
  if (flags.partial_record) ++stats->chunks_partial_record;
  if (flags.data_lost_before) ++stats->chunks_data_lost_before;
  if (flags.final) ++stats->chunks_final;
}

absl::Status CheckSpeCapture(const capture::Capture& capture) {
  if (capture.manifest().backend != capture::Backend::kSpe) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: not an SPE capture (backend %s)", capture.source_path(),
        capture::BackendName(capture.manifest().backend)));
  }
  return absl::OkStatus();
}

CpuModel CaptureCpu(const capture::Capture& capture,
                    const DecodeOptions& options) {
  return IdentifyCpu(options.midr.value_or(capture.manifest().cpu.midr));
}

absl::StatusOr<BufferTrace> OpenBufferTrace(const capture::Capture& capture,
                                            size_t buffer) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, capture.MapBuffer(buffer));
  std::vector<capture::BufferChunk> chunks = capture.BufferChunks(buffer);
  if (capture.manifest().buffers[buffer].chunks.empty()) {
    chunks.front().size = file.size();
  }
  HWT_RETURN_IF_ERROR(CheckChunks(capture, buffer, chunks, file.size()));
  return BufferTrace{std::move(file), std::move(chunks)};
}

SpeStats DecodeBytes(absl::Span<const uint8_t> bytes, RecordSink* sink,
                     const DecodeOptions& options, uint32_t buffer) {
  SpeStats stats;
  {
    BufferDecoder decoder(buffer, &stats, sink, options);
    decoder.DecodeChunk(bytes, 0);
    decoder.Finish();
  }
  return stats;
}

std::string BufferName(const capture::BufferInfo& info, size_t index) {
  if (info.cpu) return absl::StrFormat("buffer %d (cpu %d)", index, *info.cpu);
  if (info.thread) {
    return absl::StrFormat("buffer %d (thread %d)", index, *info.thread);
  }
  return absl::StrFormat("buffer %d", index);
}

absl::StatusOr<CaptureStats> DecodeCapture(const capture::Capture& capture,
                                           RecordSink& sink,
                                           const DecodeOptions& options) {
  HWT_RETURN_IF_ERROR(CheckSpeCapture(capture));
  CaptureStats result;
  result.cpu = CaptureCpu(capture, options);
  DecodeOptions resolved = options;
  resolved.midr = result.cpu.midr;
  const auto& buffers = capture.manifest().buffers;
  result.buffers.resize(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    result.buffer_names.push_back(BufferName(buffers[b], b));
    HWT_ASSIGN_OR_RETURN(BufferTrace trace, OpenBufferTrace(capture, b));
    SpeStats& stats = result.buffers[b];
    BufferDecoder decoder(static_cast<uint32_t>(b), &stats, &sink, resolved);
    for (const capture::BufferChunk& chunk : trace.chunks) {
      decoder.DecodeChunk(trace.file.bytes().subspan(chunk.offset, chunk.size),
                          chunk.offset, chunk);
    }
    decoder.Finish();
    result.total.Merge(stats);
  }
  return result;
}

absl::StatusOr<CaptureStats> ListCapturePackets(const capture::Capture& capture,
                                                PacketSink& sink,
                                                const DecodeOptions& options) {
  HWT_RETURN_IF_ERROR(CheckSpeCapture(capture));
  CaptureStats result;
  result.cpu = CaptureCpu(capture, options);
  const auto& buffers = capture.manifest().buffers;
  result.buffers.resize(buffers.size());
  for (size_t b = 0; b < buffers.size(); ++b) {
    result.buffer_names.push_back(BufferName(buffers[b], b));
    HWT_ASSIGN_OR_RETURN(BufferTrace trace, OpenBufferTrace(capture, b));
    SpeStats& stats = result.buffers[b];
    ListingVisitor visitor(static_cast<uint32_t>(b), result.cpu, sink, &stats);
    for (const capture::BufferChunk& chunk : trace.chunks) {
      if (trace.chunks.size() > 1 || chunk.partial_record ||
          chunk.data_lost_before) {
        sink.OnPacket(
            static_cast<uint32_t>(b), chunk.offset,
            absl::StrFormat("[chunk 0x%x size %d%s%s%s]", chunk.offset,
                            chunk.size,
                            chunk.data_lost_before ? " data-lost-before" : "",
                            chunk.partial_record ? " partial-record" : "",
                            chunk.final ? " final" : ""));
      }
      CountChunk(chunk, chunk.size, &stats);
      const uint8_t* data = trace.file.data() + chunk.offset;
      visitor.StartChunk(data, chunk.offset);
      ScanPackets(data, chunk.size, chunk.offset, visitor);
      visitor.assembler().EndChunk();
    }
    visitor.assembler().Flush();
    result.total.Merge(stats);
  }
  return result;
}

}  // namespace hwt::spe
