// Fast instruction counting with libipt for what the walker gives up on; see
// pt_fast_count.h.
#include "decoders/pt/pt_fast_count.h"

#include <algorithm>

#include "decoders/progress_sink.h"
#include "decoders/pt/pt_event_output.h"
#include "decoders/pt/pt_events.h"
#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_segment_decoder.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/pt_trace_buffer.h"

namespace hwt::pt {
namespace {

// Passes a libipt run's events on to `destination` (the statistics) up to
// where the flow reaches the FUP of a PSB at or after `min_psb` (never when
// there is none) whose segment the fast path takes (`accept`), and stops the
// run there: libipt reports the PSB+'s execution mode as a status update
// bound to the FUP's address, after the block leading up to it
// (pt_seam.h). What comes after it in the same batch (a block from the FUP
// on: a conditional block is held until the next one says whether it was
// taken) is the fast path's and is dropped.
class HandOverSink : public EventSink {
 public:
  // Whether the fast path takes over at PSB `index`, given the status
  // event's `ip` and (chunk-relative) `offset`.
  using AcceptFn =
      std::function<bool(size_t index, uint64_t ip, uint64_t offset)>;

  HandOverSink(EventSink* destination, PtSegmentDecoder* decoder,
               const std::vector<uint64_t>& psbs, uint64_t base, size_t min_psb,
               AcceptFn accept)
      : destination_(destination),
        decoder_(decoder),
        psbs_(psbs),
        base_(base),
        min_psb_(min_psb),
        accept_(std::move(accept)),
        stopped_at_(psbs.size()) {}

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    for (size_t i = 0; i < events.size(); ++i) {
      if (stopped_at_ != psbs_.size()) return;
      const Event& event = events[i];
      destination_->OnEvents(stream, events.subspan(i, 1));
      if (min_psb_ >= psbs_.size() || event.kind != EventKind::kExecMode ||
          !(event.code & kPtStatusUpdate) ||
          event.offset < base_ + psbs_[min_psb_]) {
        continue;
      }
      // The PSB whose PSB+ libipt was reading.
      const size_t index =
          std::upper_bound(psbs_.begin(), psbs_.end(), event.offset - base_) -
          psbs_.begin() - 1;
      if (accept_(index, event.ip, event.offset - base_)) {
        stopped_at_ = index;
        decoder_->RequestStop();
      }
    }
  }

  size_t stopped_at() const { return stopped_at_; }

 private:
  EventSink* destination_;
  PtSegmentDecoder* decoder_;
  const std::vector<uint64_t>& psbs_;
  uint64_t base_;
  size_t min_psb_;
  AcceptFn accept_;
  size_t stopped_at_;
};

}  // namespace

void PtFastCountStats::Merge(const PtFastCountStats& other) {
  segments += other.segments;
  fast_segments += other.fast_segments;
  libipt_segments += other.libipt_segments;
  fast_bytes += other.fast_bytes;
  blocks_cached += other.blocks_cached;
}

PtFastCounter::PtFastCounter(const PtRunContext& run, size_t buffer_index,
                             EventSink* sink, uint32_t stream)
    : run_(run),
      buffer_index_(buffer_index),
      memory_(*run.timeline, buffer_index, run.files),
      cache_(memory_),
      walker_(&cache_),
      libipt_(std::make_unique<PtSegmentDecoder>(run, buffer_index)),
      sink_(sink),
      stream_(stream) {
  walker_.Configure(run.config);
  if (sink_ != nullptr) {
    output_ =
        std::make_unique<EventOutput>(sink_, stream_, run.options.batch_size);
    walker_.set_records(&records_);
  }
}

PtFastCounter::~PtFastCounter() = default;

bool PtFastCounter::AddressSpaceChangesIn(uint64_t from, uint64_t to) const {
  const auto& changes = run_.timeline->changes(buffer_index_);
  auto it = std::upper_bound(
      changes.begin(), changes.end(), from,
      [](uint64_t position, const capture::AddressSpaceChange& change) {
        return position < change.position;
      });
  return it != changes.end() && it->position <= to;
}

