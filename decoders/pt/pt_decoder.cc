// The Intel PT decoder over libipt's block decoder; see pt_decoder.h and
// pt_events.h.
#include "decoders/pt/pt_decoder.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/pt/pt_fast_count.h"
#include "decoders/pt/pt_parallel.h"
#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_segment_decoder.h"

namespace hwt::pt {
namespace {

constexpr uint64_t kRtitCtlMtcFreqShift = 14;
constexpr uint64_t kNominalRatioHz = 100'000'000;  // MSR_PLATFORM_INFO unit

}  // namespace

void BuildPtConfig(const capture::Manifest& manifest,
                   const PtDecoderOptions& options, PtRunContext* context) {
  pt_config& config = context->config;
  pt_config_init(&config);
  context->cpu = SetupPtCpu(manifest.cpu);
  config.cpu = context->cpu.cpu;
  config.errata = context->cpu.errata;
  config.cpuid_0x15_eax = manifest.cpu.cpuid_15_eax;
  config.cpuid_0x15_ebx = manifest.cpu.cpuid_15_ebx;
  config.nom_freq = static_cast<uint8_t>(std::min<uint64_t>(
      manifest.cpu.nominal_frequency_hz / kNominalRatioHz, 255));
  if (manifest.pt) {
    const capture::PtConfig& pt = *manifest.pt;
    config.mtc_freq = static_cast<uint8_t>(
        pt.mtc_freq != 0 ? pt.mtc_freq
                         : (pt.rtit_ctl >> kRtitCtlMtcFreqShift) & 0xf);
    uint64_t* ranges[][2] = {
        {&config.addr_filter.addr0_a, &config.addr_filter.addr0_b},
        {&config.addr_filter.addr1_a, &config.addr_filter.addr1_b},
        {&config.addr_filter.addr2_a, &config.addr_filter.addr2_b},
        {&config.addr_filter.addr3_a, &config.addr_filter.addr3_b}};
    for (size_t i = 0; i < pt.address_filters.size() && i < 4; ++i) {
      const capture::PtAddressFilter& filter = pt.address_filters[i];
      config.addr_filter.config.addr_cfg |=
          static_cast<uint64_t>(filter.config & 0xf) << (4 * i);
      *ranges[i][0] = filter.start;
      *ranges[i][1] = filter.end;
    }
  }
  config.flags.variant.block.end_on_call = options.end_on_call;
  config.flags.variant.block.end_on_jump = options.end_on_jump;
  config.flags.variant.block.enable_tick_events = options.enable_tick_events;
  context->options = options;
}

PtStreamDecoder::PtStreamDecoder(const PtRunContext& run, size_t buffer_index,
                                 uint32_t stream, EventSink* sink)
    : run_(run),
      stream_(stream),
      sink_(sink),
      decoder_(std::make_unique<PtSegmentDecoder>(run, buffer_index)) {}

PtStreamDecoder::~PtStreamDecoder() = default;

void PtStreamDecoder::DecodeChunk(const uint8_t* data, size_t size,
                                  uint64_t file_offset, bool data_lost_before) {
  stats_.trace_bytes += size;
  PtDecodeJob job;
  job.data = data;
  job.size = size;
  job.base = file_offset;
  job.data_lost_before = data_lost_before;
  SegmentOutput output(sink_, decoder_.get(), &stats_);
  decoder_->Decode(job, &output, stream_, run_.options.batch_size);
  output.Finish();
  stats_.bytes_decoded = stats_.trace_bytes - stats_.bytes_lost;
}

void PtStreamDecoder::Finish() { sink_->OnStreamEnd(stream_); }

absl::StatusOr<std::unique_ptr<PtDecoder>> PtDecoder::Create(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const PtDecoderOptions& options) {
  const capture::Manifest& manifest = capture.manifest();
  if (manifest.backend != capture::Backend::kPt) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the PT decoder cannot decode a '%s' capture",
        capture.source_path(), capture::BackendName(manifest.backend)));
  }
  if (address_space.buffer_count() < manifest.buffers.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the address-space timeline covers %u buffers, the capture has "
        "%u",
        capture.source_path(), address_space.buffer_count(),
        manifest.buffers.size()));
  }
  std::unique_ptr<PtDecoder> decoder(new PtDecoder(capture, address_space));
  PtRunContext& run = decoder->run_;
  run.timeline = &address_space;
  BuildPtConfig(manifest, options, &run);
  run.options.jobs = ResolveJobs(options.jobs);
  run.sections = std::make_unique<PtSectionCache>(address_space);
  if (run.sections->iscache() == nullptr) {
    return absl::ResourceExhaustedError(
        "libipt could not allocate an image section cache");
  }
  run.files =
      options.files ? options.files : std::make_shared<ImageFileCache>();
  if (!run.cpu.note.empty()) decoder->notes_.push_back(run.cpu.note);
  for (size_t i = 0; i < manifest.buffers.size(); ++i) {
    const capture::BufferInfo& buffer = manifest.buffers[i];
    StreamInfo info;
    info.id = static_cast<uint32_t>(i);
    info.buffer_index = i;
    info.cpu = buffer.cpu;
    info.thread = buffer.thread;
    if (buffer.cpu) {
      info.name = absl::StrFormat("buffer %u (cpu %d)", buffer.id, *buffer.cpu);
    } else if (buffer.thread) {
      info.name =
          absl::StrFormat("buffer %u (thread %d)", buffer.id, *buffer.thread);
    } else {
      info.name = absl::StrFormat("buffer %u", buffer.id);
    }
    decoder->streams_.push_back(std::move(info));
  }
  decoder->stats_.resize(manifest.buffers.size());
  return decoder;
}

