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
               absl::Span<const uint64_t> psbs, uint64_t base, size_t min_psb,
               AcceptFn accept)
      : destination_(destination),
        decoder_(decoder),
        psbs_(psbs),
        base_(base),
        min_psb_(min_psb),
        accept_(std::move(accept)),
        stopped_at_(psbs.size()) {}

  // A replay: drops the events before the status event of PSB `index` for
  // which `at` holds (the flow where the walker left it).
  void DropUntil(size_t index, AcceptFn at) {
    open_at_ = index;
    opens_ = std::move(at);
  }
  // Whether the replay reached its start (always without DropUntil).
  bool open() const { return !opens_; }

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    for (size_t i = 0; i < events.size(); ++i) {
      if (stopped_at_ != psbs_.size()) return;
      const Event& event = events[i];
      if (opens_) {
        if (!IsStatus(event) || IndexOf(event) != open_at_ ||
            !opens_(open_at_, event.ip, event.offset - base_)) {
          // A dropped gap's error was counted when the trace before the
          // replay's start was decoded: its entry goes too, so that the
          // errors stay in step with the gaps delivered.
          auto& gap_errors = decoder_->gap_errors();
          if (event.kind == EventKind::kGap && !gap_errors.empty()) {
            gap_errors.pop_front();
          }
          continue;
        }
        opens_ = nullptr;
      }
      destination_->OnEvents(stream, events.subspan(i, 1));
      if (min_psb_ >= psbs_.size() || !IsStatus(event) ||
          event.offset < base_ + psbs_[min_psb_]) {
        continue;
      }
      const size_t index = IndexOf(event);
      if (accept_(index, event.ip, event.offset - base_)) {
        stopped_at_ = index;
        decoder_->RequestStop();
      }
    }
  }

  size_t stopped_at() const { return stopped_at_; }

 private:
  static bool IsStatus(const Event& event) {
    return event.kind == EventKind::kExecMode &&
           (event.code & kPtStatusUpdate) != 0;
  }
  // The PSB whose PSB+ libipt was reading.
  size_t IndexOf(const Event& event) const {
    if (event.offset < base_) return psbs_.size();
    return std::upper_bound(psbs_.begin(), psbs_.end(), event.offset - base_) -
           psbs_.begin() - 1;
  }

  EventSink* destination_;
  PtSegmentDecoder* decoder_;
  absl::Span<const uint64_t> psbs_;
  uint64_t base_;
  size_t min_psb_;
  AcceptFn accept_;
  size_t stopped_at_;
  size_t open_at_ = 0;
  AcceptFn opens_;
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
      libipt_(std::make_unique<PtSegmentDecoder>(run, buffer_index)) {
  walker_.Configure(run.config);
  if (sink != nullptr) BindSink(sink, stream);
}

void PtFastCounter::BindSink(EventSink* sink, uint32_t stream) {
  sink_ = sink;
  stream_ = stream;
  // A parallel decode binds a sink per segment: the output starts over but
  // keeps its batch's storage (EventOutput::Reset).
  if (output_) {
    output_->Reset(sink_, stream_, run_.options.batch_size);
  } else {
    output_ =
        std::make_unique<EventOutput>(sink_, stream_, run_.options.batch_size);
  }
  walker_.set_records(&records_);
  walker_.set_clock(&clock_);
}

void PtFastCounter::RequestStop() {
  stop_ = true;
  libipt_->RequestStop();
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
  auto [it, inserted] = psb_states_.try_emplace(index);
  if (inserted && packets_) {
    it->second = walker_.ReadPsbPlus(packets_.get(), psbs_[index]);
  }
  return it->second;
}

void PtFastCounter::DropHeld() {
  held_.reset();
  records_.clear();
  walk_start_ = 0;
}

void PtFastCounter::PruneStates(size_t index) {
  size_t keep = index;
  if (held_) keep = std::min(keep, held_->first);
  if (clock_psb_ != kClockFresh) keep = std::min(keep, clock_psb_);
  psb_states_.erase(psb_states_.begin(), psb_states_.lower_bound(keep));
}

