// Counting the instructions of a PT chunk on the fast path (issue 6): each
// PSB segment is walked through the block cache (pt_fast_walker.h) without
// decoding instructions; a segment the walker gives up on is decoded by
// libipt's block decoder (PtSegmentDecoder) from its PSB, which runs on
// until the flow reaches the FUP of a later PSB, where the fast path takes
// over again. Segments whose address space changes (exec, mmap) go to libipt
// too. The result is the instruction count, the errors and the lost bytes of
// the libipt path (blocks are not counted: the fast path has its own idea of
// a block), exactly on traces that decode without errors (overflows are
// fine). Around a decode error libipt's own result depends on its history
// (where it resynchronised, what its block cache holds), and a libipt run
// restarted at a PSB may count a few instructions differently there.
#ifndef HWT_DECODERS_PT_PT_FAST_COUNT_H_
#define HWT_DECODERS_PT_PT_FAST_COUNT_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "decoders/decoder.h"
#include "decoders/memory_image.h"
#include "decoders/pt/pt_block_cache.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/pt_fast_walker.h"
#include "decoders/pt/pt_libipt_handles.h"
#include "decoders/pt/pt_seam.h"

namespace hwt::pt {

struct PtFastCountStats {
  uint64_t segments = 0;         // PSB segments in the chunks
  uint64_t fast_segments = 0;    // counted by the walker
  uint64_t libipt_segments = 0;  // decoded by libipt (the rest)
  uint64_t fast_bytes = 0;       // trace bytes of the walker's segments
  uint64_t blocks_cached = 0;    // blocks in the cache at the end
  void Merge(const PtFastCountStats& other);
};

class PtSegmentDecoder;
class EventOutput;
struct PtDecodeJob;

// PtFastCounter, event mode: what walks change besides their records and
// counts (the clock and where it stands, the statistics), saved before walks
// that may yet turn out to be libipt's and put back then.
struct FastWalkState {
  PtClock clock;
  size_t clock_psb = 0;
  bool clock_broken = false;
  PtFastCountStats fast_stats;
  size_t tally_size = 0;
};

// PtFastCounter, event mode: walked segments whose records are held back
// (at the front of the counter's records) because the last walk ended at a
// PSB with tracing off, until a walk ends where tracing is on. If the walker
// gives up on the segment after such a PSB, libipt decodes from the first held
// segment instead, with the state kept here (a libipt run cannot start at a PSB
// with tracing off: pt_seam.h).
struct HeldFastWalks {
  size_t first = 0;      // the first segment held
  bool walking = false;  // reached by a walk (else a restart)
  bool walked = false;   // a segment is held
  uint64_t count = 0;
  FastWalkState before;  // before the first
};

// Counts one buffer's chunks, in order. Not thread-safe.
//
// With an event sink (the fast decoder: the default engine of every
// analysis) it also delivers the stream's events, exactly those of libipt's
// sequential decoder: the walker's blocks and events for the segments it
// takes, libipt's for the rest. The chunk's start (the bytes before the
// first PSB and the first sync) is always libipt's, and in event mode the
// walker also gives up on segments with PIP/VMCS packets, which libipt
// reports as events (pt_fast_walker.h).
//
// Timing (event mode): blocks and events carry libipt's times. The walker
// keeps a clock as libipt's sequential decoder would have it (PtClock, from
// the chunk's first PSB on). A libipt run started afresh at a later PSB
// would not have that clock (its calibration starts over), so in a chunk
// with timing a segment the walker gives up on is decoded by a libipt run
// from the chunk's first PSB whose events are dropped up to that segment (a
// replay). Replays may cost at most as many bytes as the chunk holds; after
// that libipt decodes the rest of the chunk. Event offsets on
// the walker's segments are those of the packet being followed; they fall
// in the same span between address-space changes as libipt's (segments
// with a change are libipt's), which is all the analysis reads from them.
//
// Parallel decoding (pt_parallel.h) runs it on PSB segments of a chunk
// (DecodeSegment), like libipt's segment decoder: a run that starts at a
// PSB in the middle of a chunk starts there as a walk restarted at the PSB
// (libipt's when the walker gives up on it), reporting the execution-mode
// status that a walk coming from before reports there, with a clock that
// starts at that PSB, as a libipt run started there has it. The seam with
// the run coming from before (pt_seam.h) is where the two agree.
class PtFastCounter : public SeamControl {
 public:
  PtFastCounter(const PtRunContext& run, size_t buffer_index,
                EventSink* sink = nullptr, uint32_t stream = 0);
  ~PtFastCounter() override;
  PtFastCounter(const PtFastCounter&) = delete;
  PtFastCounter& operator=(const PtFastCounter&) = delete;