namespace {

// Checks that the chunks lie inside the mapped buffer file.
absl::Status CheckChunks(const std::string& path, const MappedFile& file,
                         const std::vector<capture::BufferChunk>& chunks) {
  for (const capture::BufferChunk& chunk : chunks) {
    if (chunk.offset > file.size() || chunk.size > file.size() - chunk.offset) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: chunk [0x%x, 0x%x) goes past the end of the file (%u bytes)",
          path, chunk.offset, chunk.offset + chunk.size, file.size()));
    }
  }
  return absl::OkStatus();
}

// Holds each segment's events until its turn, then hands them to the sink
// (Decode() with jobs > 1). Events are kept in chunks of one batch that are
// recycled, so that holding them costs neither reallocation nor fresh pages.
// `unnumber`: the segments come from different decoders, whose block numbers
// (kBlockDecoderId, the fast path's) would clash in one stream: blocks lose
// them.
class BufferingConsumer : public SegmentConsumer {
 public:
  BufferingConsumer(EventSink& sink, size_t batch_size, bool unnumber)
      : sink_(sink),
        batch_size_(std::max<size_t>(batch_size, 1)),
        unnumber_(unnumber) {}

  std::unique_ptr<EventSink> StartSegment(uint32_t stream) override {
    return std::make_unique<Buffer>(this);
  }
  void CommitSegment(uint32_t stream,
                     std::unique_ptr<EventSink> segment) override {
    for (const std::vector<Event>& chunk :
         static_cast<Buffer*>(segment.get())->chunks) {
      if (!chunk.empty()) sink_.OnEvents(stream, absl::MakeConstSpan(chunk));
    }
  }
  void EndStream(uint32_t stream) override { sink_.OnStreamEnd(stream); }

 private:
  struct Buffer : public EventSink {
    explicit Buffer(BufferingConsumer* owner) : owner(owner) {}
    ~Buffer() override {
      std::lock_guard<std::mutex> lock(owner->mutex_);
      for (std::vector<Event>& chunk : chunks) {
        chunk.clear();
        owner->free_.push_back(std::move(chunk));
      }
    }
    void OnEvents(uint32_t, absl::Span<const Event> more) override {
      while (!more.empty()) {
        if (chunks.empty() || chunks.back().size() == owner->batch_size_) {
          chunks.push_back(owner->NewChunk());
        }
        std::vector<Event>& chunk = chunks.back();
        const size_t n =
            std::min(more.size(), owner->batch_size_ - chunk.size());
        chunk.insert(chunk.end(), more.begin(), more.begin() + n);
        if (owner->unnumber_) {
          for (auto e = chunk.end() - n; e != chunk.end(); ++e) {
            if (IsDecoderNumbered(*e)) {
              e->code &= ~kBlockDecoderId;
              e->value = 0;
            }
          }
        }
        more.remove_prefix(n);
      }
    }
    BufferingConsumer* owner;
    std::vector<std::vector<Event>> chunks;
  };

