// Parallel PT decoding; see pt_parallel.h.
#include "decoders/pt/pt_parallel.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_segment_decoder.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/pt_trace_buffer.h"

namespace hwt::pt {
namespace {

// The segments of one buffer chunk; its tasks are consecutive.
struct ChunkPlan {
  uint32_t stream = 0;
  size_t chunk = 0;
  std::vector<uint64_t> starts;  // file offsets of the segment starts
  // options.fast: every PSB of the chunk (chunk-relative offsets), which the
  // fast path's counter needs from a segment's start on.
  std::vector<uint64_t> psbs;
  size_t end_task = 0;         // first task after this chunk's tasks
  size_t stream_end_task = 0;  // first task after this stream's tasks
};

// One segment: starts[index] of its chunk plan. The segment starts after it
// are the plan's starts[index + 1...], shared by all its tasks rather than
// copied per task (which would be quadratic in the segments per chunk).
struct Task {
  size_t plan = 0;
  size_t index = 0;
};

struct Result {
  std::unique_ptr<EventSink> sink;
  StreamStats stats;
  // Index into the starts after the task's own (see Task).
  std::optional<size_t> stitched_to;
  PtFastCountStats fast;  // options.fast: the fast path's figures
};

enum class State { kWaiting, kRunning, kDone, kCommitted, kDropped };

// One worker's decoders, kept while it stays on the same buffer.
struct WorkerDecoders {
  size_t buffer = ~size_t{0};
  std::unique_ptr<PtSegmentDecoder> main;
  std::unique_ptr<PtSegmentDecoder> head;
  // options.fast.
  std::unique_ptr<PtFastCounter> fast_main;
  std::unique_ptr<PtFastCounter> fast_head;
  // Lent to each segment's SegmentOutput: kept from segment to segment.
  SeamBuffers seam_buffers;
};

class Scheduler {
 public:
  Scheduler(const PtRunContext& run, const std::vector<PtBufferInput>& buffers,
            const PtParallelOptions& options, SegmentConsumer& consumer,
            std::vector<StreamStats>* stats, PtFastCountStats* fast_stats)
      : run_(run),
        buffers_(buffers),
        options_(options),
        consumer_(consumer),
        stats_(stats),
        fast_stats_(fast_stats) {
    Plan();
  }

  const PtParallelStats& parallel_stats() const { return parallel_stats_; }

  void Run() {
    const size_t workers = std::min<size_t>(std::max(options_.jobs, 1),
                                            std::max<size_t>(tasks_.size(), 1));
    std::vector<std::thread> threads;
    for (size_t i = 1; i < workers; ++i)
      threads.emplace_back([this] { Work(); });
    Work();
    for (std::thread& thread : threads) thread.join();
    for (size_t s = 0; s < stats_->size(); ++s) {
      StreamStats& stats = (*stats_)[s];
      stats.bytes_decoded = stats.trace_bytes - stats.bytes_lost;
    }
  }

 private:
  void Plan() {
    stats_->assign(buffers_.size(), StreamStats());
    cursor_.resize(buffers_.size());
    for (size_t b = 0; b < buffers_.size(); ++b) {
      const size_t stream_first = tasks_.size();
      const size_t stream_first_plan = plans_.size();
      cursor_[b] = stream_first;
      for (size_t c = 0; c < buffers_[b].chunks.size(); ++c) {
        const capture::BufferChunk& chunk = buffers_[b].chunks[c];
        (*stats_)[b].trace_bytes += chunk.size;
        ChunkPlan plan;
        plan.stream = static_cast<uint32_t>(b);
        plan.chunk = c;
        plan.starts = PlanStarts(buffers_[b].data + chunk.offset, chunk.size);
        for (uint64_t& start : plan.starts) start += chunk.offset;
        if (options_.fast) {
          plan.psbs = FindAllPsbs(buffers_[b].data + chunk.offset, chunk.size);
          if (fast_stats_ != nullptr) fast_stats_->segments += plan.psbs.size();
        }
        for (size_t i = 0; i < plan.starts.size(); ++i) {
          tasks_.push_back(Task{plans_.size(), i});
        }
        plan.end_task = tasks_.size();
        plans_.push_back(std::move(plan));
      }
      for (size_t p = stream_first_plan; p < plans_.size(); ++p) {
        plans_[p].stream_end_task = tasks_.size();
      }
      if (stream_first == tasks_.size()) empty_streams_.push_back(b);
    }
    parallel_stats_.segments = tasks_.size();
    state_.assign(tasks_.size(), State::kWaiting);
    results_.resize(tasks_.size());
  }

