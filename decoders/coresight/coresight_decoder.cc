// The CoreSight TraceDecoder: plans streams and decode trees when created
// (source configs, a frame scan per buffer), then runs the trees, on
// several threads when asked.
#include "decoders/coresight/coresight_decoder.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/coresight/decode_run.h"
#include "decoders/coresight/frame_scanner.h"
#include "decoders/coresight/memory_view.h"
#include "decoders/coresight/ocsd_config.h"

namespace hwt::coresight {
namespace {

using capture::BufferChunk;
using capture::BufferInfo;
using capture::CoreSightSource;

// One unit of parallel work: some sources of one buffer on one tree.
struct WorkUnit {
  size_t plan = 0;
  std::vector<size_t> sources;
};

class CoreSightDecoder : public TraceDecoder {
 public:
  CoreSightDecoder(const capture::Capture& capture,
                   const capture::AddressSpaceTimeline& timeline,
                   const DecoderOptions& options,
                   const CoreSightOptions& cs_options)
      : capture_(capture),
        timeline_(timeline),
        options_(options),
        cs_options_(cs_options) {}

  absl::Status Plan();

  const std::vector<StreamInfo>& streams() const override { return streams_; }
  const std::vector<StreamStats>& stats() const override { return stats_; }

  absl::Status Decode(EventSink& sink) override {
    return RunAll(RunMode::kDecode, &sink, nullptr);
  }
  absl::Status ListPackets(PacketSink& sink) override {
    return RunAll(RunMode::kPackets, nullptr, &sink);
  }

 private:
  uint32_t AddStream(size_t buffer, uint32_t trace_id,
                     const CoreSightSource* source, bool configured);
  absl::Status PlanBuffer(size_t b,
                          const std::vector<SourceDecoderConfig>& configs);
  // An unformatted buffer: the one source that wrote it.
  absl::Status PlanUnformattedBuffer(
      size_t b, const std::vector<SourceDecoderConfig>& configs,
      const std::vector<size_t>& candidates, BufferPlan& plan);
  // Formatted trace: the candidate sources by trace ID (valid, unique).
  absl::StatusOr<std::map<uint8_t, size_t>> SourcesById(
      size_t b, const std::vector<SourceDecoderConfig>& configs,
      const std::vector<size_t>& candidates) const;
  // Scans the buffer's frames (which IDs, how many bytes each) and cuts the
  // chunks to whole frames into plan.chunks.
  absl::Status ScanFrames(size_t b, const std::vector<BufferChunk>& chunks,
                          BufferPlan& plan, FrameScanResult& scan,
                          std::vector<FrameScanResult::Error>& truncated);
  // A stream per trace ID found in the frames (an error for the IDs no
  // source is configured for), or per configured source when none is found.
  void PlanStreams(size_t b, const std::vector<SourceDecoderConfig>& configs,
                   const std::map<uint8_t, size_t>& source_by_id,
                   const FrameScanResult& scan, BufferPlan& plan);
  // Frame-level problems, on the buffer's first stream.
  void ReportFrameErrors(size_t b, const FrameScanResult& scan,
                         const std::vector<FrameScanResult::Error>& truncated,
                         const BufferPlan& plan);
  absl::Status RunAll(RunMode mode, EventSink* events, PacketSink* packets);