  std::vector<Event> NewChunk() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::vector<Event> chunk = std::move(free_.back());
        free_.pop_back();
        return chunk;
      }
    }
    std::vector<Event> chunk;
    chunk.reserve(batch_size_);
    return chunk;
  }

  EventSink& sink_;
  size_t batch_size_;
  bool unnumber_;
  std::mutex mutex_;
  std::vector<std::vector<Event>> free_;
};

}  // namespace

absl::Status PtDecoder::MapBuffers(std::vector<MappedFile>* files,
                                   std::vector<PtBufferInput>* inputs) {
  files->clear();
  inputs->clear();
  for (size_t i = 0; i < streams_.size(); ++i) {
    HWT_ASSIGN_OR_RETURN(MappedFile file, capture_.MapBuffer(i));
    PtBufferInput input;
    input.chunks = capture_.BufferChunks(i);
    HWT_RETURN_IF_ERROR(CheckChunks(file.path(), file, input.chunks));
    input.data = file.data();
    files->push_back(std::move(file));
    inputs->push_back(std::move(input));
  }
  return absl::OkStatus();
}

PtDecoder::PtDecoder(const capture::Capture& capture,
                     const capture::AddressSpaceTimeline& address_space)
    : capture_(capture),
      address_space_(address_space),
      fast_stats_(std::make_unique<PtFastCountStats>()) {}

PtDecoder::~PtDecoder() = default;

absl::Status PtDecoder::DecodeFast(SegmentConsumer* consumer, EventSink* sink) {
  std::vector<MappedFile> files;
  std::vector<PtBufferInput> inputs;
  HWT_RETURN_IF_ERROR(MapBuffers(&files, &inputs));
  *fast_stats_ = PtFastCountStats();
  // Buffers are independent streams: with a segment consumer (which takes
  // segments of different streams from several threads) each worker takes
  // the next buffer. A sink sees the streams one after the other.
  std::mutex mutex;  // consumer commits, fast_stats_
  size_t next = 0;
  auto work = [&] {
    for (;;) {
      size_t i = 0;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == inputs.size()) return;
        i = next++;
      }
      const uint32_t stream = static_cast<uint32_t>(i);
      std::unique_ptr<EventSink> segment;
      if (consumer != nullptr) segment = consumer->StartSegment(stream);
      EventSink* out = consumer != nullptr ? segment.get() : sink;
      StreamStats stats;
      PtFastCounter counter(run_, i, out, stream);
      for (const capture::BufferChunk& chunk : inputs[i].chunks) {
        counter.CountChunk(inputs[i].data + chunk.offset, chunk.size,
                           chunk.offset, chunk.data_lost_before, &stats);
      }
      std::lock_guard<std::mutex> lock(mutex);
      fast_stats_->Merge(counter.fast_stats());
      stats_[i] = std::move(stats);
      if (consumer != nullptr) {
        consumer->CommitSegment(stream, std::move(segment));
        consumer->EndStream(stream);
      } else {
        sink->OnStreamEnd(stream);
      }
    }
  };
  const size_t workers =
      consumer != nullptr
          ? std::min<size_t>(std::max(run_.options.jobs, 1), inputs.size())
          : 1;
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  return absl::OkStatus();
}