  // Adds the chunk [data, data + size) at `file_offset` to `stats`.
  void CountChunk(const uint8_t* data, size_t size, uint64_t file_offset,
                  bool data_lost_before, StreamStats* stats);

  // Event mode, one segment of a parallel decode: decodes `job`'s chunk from
  // job.start (0 or a PSB) to its end into `sink` (as stream `stream`), or
  // until RequestStop(). `psbs`: the chunk's PSB offsets from job.start on
  // (the chunk's first PSB on when job.start is 0). The statistics are those
  // the sink (a SegmentOutput) counts from the events it keeps; the errors
  // of libipt's stretches reach it through gap_errors() and other_errors().
  void DecodeSegment(const PtDecodeJob& job, absl::Span<const uint64_t> psbs,
                     EventSink* sink, uint32_t stream);

  const PtFastCountStats& fast_stats() const { return fast_stats_; }
  // After DecodeSegment: the fast path's figures for the segments whose PSB
  // lies before file offset `stop` (where the run's output was cut at the
  // seam), without `segments` (the caller knows the plan).
  PtFastCountStats TallyBefore(uint64_t stop) const;

  // SeamControl (DecodeSegment).
  void RequestStop() override;
  // Only 0 matters (events one by one from the start: a head, pt_seam.h);
  // a seam further on is found when the walker's batch is delivered.
  void set_prompt_from(uint64_t offset) override { prompt_from_ = offset; }
  std::deque<std::optional<DecodeErrorInfo>>& gap_errors() override {
    return gap_errors_;
  }
  std::vector<DecodeErrorInfo>& other_errors() override {
    return other_errors_;
  }
  uint64_t other_bytes_lost() const override { return other_bytes_lost_; }

 private:
  // Event mode from now on, into `sink`.
  void BindSink(EventSink* sink, uint32_t stream);
  // Counts (and in event mode decodes) the chunk with the PSBs in psbs_.
  // `segment_start`: the run starts at psbs_[0], a PSB in the middle of the
  // chunk (DecodeSegment).
  void Run(const uint8_t* data, size_t size, uint64_t file_offset,
           bool data_lost_before, bool segment_start, StreamStats* stats);
  // Decodes with libipt from the PSB psbs[first] until the flow reaches the
  // FUP of a later PSB whose segment the walker takes; returns the index of
  // that PSB (psbs.size() when libipt went to the end of the chunk).
  // `replay`: the run starts at the chunk's first PSB and delivers from
  // psbs[first] on (the flow there, as the walker left it).
  size_t DecodeWithLibipt(const uint8_t* data, size_t size,
                          uint64_t file_offset, size_t first, bool replay,
                          StreamStats* stats);
  // Whether libipt, standing at `to` after the PSB+ that ends at `from`,
  // only read ahead there: timing packets (and padding), which its queries
  // have not used yet (the walker reads them again).
  bool ReadAheadOnly(uint64_t from, uint64_t to);
  // Moves the clock to where libipt stands after the PSB+ of psbs[index].
  bool AdvanceClockTo(size_t index);
  // Applies the packets in [from, to) to `clock` as libipt's query decoder
  // reads them (a PSB+ in them included).
  bool ReadClock(uint64_t from, uint64_t to, PtClock* clock);
  // Whether a libipt run restarted at psbs[index] has, after its PSB+, the
  // clock the sequential decode has there (the clock stands at that PSB):
  // then it needs no replay.
  bool RestartKeepsClock(size_t index);
  // Whether the address space changes at a position in (from, to]: the
  // segment is left to libipt, which applies changes as it reads.
  bool AddressSpaceChangesIn(uint64_t from, uint64_t to) const;