std::optional<uint64_t> PtFastCounter::TryWalk(size_t i, bool continuing,
                                               bool status) {
  const size_t n = psbs_.size();
  const uint64_t end = i + 1 < n ? psbs_[i + 1] : chunk_size_;
  const uint64_t changes_until = i + 2 < n ? psbs_[i + 2] : chunk_size_;
  const PsbState& here = StateOf(i);
  const bool events = sink_ != nullptr;
  if (events) {
    records_.resize(walk_start_);  // what a failed walk left goes
    // libipt reports timing and context as events. Without a FUP the PSB+
    // binds its status to nothing the walker can place, except when the
    // flow comes to it with tracing off and it has no execution mode: then
    // libipt's flow just goes on waiting for the enable (its CBR event is
    // the walker's, FastWalker::EnterNext).
    const bool disabled_through = continuing && !here.enabled && !here.has_isa;
    if (here.context || (!here.enabled && !disabled_through) ||
        (here.enabled && !here.has_isa) ||
        (clock_broken_ && (here.timing || clock_.touched()))) {
      return std::nullopt;
    }
    if (!continuing && !AdvanceClockTo(i)) {
      clock_broken_ = true;
      return std::nullopt;
    }
    if (status && here.enabled) {
      // What libipt reports at a PSB its flow runs through: the execution
      // mode, bound to the FUP's instruction (pt_seam.h).
      Event& status = records_.emplace_back();
      status.kind = EventKind::kExecMode;
      status.isa = here.isa;
      status.ip = here.ip;
      status.time = clock_.Now();
      status.code = kPtStatusUpdate | (status.time != 0 ? kPtHasTsc : 0);
      status.offset = here.end;
    }
  }
  if (!packets_ || !here.usable ||
      AddressSpaceChangesIn(chunk_base_ + psbs_[i],
                            chunk_base_ + changes_until)) {
    return std::nullopt;
  }
  // The flow of a continuing walk was followed in the old address space.
  walked_to_ = std::max(walked_to_, chunk_base_ + psbs_[i]);
  if (memory_.AdvanceTo(chunk_base_ + psbs_[i]) && continuing) {
    return std::nullopt;
  }
  if (!continuing) walker_.Restart(here);
  const PsbState* next = i + 1 < n ? &StateOf(i + 1) : nullptr;
  const PtClock clock = clock_;  // after the PSB+ of psbs_[i]
  const std::optional<uint64_t> count =
      walker_.Walk(packets_.get(), here, end, next);
  if (count) {
    ++fast_stats_.fast_segments;
    fast_stats_.fast_bytes += end - psbs_[i];
    Tally(i, /*fast=*/true, end - psbs_[i]);
    if (next != nullptr) clock_psb_ = i + 1;
  } else if (events) {
    clock_ = clock;
  }
  return count;
}

void PtFastCounter::Deliver(bool chunk_end) {
  if (chunk_end && !records_.empty() &&
      FastWalker::IsCondBlock(records_.back())) {
    // libipt's flow ends with the last packet: where the branch went is not
    // known (pt_event_output.h).
    records_.back().branch = BranchKind::kNone;
  }
  if (chunk_end && walker_.enabled()) {
    // libipt reports that the trace ended with tracing on (pts_eos).
    Event& end = records_.emplace_back();
    end.kind = EventKind::kDisabled;
    end.code = kPtEndOfTrace;
    end.offset = chunk_size_;
  }
  for (Event& event : records_) {
    event.offset += chunk_base_;
    fast_blocks_ += event.kind == EventKind::kBlock;
  }
  // Mostly straight from records_ to the sink, without a copy.
  output_->AddRun(records_);
  records_.clear();
}

bool PtFastCounter::ReadAheadOnly(uint64_t from, uint64_t to) {
  if (to == from) return true;
  if (to < from || !packets_) return false;
  pt_packet_decoder* decoder = packets_.get();
  if (pt_pkt_sync_set(decoder, from) < 0) return false;
  for (uint64_t offset = from; offset < to;) {
    pt_packet packet;
    if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0) return false;
    pt_pkt_get_offset(decoder, &offset);
    switch (packet.type) {
      case ppt_pad:
      case ppt_tsc:
      case ppt_tma:
      case ppt_mtc:
      case ppt_cyc:
        break;
      default:
        return false;
    }
    if (offset == to) return true;
  }
  return false;
}

bool PtFastCounter::ReadClock(uint64_t from, uint64_t to, PtClock* clock) {
  // The packets as libipt's query decoder reads them, PSB+ included.
  pt_packet_decoder* decoder = packets_.get();
  if (pt_pkt_sync_set(decoder, from) < 0) return false;
  bool header = false;
  const pt_config& config = run_.config;
  uint64_t offset = from;
  while (offset < to) {
    pt_packet packet;
    if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0) return false;
    pt_pkt_get_offset(decoder, &offset);
    switch (packet.type) {
      case ppt_psb:
        clock->Psb(config);
        header = true;
        break;
      case ppt_psbend:
        header = false;
        break;
      case ppt_ovf:
        clock->Overflow();
        break;
      default:
        if (!clock->Apply(packet, header, config)) return false;
        break;
    }
  }
  return offset == to;
}

bool PtFastCounter::AdvanceClockTo(size_t index) {
  if (clock_psb_ == index) return true;
  if (clock_psb_ != kClockFresh && clock_psb_ > index) return false;
  const PsbState& target = StateOf(index);
  if (!target.usable) return false;
  uint64_t offset = 0;
  if (clock_psb_ == kClockFresh) {
    offset = psbs_[0];
  } else {
    const PsbState& from = StateOf(clock_psb_);
    if (!from.usable) return false;
    offset = from.end;
  }
  if (!packets_ || !ReadClock(offset, target.end, &clock_)) return false;
  clock_psb_ = index;
  return true;
}