  const capture::Capture& capture_;
  const capture::AddressSpaceTimeline& timeline_;
  DecoderOptions options_;
  CoreSightOptions cs_options_;
  std::vector<StreamInfo> streams_;
  std::vector<StreamStats> initial_stats_;  // from the scan, before decoding
  std::vector<StreamStats> stats_;
  std::vector<BufferPlan> plans_;
  std::shared_ptr<ImageFileCache> files_;
};

bool SourceFeedsBuffer(const CoreSightSource& s, size_t b) {
  return !s.buffer.has_value() || *s.buffer == b;
}

uint32_t CoreSightDecoder::AddStream(size_t buffer, uint32_t trace_id,
                                     const CoreSightSource* source,
                                     bool configured) {
  const auto& buffers = capture_.manifest().buffers;
  StreamInfo info;
  info.id = static_cast<uint32_t>(streams_.size());
  info.buffer_index = buffer;
  info.trace_id = trace_id;
  if (source != nullptr && (source->cpu || source->thread)) {
    info.cpu = source->cpu;
    info.thread = source->thread;
  } else if (trace_id >= 1) {
    // HWT numbering: trace ID = session index (cpu or thread index) + 1.
    for (const BufferInfo& b : buffers) {
      if (b.id == trace_id - 1) {
        info.cpu = b.cpu;
        info.thread = b.thread;
        break;
      }
    }
  }
  info.name = absl::StrFormat("trace ID 0x%x", trace_id);
  if (info.cpu) absl::StrAppendFormat(&info.name, " (cpu %d)", *info.cpu);
  if (info.thread) {
    absl::StrAppendFormat(&info.name, " (thread %d)", *info.thread);
  }
  if (!configured) info.name += " (no trace source configured)";
  if (buffers.size() > 1)
    absl::StrAppendFormat(&info.name, " in buffer %u", buffer);
  streams_.push_back(std::move(info));
  initial_stats_.emplace_back();
  return streams_.back().id;
}

absl::Status CoreSightDecoder::PlanUnformattedBuffer(
    size_t b, const std::vector<SourceDecoderConfig>& configs,
    const std::vector<size_t>& candidates, BufferPlan& plan) {
  const capture::CoreSightConfig& cs = *capture_.manifest().coresight;
  const BufferInfo& buffer = capture_.manifest().buffers[b];
  std::optional<size_t> chosen;
  bool explicit_buffer = false;
  for (size_t i : candidates) {
    if (cs.sources[i].buffer.has_value()) {
      chosen = i;
      explicit_buffer = true;
      break;
    }
  }
  if (!explicit_buffer) {
    if (candidates.size() == 1) {
      chosen = candidates[0];
    } else {
      for (size_t i : candidates) {
        const CoreSightSource& s = cs.sources[i];
        if ((buffer.cpu && s.cpu == buffer.cpu) ||
            (buffer.thread && s.thread == buffer.thread) ||
            (!buffer.cpu && !buffer.thread && s.trace_id == buffer.id + 1)) {
          chosen = i;
          break;
        }
      }
    }
  }
  if (!chosen) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: unformatted CoreSight buffer %u (%s) holds one source's trace, "
        "but none of the %u sources names it as its buffer or matches its "
        "cpu/thread/id",
        capture_.source_path(), b, buffer.file, candidates.size()));
  }
  const CoreSightSource& s = cs.sources[*chosen];
  std::vector<BufferChunk> chunks = capture_.BufferChunks(b);
  PlannedSource planned;
  planned.config = configs[*chosen];
  planned.stream = AddStream(b, s.trace_id, &s, true);
  StreamStats& stats = initial_stats_[planned.stream];
  for (const BufferChunk& chunk : chunks) stats.trace_bytes += chunk.size;
  plan.sources.push_back(std::move(planned));
  plan.alignment = 1;
  plan.chunks = std::move(chunks);
  return absl::OkStatus();
}

absl::StatusOr<std::map<uint8_t, size_t>> CoreSightDecoder::SourcesById(
    size_t b, const std::vector<SourceDecoderConfig>& configs,
    const std::vector<size_t>& candidates) const {
  std::map<uint8_t, size_t> source_by_id;
  for (size_t i : candidates) {
    uint8_t id = configs[i].trace_id;
    if (id == 0 || id >= 0x70) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "CoreSight %s: trace ID 0x%x is not valid in formatted trace "
          "(0x01..0x6f)",
          configs[i].description, id));
    }
    auto [it, inserted] = source_by_id.emplace(id, i);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "CoreSight %s and %s both use trace ID 0x%x in buffer %u",
          configs[it->second].description, configs[i].description, id, b));
    }
  }
  return source_by_id;
}

absl::Status CoreSightDecoder::ScanFrames(
    size_t b, const std::vector<BufferChunk>& chunks, BufferPlan& plan,
    FrameScanResult& scan, std::vector<FrameScanResult::Error>& truncated) {
  FrameScanner scanner(plan.deformatter_flags);
  plan.alignment = scanner.alignment();
  HWT_ASSIGN_OR_RETURN(MappedFile file, capture_.MapBuffer(b));
  uint64_t previous_end = 0;
  bool first = true;
  for (BufferChunk chunk : chunks) {
    if (chunk.offset > file.size() || chunk.size > file.size() - chunk.offset) {
      return absl::OutOfRangeError(absl::StrFormat(
          "%s: buffer %u chunk [0x%x, 0x%x) is beyond the end of %s (%u "
          "bytes)",
          capture_.source_path(), b, chunk.offset, chunk.offset + chunk.size,
          file.path(), file.size()));
    }
    if (!first && (chunk.offset != previous_end || chunk.data_lost_before)) {
      scanner.Reset();
    }
    first = false;
    previous_end = chunk.offset + chunk.size;
    uint64_t remainder = chunk.size % plan.alignment;
    if (remainder != 0) {
      truncated.push_back(
          {chunk.offset + chunk.size - remainder, remainder,
           absl::StrFormat("truncated frame: the last %u bytes at offset 0x%x "
                           "are not a whole %u-byte %s",
                           remainder, chunk.offset + chunk.size - remainder,
                           plan.alignment,
                           plan.alignment == 16 ? "frame" : "unit")});
      chunk.size -= remainder;
    }
    scanner.Scan({file.data() + chunk.offset, chunk.size}, chunk.offset, &scan);
    plan.chunks.push_back(chunk);
  }
  return absl::OkStatus();
}

