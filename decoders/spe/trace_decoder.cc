// The SPE TraceDecoder; see trace_decoder.h.
#include "decoders/spe/trace_decoder.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "decoders/spe/assembler.h"
#include "decoders/spe/sample_sink.h"
#include "decoders/spe/scanner.h"

namespace hwt::spe {
namespace {

// Turns one buffer's complete records into kSample events and its skipped
// runs into kGap events, in trace order, and hands them to the sink in
// batches (with the records when the sink is a SampleRecordSink).
class SampleBatcher : public RecordOutput {
 public:
  SampleBatcher(uint32_t stream, EventSink& sink, size_t batch_size)
      : stream_(stream),
        sink_(sink),
        samples_(dynamic_cast<SampleRecordSink*>(&sink)),
        batch_size_(std::max<size_t>(batch_size, 1)) {}

  // The assembler delivers every record as soon as it ends (its batch size
  // is 1), so samples and gaps keep their trace order here.
  void OnRecords(absl::Span<const Record> records) override {
    for (const Record& record : records) {
      if (!record.complete()) continue;
      events_.push_back(
          SampleEvent(record, static_cast<uint32_t>(records_.size())));
      records_.push_back(record);
      if (records_.size() >= batch_size_) Flush();
    }
  }

  // A run of skipped bytes. A run that starts where the previous one ended
  // (across a chunk boundary) is one run, as SpeStats::AddSkipped counts it:
  // its gap grows. That gap is still pending, since only a sample (whose
  // packets would lie between the runs) or a new run flushes.
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
    if (length == 0) return;
    const bool continues = offset == last_skip_end_;
    last_skip_end_ = offset + length;
    if (continues && !events_.empty() &&
        events_.back().kind == EventKind::kGap) {
      events_.back().value += length;
      return;
    }
    // Gaps alone never fill a batch of samples: bound them too.
    if (events_.size() >= 4 * batch_size_) Flush();
    Event gap;
    gap.kind = EventKind::kGap;
    gap.reason = GapReason::kDecodeError;
    gap.offset = offset;
    gap.value = length;
    gap.code = static_cast<uint32_t>(reason);
    events_.push_back(gap);
  }

  void Flush() {
    if (events_.empty()) return;
    if (samples_ != nullptr) {
      samples_->OnSamples(stream_, events_, records_);
    } else {
      sink_.OnEvents(stream_, events_);
    }
    events_.clear();
    records_.clear();
  }

 private:
  uint32_t stream_;
  EventSink& sink_;
  SampleRecordSink* samples_;
  size_t batch_size_;
  std::vector<Event> events_;
  std::vector<Record> records_;
  uint64_t last_skip_end_ = ~uint64_t{0};
};

// Scanner visitor: packets to the assembler, skipped runs to both.
class SampleScan {
 public:
  SampleScan(RecordAssembler& assembler, SampleBatcher& batcher)
      : assembler_(assembler), batcher_(batcher) {}
  void OnPacket(const Packet& packet) { assembler_.OnPacket(packet); }
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
    assembler_.OnSkipped(offset, length, reason);
    batcher_.OnSkipped(offset, length, reason);
  }

 private:
  RecordAssembler& assembler_;
  SampleBatcher& batcher_;
};

}  // namespace

StreamStats ToStreamStats(const SpeStats& spe) {
  StreamStats out;
  out.trace_bytes = spe.bytes;
  out.bytes_decoded = spe.bytes_decoded;
  out.bytes_lost = spe.bytes_skipped;
  out.packets = spe.packets;
  out.errors = spe.skipped_ranges;
  for (const SkippedRange& range : spe.skipped) {
    if (out.error_list.size() >= StreamStats::kMaxListedErrors) break;
    DecodeErrorInfo error;
    error.offset = range.offset;
    error.bytes_lost = range.length;
    error.reason = GapReason::kDecodeError;
    error.message = absl::StrCat(
        "SPE bytes skipped (", std::string(SkipReasonName(range.reason)), ")");
    out.error_list.push_back(std::move(error));
  }
  return out;
}

const CaptureStats* SpeCaptureStatsOf(const TraceDecoder& decoder) {
  const auto* spe = dynamic_cast<const SpeTraceDecoder*>(&decoder);
  return spe != nullptr ? &spe->capture_stats() : nullptr;
}

absl::StatusOr<std::unique_ptr<SpeTraceDecoder>> SpeTraceDecoder::Create(
    const capture::Capture& capture, const DecodeOptions& options) {
  HWT_RETURN_IF_ERROR(CheckSpeCapture(capture));
  return std::unique_ptr<SpeTraceDecoder>(
      new SpeTraceDecoder(capture, options));
}

SpeTraceDecoder::SpeTraceDecoder(const capture::Capture& capture,
                                 const DecodeOptions& options)
    : capture_(capture), options_(options) {
  const auto& buffers = capture.manifest().buffers;
  for (size_t b = 0; b < buffers.size(); ++b) {
    StreamInfo info;
    info.id = static_cast<uint32_t>(b);
    info.buffer_index = b;
    info.name = BufferName(buffers[b], b);
    info.cpu = buffers[b].cpu;
    info.thread = buffers[b].thread;
    streams_.push_back(std::move(info));
  }
  StartRun();
  FinishRun();
}

void SpeTraceDecoder::StartRun() {
  capture_stats_ = CaptureStats();
  capture_stats_.cpu = CaptureCpu(capture_, options_);
  capture_stats_.buffers.resize(streams_.size());
  for (const StreamInfo& stream : streams_) {
    capture_stats_.buffer_names.push_back(stream.name);
  }
}

void SpeTraceDecoder::FinishRun() {
  capture_stats_.total = SpeStats();
  stats_.clear();
  for (const SpeStats& buffer : capture_stats_.buffers) {
    capture_stats_.total.Merge(buffer);
    stats_.push_back(ToStreamStats(buffer));
  }
}

absl::Status SpeTraceDecoder::Decode(EventSink& sink) {
  StartRun();
  for (uint32_t b = 0; b < streams_.size(); ++b) {
    HWT_RETURN_IF_ERROR(DecodeBuffer(b, sink));
  }
  FinishRun();
  return absl::OkStatus();
}

absl::Status SpeTraceDecoder::DecodeBuffer(uint32_t buffer, EventSink& sink) {
  HWT_ASSIGN_OR_RETURN(BufferTrace trace, OpenBufferTrace(capture_, buffer));
  SpeStats& stats = capture_stats_.buffers[buffer];
  SampleBatcher batcher(buffer, sink, options_.batch_size);
  // Partial records are counted, not delivered: they are no samples.
  RecordAssembler assembler(&stats, &batcher, /*deliver_partial=*/false,
                            /*batch_size=*/1);
  SampleScan scan(assembler, batcher);
  for (const capture::BufferChunk& chunk : trace.chunks) {
    CountChunk(chunk, chunk.size, &stats);
    ScanPackets(trace.file.data() + chunk.offset, chunk.size, chunk.offset,
                scan);
    assembler.EndChunk();
  }
  assembler.Flush();
  batcher.Flush();
  sink.OnStreamEnd(buffer);
  return absl::OkStatus();
}

absl::Status SpeTraceDecoder::ListPackets(PacketSink& sink) {
  HWT_ASSIGN_OR_RETURN(capture_stats_,
                       ListCapturePackets(capture_, sink, options_));
  FinishRun();
  return absl::OkStatus();
}

}  // namespace hwt::spe