const PsbState& PtFastCounter::StateOf(size_t index) {
  if (!psb_states_[index]) {
    psb_states_[index] = packets_
                             ? walker_.ReadPsbPlus(packets_.get(), psbs_[index])
                             : PsbState();
  }
  return *psb_states_[index];
}

std::optional<uint64_t> PtFastCounter::TryWalk(size_t i, bool continuing) {
  const size_t n = psbs_.size();
  const uint64_t end = i + 1 < n ? psbs_[i + 1] : chunk_size_;
  const uint64_t changes_until = i + 2 < n ? psbs_[i + 2] : chunk_size_;
  const PsbState& here = StateOf(i);
  const bool events = sink_ != nullptr;
  if (events) {
    records_.clear();
    // libipt reports timing and context as events; without a FUP the PSB+
    // binds its status to nothing the walker can place.
    if (here.timing || here.context || !here.enabled || !here.has_isa) {
      return std::nullopt;
    }
    if (continuing) {
      // What libipt reports at a PSB its flow runs through: the execution
      // mode, bound to the FUP's instruction (pt_seam.h).
      FastWalker::Record& status = records_.emplace_back();
      status.event.kind = EventKind::kExecMode;
      status.event.isa = here.isa;
      status.event.ip = here.ip;
      status.event.code = kPtStatusUpdate;
      status.event.offset = here.end;
    }
  }
  if (!packets_ || !here.usable ||
      AddressSpaceChangesIn(chunk_base_ + psbs_[i],
                            chunk_base_ + changes_until)) {
    return std::nullopt;
  }
  // The flow of a continuing walk was followed in the old address space.
  if (memory_.AdvanceTo(chunk_base_ + psbs_[i]) && continuing) {
    return std::nullopt;
  }
  if (!continuing) walker_.Restart(here);
  const PsbState* next = i + 1 < n ? &StateOf(i + 1) : nullptr;
  const std::optional<uint64_t> count =
      walker_.Walk(packets_.get(), here, end, next);
  if (count) {
    ++fast_stats_.fast_segments;
    fast_stats_.fast_bytes += end - psbs_[i];
  }
  return count;
}

void PtFastCounter::Deliver(bool chunk_end) {
  if (chunk_end && !records_.empty() && records_.back().cond) {
    // libipt's flow ends with the last packet: where the branch went is not
    // known (pt_event_output.h).
    records_.back().event.branch = BranchKind::kNone;
  }
  if (chunk_end && walker_.enabled()) {
    // libipt reports that the trace ended with tracing on (pts_eos).
    FastWalker::Record& end = records_.emplace_back();
    end.event.kind = EventKind::kDisabled;
    end.event.code = kPtEndOfTrace;
    end.event.offset = chunk_size_;
  }
  for (FastWalker::Record& record : records_) {
    Event& event = record.event;
    event.offset += chunk_base_;
    if (event.kind == EventKind::kBlock) {
      ++fast_blocks_;
      output_->AddBlock(event);
    } else {
      output_->Add(event);
    }
  }
  records_.clear();
}