void CoreSightDecoder::PlanStreams(
    size_t b, const std::vector<SourceDecoderConfig>& configs,
    const std::map<uint8_t, size_t>& source_by_id, const FrameScanResult& scan,
    BufferPlan& plan) {
  const capture::CoreSightConfig& cs = *capture_.manifest().coresight;
  std::vector<std::string> configured_ids;
  for (const auto& [id, i] : source_by_id) {
    configured_ids.push_back(absl::StrFormat("0x%x", id));
  }
  for (const auto& [id, bytes] : scan.ids) {
    auto it = source_by_id.find(id);
    if (it == source_by_id.end()) {
      uint32_t stream = AddStream(b, id, nullptr, false);
      StreamStats& stats = initial_stats_[stream];
      stats.trace_bytes = bytes.bytes;
      DecodeErrorInfo error;
      error.offset = bytes.first_offset;
      error.bytes_lost = bytes.bytes;
      error.reason = GapReason::kDecodeError;
      error.message = absl::StrFormat(
          "trace ID 0x%x: %u bytes from offset 0x%x, but no ETM/PTM/ETE "
          "source is configured for this ID (configured: %s); not decoded",
          id, bytes.bytes, bytes.first_offset,
          configured_ids.empty() ? "none"
                                 : absl::StrJoin(configured_ids, ", "));
      stats.AddError(std::move(error));
      continue;
    }
    PlannedSource planned;
    planned.config = configs[it->second];
    planned.stream = AddStream(b, id, &cs.sources[it->second], true);
    initial_stats_[planned.stream].trace_bytes = bytes.bytes;
    plan.sources.push_back(std::move(planned));
  }
  if (plan.sources.empty() && !source_by_id.empty()) {
    // No configured ID appears in the frames: keep a stream per source so
    // that the bytes and errors of this buffer are reported somewhere.
    for (const auto& [id, i] : source_by_id) {
      PlannedSource planned;
      planned.config = configs[i];
      planned.stream = AddStream(b, id, &cs.sources[i], true);
      plan.sources.push_back(std::move(planned));
    }
  }
}

void CoreSightDecoder::ReportFrameErrors(
    size_t b, const FrameScanResult& scan,
    const std::vector<FrameScanResult::Error>& truncated,
    const BufferPlan& plan) {
  std::vector<FrameScanResult::Error> frame_errors = scan.errors;
  frame_errors.insert(frame_errors.end(), truncated.begin(), truncated.end());
  if (scan.unsynced_bytes > 0) {
    frame_errors.push_back(
        {plan.chunks.empty() ? 0 : plan.chunks.front().offset,
         scan.unsynced_bytes,
         absl::StrFormat("%u bytes before the first frame synchronisation "
                         "(FSYNC) cannot be unpacked",
                         scan.unsynced_bytes)});
  }
  if (frame_errors.empty()) return;
  // Not even a configured source: report on a stream of its own.
  const uint32_t stream = plan.sources.empty() ? AddStream(b, 0, nullptr, false)
                                               : plan.sources.front().stream;
  for (const auto& e : frame_errors) {
    StreamStats& stats = initial_stats_[stream];
    stats.trace_bytes += e.bytes;
    DecodeErrorInfo error;
    error.offset = e.offset;
    error.bytes_lost = e.bytes;
    error.reason = GapReason::kDecodeError;
    error.message = e.message;
    stats.AddError(std::move(error));
  }
}

absl::Status CoreSightDecoder::PlanBuffer(
    size_t b, const std::vector<SourceDecoderConfig>& configs) {
  const capture::CoreSightConfig& cs = *capture_.manifest().coresight;
  BufferPlan plan;
  plan.buffer_index = b;
  plan.formatted = cs.formatted;
  std::vector<size_t> candidates;
  for (size_t i = 0; i < cs.sources.size(); ++i) {
    if (SourceFeedsBuffer(cs.sources[i], b)) candidates.push_back(i);
  }
  if (!cs.formatted) {
    HWT_RETURN_IF_ERROR(PlanUnformattedBuffer(b, configs, candidates, plan));
    plans_.push_back(std::move(plan));
    return absl::OkStatus();
  }
  HWT_ASSIGN_OR_RETURN(auto source_by_id, SourcesById(b, configs, candidates));
  plan.deformatter_flags = DeformatterFlags(cs);
  FrameScanResult scan;
  std::vector<FrameScanResult::Error> truncated;
  HWT_RETURN_IF_ERROR(
      ScanFrames(b, capture_.BufferChunks(b), plan, scan, truncated));
  PlanStreams(b, configs, source_by_id, scan, plan);
  ReportFrameErrors(b, scan, truncated, plan);
  plans_.push_back(std::move(plan));
  return absl::OkStatus();
}