bool PtFastCounter::RestartKeepsClock(size_t index) {
  if (clock_psb_ != index || !packets_) return false;
  const PsbState& state = StateOf(index);
  if (!state.usable) return false;
  PtClock fresh;
  return ReadClock(psbs_[index], state.end, &fresh) &&
         fresh.SameStateAs(clock_);
}

size_t PtFastCounter::DecodeWithLibipt(const uint8_t* data, size_t size,
                                       uint64_t file_offset, size_t first,
                                       bool replay, StreamStats* stats) {
  if (stop_) return psbs_.size();
  NullEventSink discard;
  if (output_) output_->Drain();
  // A replay decodes the chunk up to psbs[first] once more: within a budget
  // of the chunk's size, after which libipt decodes the rest.
  bool hand_over_allowed = true;
  if (replay) {
    const uint64_t cost = psbs_[first] - psbs_[0];
    hand_over_allowed = cost <= replay_budget_;
    replay_budget_ -= std::min(cost, replay_budget_);
  }
  SegmentOutput output(sink_ != nullptr ? sink_ : &discard, libipt_.get(),
                       stats, &libipt_buffers_);
  if (segment_run_) {
    output.ForwardErrorsTo(&gap_errors_, &other_errors_, &other_bytes_lost_);
  }
  // The fast path takes over only where it can walk the next segment: a
  // segment it gives up on is decoded by this run as a sequential decode
  // would, rather than by a new run starting at its PSB.
  HandOverSink hand_over(
      &output, libipt_.get(), psbs_, file_offset, first + 1,
      [this, hand_over_allowed, stats](size_t index, uint64_t ip,
                                       uint64_t offset) {
        // libipt must stand right after the PSB+ (or
        // have read only timing packets after it): it
        // may also have carried TNT bits from before the
        // PSB past it and used the packets after it (the
        // CPU flushes TNT before a PSB; a broken trace
        // need not).
        const PsbState& state = StateOf(index);
        if (!hand_over_allowed || !state.usable || !state.enabled ||
            state.ip != ip || !ReadAheadOnly(state.end, offset)) {
          return false;
        }
        // After a decode error libipt starts its clock
        // over where it synchronises again. An overflow
        // is no resynchronisation: its clock goes on as
        // the walker's does (PtClock::Overflow).
        if (stats->errors - stats->overflows != chunk_errors_ &&
            (clock_.touched() || state.timing)) {
          return false;
        }
        const FastWalkState before = SaveWalkState();
        handed_over_count_ =
            TryWalk(index, /*continuing=*/false, /*status=*/false);
        if (handed_over_count_ && index + 1 < psbs_.size() &&
            !walker_.enabled()) {
          // The walk ends at a PSB with tracing off, where libipt could not
          // take the flow back if the walker gave up on the segment after
          // it: libipt goes on.
          handed_over_count_.reset();
          records_.clear();
          RestoreWalkState(before);
        }
        return handed_over_count_.has_value();
      });
  if (replay) {
    hand_over.DropUntil(first, [this](size_t index, uint64_t ip,
                                      uint64_t offset) {
      const PsbState& state = StateOf(index);
      return state.usable && state.ip == ip && ReadAheadOnly(state.end, offset);
    });
  }
  PtDecodeJob job;
  job.data = data;
  job.size = size;
  job.base = file_offset;
  job.start = psbs_[replay ? 0 : first];
  if (sink_ != nullptr && first == 0 && !segment_start_) {
    // The chunk's start is libipt's: lost data, the first sync.
    job.start = 0;
    job.data_lost_before = data_lost_before_;
  }
  // Events one by one from the start, so that the run stops exactly at the
  // hand-over.
  libipt_->set_prompt_from(0);
  libipt_->Decode(job, &hand_over, stream_, 1);
  output.Finish();
  if (!hand_over.open()) {
    // The replay never came to where the walker left the flow (libipt's
    // flow differs from the walker's there): libipt from the PSB on, with
    // a clock that starts over.
    clock_broken_ = true;
    return DecodeWithLibipt(data, size, file_offset, first, false, stats);
  }
  return hand_over.stopped_at();
}

void PtFastCounter::CountChunk(const uint8_t* data, size_t size,
                               uint64_t file_offset, bool data_lost_before,
                               StreamStats* stats) {
  stats->trace_bytes += size;
  own_psbs_ = FindAllPsbs(data, size);
  psbs_ = own_psbs_;
  fast_stats_.segments += psbs_.size();
  Run(data, size, file_offset, data_lost_before, /*segment_start=*/false,
      stats);
}