absl::Status PtDecoder::Decode(EventSink& sink) {
  const int jobs = run_.options.jobs;
  if (run_.options.fast && jobs <= 1) return DecodeFast(nullptr, &sink);
  if (jobs > 1) {
    BufferingConsumer consumer(sink, run_.options.batch_size,
                               /*unnumber=*/run_.options.fast);
    const size_t segment_bytes = run_.options.segment_bytes != 0
                                     ? run_.options.segment_bytes
                                     : kDecodeSegmentBytes;
    return DecodeParallel(consumer, segment_bytes, 2 * jobs + 2);
  }
  std::vector<MappedFile> files;
  std::vector<PtBufferInput> inputs;
  HWT_RETURN_IF_ERROR(MapBuffers(&files, &inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    PtStreamDecoder stream(run_, i, static_cast<uint32_t>(i), &sink);
    for (const capture::BufferChunk& chunk : inputs[i].chunks) {
      stream.DecodeChunk(inputs[i].data + chunk.offset, chunk.size,
                         chunk.offset, chunk.data_lost_before);
    }
    stream.Finish();
    stats_[i] = stream.stats();
  }
  return absl::OkStatus();
}

absl::Status PtDecoder::CountInstructions(PtFastCountStats* fast) {
  std::vector<MappedFile> files;
  std::vector<PtBufferInput> inputs;
  HWT_RETURN_IF_ERROR(MapBuffers(&files, &inputs));
  PtFastCountStats total;
  for (size_t i = 0; i < inputs.size(); ++i) {
    PtFastCounter counter(run_, i);
    StreamStats stats;
    for (const capture::BufferChunk& chunk : inputs[i].chunks) {
      counter.CountChunk(inputs[i].data + chunk.offset, chunk.size,
                         chunk.offset, chunk.data_lost_before, &stats);
    }
    stats_[i] = std::move(stats);
    total.Merge(counter.fast_stats());
  }
  *fast = total;
  *fast_stats_ = total;
  return absl::OkStatus();
}

absl::Status PtDecoder::CountInstructions(std::string* note) {
  PtFastCountStats fast;
  HWT_RETURN_IF_ERROR(CountInstructions(&fast));
  if (note != nullptr) *note = EngineNote();
  return absl::OkStatus();
}

std::string PtDecoder::EngineNote() const {
  const PtFastCountStats& fast = *fast_stats_;
  if (fast.segments == 0) return {};
  return absl::StrFormat(
      "fast path: %u of %u PSB segments walked through %u cached blocks "
      "(%u trace bytes), %u decoded by libipt (errors, overflows, address-"
      "space changes, timing or context packets, tracing off at a PSB)",
      fast.fast_segments, fast.segments, fast.blocks_cached, fast.fast_bytes,
      fast.libipt_segments);
}

bool PtDecoder::SplitsStreams() const {
  return !run_.options.fast || run_.options.jobs > 1;
}

absl::Status PtDecoder::DecodeSegments(SegmentConsumer& consumer) {
  size_t segment_bytes = run_.options.segment_bytes;
  const int jobs = run_.options.jobs;
  if (run_.options.fast && jobs <= 1) return DecodeFast(&consumer, nullptr);
  if (segment_bytes == 0) {
    uint64_t total = 0;
    for (const capture::BufferInfo& buffer : capture_.manifest().buffers) {
      total += buffer.size;
    }
    // Enough segments to keep every worker busy to the end, large enough
    // that a segment's profile is worth merging.
    segment_bytes =
        std::clamp<uint64_t>(total / (16 * jobs), 256 << 10, 4 << 20);
  }
  return DecodeParallel(consumer, jobs > 1 ? segment_bytes : 0, 2 * jobs + 2);
}

absl::Status PtDecoder::DecodeParallel(SegmentConsumer& consumer,
                                       size_t segment_bytes, size_t window) {
  std::vector<MappedFile> files;
  std::vector<PtBufferInput> inputs;
  HWT_RETURN_IF_ERROR(MapBuffers(&files, &inputs));
  PtParallelOptions options;
  options.jobs = run_.options.jobs;
  options.segment_bytes = segment_bytes;
  options.window = window;
  options.batch_size = run_.options.batch_size;
  options.fast = run_.options.fast;
  *fast_stats_ = PtFastCountStats();
  segment_counts_ = DecodeInParallel(run_, inputs, options, consumer, &stats_,
                                     fast_stats_.get());
  return absl::OkStatus();
}

absl::Status PtDecoder::ListPackets(PacketSink& sink) {
  return ListPackets(sink, PtdumpOptions());
}

absl::Status PtDecoder::ListPackets(PacketSink& sink,
                                    const PtdumpOptions& options) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    HWT_ASSIGN_OR_RETURN(MappedFile file, capture_.MapBuffer(i));
    const auto chunks = capture_.BufferChunks(i);
    HWT_RETURN_IF_ERROR(CheckChunks(file.path(), file, chunks));
    StreamStats stats;
    const uint32_t stream = static_cast<uint32_t>(i);
    auto line = [&](uint64_t offset, std::string_view text) {
      sink.OnPacket(stream, offset, text);
    };
    if (run_.cpu.errata_error != 0) {
      line(0, absl::StrFormat("[failed to determine errata: %s]",
                              pt_errstr(pt_errcode(run_.cpu.errata_error))));
    }
    for (const capture::BufferChunk& chunk : chunks) {
      ListPtPackets(run_.config, file.data() + chunk.offset, chunk.size,
                    chunk.offset, options, line, &stats);
    }
    stats_[i] = std::move(stats);
  }
  return absl::OkStatus();
}

}  // namespace hwt::pt