absl::Status CoreSightDecoder::Plan() {
  const capture::Manifest& manifest = capture_.manifest();
  if (manifest.backend != capture::Backend::kCoreSight) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: not a CoreSight capture (backend %s)", capture_.source_path(),
        capture::BackendName(manifest.backend)));
  }
  if (!manifest.coresight.has_value() || manifest.coresight->sources.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the capture has no CoreSight trace source configuration (ETM "
        "registers): it cannot be decoded",
        capture_.source_path()));
  }
  std::vector<SourceDecoderConfig> configs;
  for (size_t i = 0; i < manifest.coresight->sources.size(); ++i) {
    const CoreSightSource& s = manifest.coresight->sources[i];
    if (s.buffer && *s.buffer >= manifest.buffers.size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: CoreSight source %u names buffer %u, but the capture has %u",
          capture_.source_path(), i, *s.buffer, manifest.buffers.size()));
    }
    HWT_ASSIGN_OR_RETURN(SourceDecoderConfig config,
                         MakeSourceDecoderConfig(s, i));
    configs.push_back(std::move(config));
  }
  for (size_t b = 0; b < manifest.buffers.size(); ++b) {
    HWT_RETURN_IF_ERROR(PlanBuffer(b, configs));
  }
  files_ = options_.files ? options_.files : std::make_shared<ImageFileCache>();
  stats_ = initial_stats_;
  return absl::OkStatus();
}

absl::Status CoreSightDecoder::RunAll(RunMode mode, EventSink* events,
                                      PacketSink* packets) {
  stats_ = initial_stats_;
  std::mutex sink_mutex;
  RunContext ctx;
  ctx.capture = &capture_;
  ctx.timeline = &timeline_;
  ctx.files = files_;
  ctx.stats = &stats_;
  ctx.sink_mutex = &sink_mutex;
  ctx.batch_events = std::max<size_t>(1, cs_options_.batch_events);

  // Work units: each buffer's sources, split into up to `jobs` groups
  // balanced by bytes.
  const size_t jobs = ResolveJobs(options_.jobs);
  std::vector<WorkUnit> units;
  for (size_t p = 0; p < plans_.size(); ++p) {
    const BufferPlan& plan = plans_[p];
    if (plan.sources.empty()) continue;
    size_t groups = std::min(jobs, plan.sources.size());
    std::vector<size_t> order(plan.sources.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t c) {
      return stats_[plan.sources[a].stream].trace_bytes >
             stats_[plan.sources[c].stream].trace_bytes;
    });
    std::vector<WorkUnit> group(groups);
    std::vector<uint64_t> load(groups, 0);
    for (size_t i : order) {
      size_t g = std::min_element(load.begin(), load.end()) - load.begin();
      group[g].plan = p;
      group[g].sources.push_back(i);
      load[g] += stats_[plan.sources[i].stream].trace_bytes + 1;
    }
    for (WorkUnit& unit : group) {
      std::sort(unit.sources.begin(), unit.sources.end());
      units.push_back(std::move(unit));
    }
  }

  std::vector<absl::Status> results(units.size());
  auto run_unit = [&](size_t u) {
    results[u] = RunDecodeTree(ctx, plans_[units[u].plan], units[u].sources,
                               mode, events, packets);
  };
  size_t threads = std::min(jobs, units.size());
  if (threads <= 1) {
    for (size_t u = 0; u < units.size(); ++u) run_unit(u);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        for (size_t u = next++; u < units.size(); u = next++) run_unit(u);
      });
    }
    for (std::thread& w : workers) w.join();
  }
  for (const absl::Status& s : results) HWT_RETURN_IF_ERROR(s);

  // Streams without a decoder (unknown IDs) end too.
  if (mode == RunMode::kDecode) {
    std::set<uint32_t> decoded;
    for (const BufferPlan& plan : plans_) {
      for (const PlannedSource& s : plan.sources) decoded.insert(s.stream);
    }
    for (const StreamInfo& info : streams_) {
      if (decoded.count(info.id) == 0) events->OnStreamEnd(info.id);
    }
  }
  for (StreamStats& s : stats_) {
    // 1.3.3's PTM processor can show a byte twice in an unsynchronised
    // packet: the frame scan's count is the truth.
    if (s.bytes_decoded > s.trace_bytes) s.bytes_decoded = s.trace_bytes;
    s.bytes_lost = s.trace_bytes - s.bytes_decoded;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<TraceDecoder>> CreateCoreSightDecoder(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const DecoderOptions& options, const CoreSightOptions& cs_options) {
  auto decoder = std::make_unique<CoreSightDecoder>(capture, address_space,
                                                    options, cs_options);
  HWT_RETURN_IF_ERROR(decoder->Plan());
  return std::unique_ptr<TraceDecoder>(std::move(decoder));
}

}  // namespace hwt::coresight