void PtFastCounter::DecodeSegment(const PtDecodeJob& job,
                                  absl::Span<const uint64_t> psbs,
                                  EventSink* sink, uint32_t stream) {
  BindSink(sink, stream);  // a fresh output: nothing held from a run before
  if (prompt_from_ == 0) output_->set_batch_size(1);
  stop_ = false;
  gap_errors_.clear();
  other_errors_.clear();
  other_bytes_lost_ = 0;
  // The memory image only moves forward: a segment before the last one
  // walked starts from the beginning of the timeline again.
  if (job.base + job.start < walked_to_) {
    memory_.Rewind();
    walked_to_ = 0;
  }
  psbs_ = psbs;
  tally_.clear();
  segment_run_ = true;
  StreamStats scratch;  // the sink counts what it keeps
  Run(job.data, job.size, job.base, job.data_lost_before,
      /*segment_start=*/job.start != 0, &scratch);
  segment_run_ = false;
}

PtFastCountStats PtFastCounter::TallyBefore(uint64_t stop) const {
  PtFastCountStats stats;
  for (const SegmentTally& segment : tally_) {
    if (segment.psb >= stop) break;
    if (segment.fast) {
      ++stats.fast_segments;
      stats.fast_bytes += segment.fast_bytes;
    } else {
      ++stats.libipt_segments;
    }
  }
  return stats;
}

void PtFastCounter::Run(const uint8_t* data, size_t size, uint64_t file_offset,
                        bool data_lost_before, bool segment_start,
                        StreamStats* stats) {
  psb_states_.clear();
  DropHeld();  // a run stopped at a seam may have left a hold
  const size_t n = psbs_.size();
  segment_start_ = segment_start;

  chunk_size_ = size;
  chunk_base_ = file_offset;
  clock_.Reset();
  clock_psb_ = kClockFresh;
  clock_broken_ = false;
  replay_budget_ = size;
  chunk_errors_ = stats->errors - stats->overflows;
  data_lost_before_ = data_lost_before;
  // What comes before the first PSB (all of it without one) is libipt's:
  // the lost-data gap and the bytes before the first sync point. In event
  // mode libipt starts the chunk (DecodeWithLibipt from 0).
  if ((sink_ == nullptr || n == 0) && !segment_start) {
    // Without a PSB the chunk is libipt's whole: in event mode its events
    // (the gap of the bytes it could not sync in) go to the sink.
    NullEventSink discard;
    SegmentOutput output(sink_ != nullptr ? sink_ : &discard, libipt_.get(),
                         stats);
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
  for (size_t i = 0; i < n && !stop_;) {
    PruneStates(i);
    if (output_ && !held_) {
      held_.emplace();
      held_->first = i;
      held_->walking = walking;
      held_->before = SaveWalkState();
    }
    // A chunk's start is libipt's in event mode; a segment's is the walker's
    // (when it can), reporting what a walk coming from before reports.
    const bool status = walking || (segment_start && i == 0);
    if (const std::optional<uint64_t> count =
            sink_ != nullptr && i == 0 && !segment_start
                ? std::nullopt
                : TryWalk(i, walking, status)) {
      walking = true;
      ++i;
      if (!output_) {
        stats->instructions += *count;
        continue;
      }
      // A walk into a PSB with tracing off: the next segment's walk decides
      // whether these records stand.
      const bool hold = i < n && !walker_.enabled();
      if (!hold && !held_->walked) {  // the common case
        stats->instructions += *count;
        Deliver(i == n);
        DropHeld();
        continue;
      }
      held_->count += *count;
      held_->walked = true;
      if (hold) {
        walk_start_ = records_.size();
        continue;
      }
      stats->instructions += held_->count;
      Deliver(i == n);
      DropHeld();
      continue;
    }
    if (held_ && held_->walked) {
      // The segment after a PSB with tracing off is libipt's, and a libipt
      // run cannot start at such a PSB (pt_seam.h): the segments held back
      // before it are libipt's too.
      i = held_->first;
      walking = held_->walking;
      RestoreWalkState(held_->before);
    }
    DropHeld();
    // In a chunk with timing, libipt's clock at psbs_[i] is that of a run
    // from the chunk's first PSB: a replay, unless a run starting at
    // psbs_[i] would have the same clock there (no TSC yet, only CBRs that
    // every PSB+ repeats, or timing packets that leave nothing behind).
    const bool replay = sink_ != nullptr && walking && i > 0 &&
                        clock_.touched() && !clock_broken_ &&
                        !RestartKeepsClock(i);
    walking = false;
    const size_t resume =
        DecodeWithLibipt(data, size, file_offset, i, replay, stats);
    fast_stats_.libipt_segments += resume - i;
    for (size_t k = i; k < resume; ++k) Tally(k, /*fast=*/false, 0);
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