  // Ends the hold (if any) and drops the records (their storage kept).
  void DropHeld();
  const PsbState& StateOf(size_t index);
  // Drops the PSB+ states before `index` and before the ones the run may
  // still go back to (held walks, the clock's PSB).
  void PruneStates(size_t index);
  FastWalkState SaveWalkState() const {
    return {clock_, clock_psb_, clock_broken_, fast_stats_, tally_.size()};
  }
  void RestoreWalkState(const FastWalkState& state) {
    clock_ = state.clock;
    clock_psb_ = state.clock_psb;
    clock_broken_ = state.clock_broken;
    fast_stats_ = state.fast_stats;
    tally_.resize(state.tally_size);
  }
  // DecodeSegment: which way segment `i` went.
  void Tally(size_t i, bool fast, uint64_t fast_bytes) {
    if (segment_run_) {
      tally_.push_back({chunk_base_ + psbs_[i], fast_bytes, fast});
    }
  }
  // Walks segment `i` of the current chunk: after segment i - 1 when
  // `continuing`, else from a restart at its PSB. The count, or nullopt when
  // the segment is libipt's. `status` (event mode): the walk reports the
  // PSB+'s execution mode first, as a walk coming from before does.
  std::optional<uint64_t> TryWalk(size_t i, bool continuing, bool status);
  // Event mode: delivers the records of the last successful walk.
  void Deliver(bool chunk_end);

  const PtRunContext& run_;
  size_t buffer_index_;
  MemoryImage memory_;
  FastBlockCache cache_;
  FastWalker walker_;
  std::unique_ptr<PtSegmentDecoder> libipt_;
  PtFastCountStats fast_stats_;
  // Per chunk: PSB offsets and their PSB+ (read when first needed). psbs_
  // views own_psbs_ (CountChunk) or the caller's (DecodeSegment).
  std::vector<uint64_t> own_psbs_;
  absl::Span<const uint64_t> psbs_;
  // The PSB+ states read so far (by index), only around where the run
  // stands: a state is the PSB+'s alone and read again when dropped, so that
  // memory does not grow with the trace (PruneStates).
  std::map<size_t, PsbState> psb_states_;
  PacketDecoderPtr packets_;
  uint64_t chunk_size_ = 0;
  uint64_t chunk_base_ = 0;  // file offset of the chunk
  bool data_lost_before_ = false;
  // The walker's count of the segment where libipt handed over.
  std::optional<uint64_t> handed_over_count_;
  // Event mode.
  EventSink* sink_ = nullptr;
  uint32_t stream_ = 0;
  std::unique_ptr<EventOutput> output_;
  // Storage of the libipt stretches' SegmentOutputs, kept from one to the
  // next.
  SeamBuffers libipt_buffers_;
  // The clock (event mode) and where it stands: after the PSB+ of
  // psbs_[clock_psb_] (kClockFresh: before the first PSB).
  static constexpr size_t kClockFresh = static_cast<size_t>(-1);
  PtClock clock_;
  size_t clock_psb_ = kClockFresh;
  bool clock_broken_ = false;   // unknown for the rest of the chunk
  uint64_t replay_budget_ = 0;  // bytes replays may still decode
  uint64_t chunk_errors_ = 0;   // errors but overflows when the chunk started
  // The walker's records: those of held walks (HeldFastWalks) before
  // walk_start_, then the current walk's. A hold leaves its records where
  // they are, so nothing is copied when the next walk decides (a hold
  // gathers up to tens of thousands of records on the bench's trace).
  std::vector<Event> records_;
  size_t walk_start_ = 0;
  uint64_t fast_blocks_ = 0;           // blocks delivered from the walker
  std::optional<HeldFastWalks> held_;  // see HeldFastWalks
  // DecodeSegment.
  bool segment_run_ = false;    // in DecodeSegment
  bool segment_start_ = false;  // the run started at a PSB mid-chunk
  bool stop_ = false;
  uint64_t prompt_from_ = ~uint64_t{0};
  uint64_t walked_to_ = 0;  // furthest position the memory image was moved to
  std::deque<std::optional<DecodeErrorInfo>> gap_errors_;
  std::vector<DecodeErrorInfo> other_errors_;
  uint64_t other_bytes_lost_ = 0;
  struct SegmentTally {
    uint64_t psb = 0;  // file offset
    uint64_t fast_bytes = 0;
    bool fast = false;
  };
  std::vector<SegmentTally> tally_;  // the run's segments, in order
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_FAST_COUNT_H_