  // The segment starts of a chunk (relative offsets). The fast path's start
  // only at PSBs with tracing on (a FUP in the PSB+): at a PSB with tracing
  // off the run from before is in libipt's hands or holds its walks back
  // (pt_fast_count.h), and reports what follows with libipt's trace
  // offsets, which differ from those of the next segment's walker, so
  // the seam would not be found.
  std::vector<uint64_t> PlanStarts(const uint8_t* data, size_t size) {
    if (!options_.fast || options_.segment_bytes == 0) {
      return PlanSegments(data, size, options_.segment_bytes);
    }
    PtTraceBuffer buffer(data, size);
    pt_config config = run_.config;
    config.begin = buffer.begin();
    config.end = buffer.end();
    std::unique_ptr<pt_packet_decoder, void (*)(pt_packet_decoder*)> decoder(
        pt_pkt_alloc_decoder(&config), pt_pkt_free_decoder);
    if (decoder == nullptr) {
      return PlanSegments(data, size, options_.segment_bytes);
    }
    return PlanSegments(
        data, size, options_.segment_bytes,
        [&decoder](uint64_t psb) { return TracingOnAt(decoder.get(), psb); });
  }

  // Whether the PSB+ at `psb` has a FUP.
  static bool TracingOnAt(pt_packet_decoder* decoder, uint64_t psb) {
    if (pt_pkt_sync_set(decoder, psb) < 0) return false;
    pt_packet packet;
    if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0 ||
        packet.type != ppt_psb) {
      return false;
    }
    // A PSB+ is a few dozen packets; a broken one is not looked through.
    for (int i = 0; i < 256; ++i) {
      if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0) return false;
      if (packet.type == ppt_fup) return true;
      if (packet.type == ppt_psbend || packet.type == ppt_psb) return false;
    }
    return false;
  }

  // The oldest task not yet committed or dropped.
  size_t Low() const {
    size_t low = tasks_.size();
    for (size_t b = 0; b < cursor_.size(); ++b) {
      if (cursor_[b] < tasks_.size() && !StreamDone(b)) {
        low = std::min(low, cursor_[b]);
      }
    }
    return low;
  }
  bool StreamDone(size_t b) const {
    return cursor_[b] >= tasks_.size() ||
           plans_[tasks_[cursor_[b]].plan].stream != b;
  }

  void Work() {
    WorkerDecoders decoders;
    std::unique_lock<std::mutex> lock(mutex_);
    if (!empty_streams_.empty() && !committing_) {
      // Streams without any chunk end at once.
      std::vector<size_t> empty;
      empty.swap(empty_streams_);
      committing_ = true;
      lock.unlock();
      for (size_t b : empty) consumer_.EndStream(static_cast<uint32_t>(b));
      lock.lock();
      committing_ = false;
      CommitReady(lock);
    }
    for (;;) {
      while (next_ < tasks_.size() && state_[next_] == State::kDropped) ++next_;
      if (next_ >= tasks_.size()) break;
      if (next_ >= Low() + std::max<size_t>(options_.window, 1)) {
        wake_.wait(lock);
        continue;
      }
      const size_t t = next_++;
      state_[t] = State::kRunning;
      lock.unlock();
      Result result = RunTask(t, decoders);
      lock.lock();
      if (state_[t] == State::kDropped) continue;  // not needed after all
      state_[t] = State::kDone;
      results_[t] = std::move(result);
      CommitReady(lock);
    }
    MergeFastStats(decoders);
  }

  // Adds the blocks the worker's fast-path counter cached to fast_stats_
  // (under the lock; the segment figures come with the committed results).
  void MergeFastStats(const WorkerDecoders& decoders) {
    if (fast_stats_ == nullptr || decoders.fast_main == nullptr) return;
    fast_stats_->blocks_cached +=
        decoders.fast_main->fast_stats().blocks_cached;
  }