size_t PtFastCounter::DecodeWithLibipt(const uint8_t* data, size_t size,
                                       uint64_t file_offset, size_t first,
                                       StreamStats* stats) {
  NullEventSink discard;
  if (output_) output_->Drain();
  SegmentOutput output(sink_ != nullptr ? sink_ : &discard, libipt_.get(),
                       stats);
  // The fast path takes over only where it can walk the next segment: a
  // segment it gives up on is decoded by this run as a sequential decode
  // would, rather than by a new run starting at its PSB.
  HandOverSink hand_over(&output, libipt_.get(), psbs_, file_offset, first + 1,
                         [this](size_t index, uint64_t ip, uint64_t offset) {
                           // libipt must stand right after the PSB+: it may
                           // also have carried TNT bits from before the PSB
                           // past it and used the packets after it (the CPU
                           // flushes TNT before a PSB; a broken trace need
                           // not).
                           const PsbState& state = StateOf(index);
                           if (!state.usable || !state.enabled ||
                               state.ip != ip || offset != state.end) {
                             return false;
                           }
                           handed_over_count_ =
                               TryWalk(index, /*continuing=*/false);
                           return handed_over_count_.has_value();
                         });
  PtDecodeJob job;
  job.data = data;
  job.size = size;
  job.base = file_offset;
  job.start = psbs_[first];
  if (sink_ != nullptr && first == 0) {
    // The chunk's start is libipt's: lost data, the first sync.
    job.start = 0;
    job.data_lost_before = data_lost_before_;
  }
  // Events one by one from the start, so that the run stops exactly at the
  // hand-over.
  libipt_->set_prompt_from(0);
  libipt_->Decode(job, &hand_over, stream_, 1);
  output.Finish();
  return hand_over.stopped_at();
}

void PtFastCounter::CountChunk(const uint8_t* data, size_t size,
                               uint64_t file_offset, bool data_lost_before,
                               StreamStats* stats) {
  stats->trace_bytes += size;
  psbs_.clear();
  for (uint64_t from = 0;;) {
    const std::optional<uint64_t> psb = FindNextPsb(data, size, from);
    if (!psb) break;
    psbs_.push_back(*psb);
    from = *psb + 1;
  }
  psb_states_.assign(psbs_.size(), std::nullopt);
  const size_t n = psbs_.size();
  fast_stats_.segments += n;

  chunk_size_ = size;
  chunk_base_ = file_offset;
  data_lost_before_ = data_lost_before;
  // What comes before the first PSB (all of it without one) is libipt's:
  // the lost-data gap and the bytes before the first sync point. In event
  // mode libipt starts the chunk (DecodeWithLibipt from 0).
  if (sink_ == nullptr || n == 0) {
    NullEventSink discard;
    SegmentOutput output(&discard, libipt_.get(), stats);
    PtDecodeJob job;
    job.data = data;
    job.size = n > 0 ? psbs_[0] : size;
    job.base = file_offset;
    job.data_lost_before = data_lost_before;
    libipt_->Decode(job, &output, stream_, run_.options.batch_size);
    output.Finish();
  }
  if (sink_ != nullptr && n == 0) {
    stats->bytes_decoded = stats->trace_bytes - stats->bytes_lost;
    return;
  }

  PtTraceBuffer buffer(data, size);
  pt_config config = run_.config;
  config.begin = buffer.begin();
  config.end = buffer.end();
  packets_.reset(pt_pkt_alloc_decoder(&config));

  // Whether the walker stands at psbs_[i] with the flow of the segment
  // before it (else it starts over there).
  bool walking = false;
  for (size_t i = 0; i < n;) {
    if (const std::optional<uint64_t> count =
            sink_ != nullptr && i == 0 ? std::nullopt : TryWalk(i, walking)) {
      stats->instructions += *count;
      if (output_) Deliver(i + 1 == n);
      walking = true;
      ++i;
      continue;
    }
    walking = false;
    const size_t resume = DecodeWithLibipt(data, size, file_offset, i, stats);
    fast_stats_.libipt_segments += resume - i;
    if (resume < n) {
      // The walker took segment `resume` over (its trial walk).
      stats->instructions += *handed_over_count_;
      if (output_) Deliver(resume + 1 == n);
      walking = true;
      i = resume + 1;
    } else {
      i = resume;
    }
  }
  packets_.reset();
  if (output_) {
    output_->Drain();
    stats->blocks += fast_blocks_;
    fast_blocks_ = 0;
  } else {
    // libipt counted blocks for its segments only: a partial count is none.
    stats->blocks = 0;
  }
  stats->bytes_decoded = stats->trace_bytes - stats->bytes_lost;
  fast_stats_.blocks_cached = cache_.size();
}

}  // namespace hwt::pt