  Result RunTask(size_t t, WorkerDecoders& decoders) {
    const Task& task = tasks_[t];
    const ChunkPlan& plan = plans_[task.plan];
    const PtBufferInput& buffer = buffers_[plan.stream];
    const capture::BufferChunk& chunk = buffer.chunks[plan.chunk];
    if (decoders.buffer != plan.stream) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        MergeFastStats(decoders);
      }
      decoders = WorkerDecoders();
      decoders.buffer = plan.stream;
    }
    // A chunk without a PSB is libipt's on the fast path too. Decoders are
    // made when first needed: each holds its own caches.
    const bool fast = options_.fast && !plan.psbs.empty();
    if (fast && decoders.fast_main == nullptr) {
      decoders.fast_main = std::make_unique<PtFastCounter>(run_, plan.stream);
      decoders.fast_head = std::make_unique<PtFastCounter>(run_, plan.stream);
    }
    if (!fast && decoders.main == nullptr) {
      decoders.main = std::make_unique<PtSegmentDecoder>(run_, plan.stream);
      decoders.head = std::make_unique<PtSegmentDecoder>(run_, plan.stream);
    }
    PtDecodeJob job;
    job.data = buffer.data + chunk.offset;
    job.size = chunk.size;
    job.base = chunk.offset;
    job.data_lost_before = chunk.data_lost_before;
    job.start = plan.starts[task.index] - chunk.offset;

    // The chunk's PSBs from `start` on (all of them from the chunk's start).
    auto psbs_from = [&plan](uint64_t start) {
      const auto from =
          std::lower_bound(plan.psbs.begin(), plan.psbs.end(), start);
      return absl::MakeConstSpan(plan.psbs).subspan(
          static_cast<size_t>(from - plan.psbs.begin()));
    };
    SeamControl* main =
        fast ? static_cast<SeamControl*>(decoders.fast_main.get())
             : decoders.main.get();
    SeamControl* head =
        fast ? static_cast<SeamControl*>(decoders.fast_head.get())
             : decoders.head.get();

    Result result;
    result.sink = consumer_.StartSegment(plan.stream);
    SegmentOutput output(result.sink.get(), main, &result.stats,
                         &decoders.seam_buffers);
    const absl::Span<const uint64_t> later =
        absl::MakeConstSpan(plan.starts).subspan(task.index + 1);
    // Heads are decoded when the run reaches their boundary: usually only
    // the next one. std::map keeps the references handed out valid.
    std::map<size_t, SegmentHead> heads;
    output.SetBoundaries(later, [&](size_t index) -> const SegmentHead& {
      auto [it, inserted] = heads.try_emplace(index);
      if (inserted) {
        PtDecodeJob head_job = job;
        head_job.start = later[index] - chunk.offset;
        HeadCollector collector(&it->second, head);
        head->set_prompt_from(0);
        if (fast) {
          decoders.fast_head->DecodeSegment(head_job, psbs_from(head_job.start),
                                            &collector, plan.stream);
        } else {
          decoders.head->Decode(head_job, &collector, plan.stream,
                                options_.batch_size);
        }
      }
      return it->second;
    });
    if (fast) {
      decoders.fast_main->DecodeSegment(job, psbs_from(job.start), &output,
                                        plan.stream);
    } else {
      decoders.main->Decode(job, &output, plan.stream, options_.batch_size);
    }
    output.Finish();
    result.stitched_to = output.stitched_to();
    if (fast) {
      result.fast = decoders.fast_main->TallyBefore(
          result.stitched_to ? later[*result.stitched_to] : ~uint64_t{0});
    }
    return result;
  }

  // Commits every result that is next in its stream; one thread at a time.
  void CommitReady(std::unique_lock<std::mutex>& lock) {
    if (committing_) return;
    committing_ = true;
    for (;;) {
      size_t b = 0;
      for (; b < cursor_.size(); ++b) {
        if (!StreamDone(b) && state_[cursor_[b]] == State::kDone) break;
      }
      if (b == cursor_.size()) break;
      const size_t t = cursor_[b];
      const ChunkPlan& plan = plans_[tasks_[t].plan];
      Result result = std::move(*results_[t]);
      results_[t].reset();
      state_[t] = State::kCommitted;
      const size_t next =
          result.stitched_to ? t + 1 + *result.stitched_to : plan.end_task;
      ++parallel_stats_.committed;
      for (size_t d = t + 1; d < next; ++d) {
        state_[d] = State::kDropped;
        results_[d].reset();
        ++parallel_stats_.dropped;
      }
      cursor_[b] = next;
      const bool stream_end = next >= plan.stream_end_task;
      if (fast_stats_ != nullptr) fast_stats_->Merge(result.fast);
      lock.unlock();
      (*stats_)[b].Merge(result.stats);
      consumer_.CommitSegment(plan.stream, std::move(result.sink));
      if (stream_end) consumer_.EndStream(plan.stream);
      lock.lock();
      if (stream_end) cursor_[b] = tasks_.size();
      wake_.notify_all();
    }
    committing_ = false;
  }

  const PtRunContext& run_;
  const std::vector<PtBufferInput>& buffers_;
  const PtParallelOptions& options_;
  SegmentConsumer& consumer_;
  std::vector<StreamStats>* stats_;
  PtFastCountStats* fast_stats_;

  std::vector<ChunkPlan> plans_;
  std::vector<Task> tasks_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<State> state_;
  std::vector<std::optional<Result>> results_;
  std::vector<size_t> cursor_;  // per stream: next task to commit
  std::vector<size_t> empty_streams_;
  size_t next_ = 0;  // next task to start
  bool committing_ = false;
  PtParallelStats parallel_stats_;
};

}  // namespace

PtParallelStats DecodeInParallel(const PtRunContext& run,
                                 const std::vector<PtBufferInput>& buffers,
                                 const PtParallelOptions& options,
                                 SegmentConsumer& consumer,
                                 std::vector<StreamStats>* stats,
                                 PtFastCountStats* fast_stats) {
  Scheduler scheduler(run, buffers, options, consumer, stats, fast_stats);
  scheduler.Run();
  return scheduler.parallel_stats();
}

}  // namespace hwt::pt
