// Stitching PSB segments. A chunk of PT is cut at PSBs into segments that are
// decoded on their own (pt_blk_sync_set at the segment's PSB); the stream
// must nevertheless be exactly what one decoder going through the whole chunk
// reports. Two things differ at a segment's start:
//
// - A decoder coming from the previous segment does not restart there: no
//   kSync, and the PSB+ status events that bind to no instruction (CBR, MNT,
//   timestamps) come right after the last block before the PSB, while the
//   block that leads up to the PSB+'s FUP address (if the flow was not there
//   yet) and the events bound to that address (exec mode, paging) follow.
//   A segment decoder therefore leaves out its kSync and its leading
//   unbound status events (IsLeadingStatusEvent), and a leading kEnabled
//   (its kPtResumed flag depends on where tracing stopped before the PSB);
//   what remains, its head, starts at the first instruction-bound event or
//   block.
// - The decoder of the previous segment runs on past the PSB (its flow goes
//   through it like a sequential decoder's) and compares what it produces
//   from the PSB on with the next segment's head. The seam is where
//   kSeamWindow consecutive events are equal in every field (addresses,
//   trace offsets, branch outcomes, time): from there both decoders are in
//   the same state (the PSB resets last-IP, TNT and return compression, the
//   events say where the flow is and what time it is), so the previous
//   segment stops and the next one's output continues the stream. Nothing is
//   counted twice and nothing is lost.
//
// When no seam is found (a broken PSB+, errors around it, timing that the
// restart cannot reproduce), the previous segment simply goes on through the
// next segment and tries the one after; the orchestrator (pt_parallel.h)
// then drops the skipped segment's own output. Correctness never depends on a
// seam being found, only the parallel speed-up does.
#ifndef HWT_DECODERS_PT_PT_SEAM_H_
#define HWT_DECODERS_PT_PT_SEAM_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "decoders/decoder.h"
#include "decoders/event.h"

namespace hwt::pt {

inline constexpr size_t kSeamWindow = 16;

// What a SegmentOutput or HeadCollector needs from the decode run that feeds
// it: libipt's segment decoder (PtSegmentDecoder) or the fast path's counter
// in event mode (PtFastCounter).
class SeamControl {
 public:
  virtual ~SeamControl() = default;
  // Stops the run soon: the sink may call it from OnEvents.
  virtual void RequestStop() = 0;
  // Trace offset (file offset) from which events should reach the sink one
  // by one (the sink looks for a seam there); ~0 = never. A hint: the seam is
  // found either way, only later.
  virtual void set_prompt_from(uint64_t offset) = 0;
  // One entry per kGap event delivered so far in this run, oldest first
  // (nullopt for gaps that are not errors).
  virtual std::deque<std::optional<DecodeErrorInfo>>& gap_errors() = 0;
  // Errors without a gap event, and the bytes they lost.
  virtual std::vector<DecodeErrorInfo>& other_errors() = 0;
  virtual uint64_t other_bytes_lost() const = 0;
};

// A PSB+ status event that binds to no instruction.
bool IsLeadingStatusEvent(const Event& event);
// Equal in every field but the block number of a block the decoder numbered
// (kBlockDecoderId: the fast path's), which is that decoder's own: the seam's
// two sides come from different decoders.
bool SameEvent(const Event& a, const Event& b);
inline bool IsDecoderNumbered(const Event& e) {
  return e.kind == EventKind::kBlock && (e.code & kBlockDecoderId) != 0;
}

// The first events a segment decoder delivers (at most kSeamWindow).
struct SegmentHead {
  std::vector<Event> events;
  bool usable() const { return events.size() >= kSeamWindow; }
};

// Finds the seam in the events a decoder produces from a segment boundary
// on: Add() them one by one; it returns the index (among the events added)
// where the head starts, as soon as kSeamWindow events are known equal.
class SeamFinder {
 public:
  // `storage`: a buffer to hold the events in (its contents are dropped),
  // for a caller that reuses one (ReleaseStorage).
  explicit SeamFinder(const SegmentHead& head, std::vector<Event> storage = {})
      : head_(head), tail_(std::move(storage)) {
    tail_.clear();
  }
  std::optional<size_t> Add(const Event& event);
  size_t size() const { return tail_.size(); }
  // The buffer, for the next finder; this one is done.
  std::vector<Event> ReleaseStorage() { return std::move(tail_); }

 private:
  const SegmentHead& head_;
  std::vector<Event> tail_;
  size_t candidate_ = 0;  // the smallest start not yet ruled out
};

// Storage a SegmentOutput holds events in, kept by whoever runs segment
// after segment (a parallel decode's worker) and lent to each run's output:
// the buffers keep their capacity from segment to segment rather than being
// allocated and freed per segment, churn the allocator does not give back.
struct SeamBuffers {
  std::vector<Event> tail;
  std::vector<Event> pending;
  std::vector<Event> finder;
};

// Where one decode run's events go. Counts what it delivers (blocks,
// instructions, bytes lost, the errors of the gaps it delivers) into
// `stats`. For a segment with later boundaries in its chunk it holds back
// the events from the next boundary on, looks for the seam with that
// boundary's head and stops the decoder there; events after the seam are
// dropped. Without boundaries it passes everything through.
class SegmentOutput : public EventSink {
 public:
  using HeadFn = std::function<const SegmentHead&(size_t boundary)>;

  // `buffers` (may be null): storage to use, given back (emptied) when the
  // output is destroyed.
  SegmentOutput(EventSink* destination, SeamControl* decoder,
                StreamStats* stats, SeamBuffers* buffers = nullptr);
  ~SegmentOutput() override;
  SegmentOutput(const SegmentOutput&) = delete;
  SegmentOutput& operator=(const SegmentOutput&) = delete;

  // File offsets of the segment boundaries after the run's start (PSBs where
  // later segments start), increasing, and the heads of those segments.
  // `boundaries` is not copied: it must outlive the decode run.
  void SetBoundaries(absl::Span<const uint64_t> boundaries, HeadFn head);

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;
  // Delivers what is still held back (the run ended without a seam) and the
  // decoder's errors without events.
  void Finish();

  // The boundary (index into the boundaries) whose segment continues the
  // stream, or nullopt when this run went to the end of the chunk.
  std::optional<size_t> stitched_to() const { return stitched_to_; }

  // Also hands every error it counts on to `run` (gap errors in event order,
  // other errors and their lost bytes at Finish()): a decode run inside
  // another run (the fast path's libipt stretches) whose own SegmentOutput
  // counts what the outer run delivers.
  void ForwardErrorsTo(std::deque<std::optional<DecodeErrorInfo>>* gap_errors,
                       std::vector<DecodeErrorInfo>* other_errors,
                       uint64_t* other_bytes_lost) {
    forward_gap_errors_ = gap_errors;
    forward_other_errors_ = other_errors;
    forward_other_bytes_lost_ = other_bytes_lost;
  }

 private:
  void Process(const Event& event);
  void EnterBoundary(size_t index);
  void Deliver(const Event* events, size_t count);
  void FlushPending();
  // Drops the finder, keeping its buffer for the next one.
  void ResetFinder();

  EventSink* destination_;
  SeamControl* decoder_;
  StreamStats* stats_;
  std::deque<std::optional<DecodeErrorInfo>>* forward_gap_errors_ = nullptr;
  std::vector<DecodeErrorInfo>* forward_other_errors_ = nullptr;
  uint64_t* forward_other_bytes_lost_ = nullptr;
  uint32_t stream_ = 0;
  absl::Span<const uint64_t> boundaries_;
  HeadFn head_fn_;
  size_t target_ = 0;  // the boundary looked for
  SeamBuffers* buffers_;
  std::optional<SeamFinder> finder_;
  std::vector<Event> finder_storage_;  // for the next finder_
  std::vector<Event> tail_;            // events from boundaries_[target_] on
  std::vector<Event> pending_;         // before the tail, not yet delivered
  std::optional<size_t> stitched_to_;
  bool done_ = false;
};

// Collects a segment's head (its first kSeamWindow events) and stops the
// decoder then.
class HeadCollector : public EventSink {
 public:
  HeadCollector(SegmentHead* head, SeamControl* decoder)
      : head_(head), decoder_(decoder) {}
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;

 private:
  SegmentHead* head_;
  SeamControl* decoder_;
};

// Segment starts for a chunk: 0, then the first PSB at or after every
// further `target_bytes` (relative offsets, increasing) for which `usable`
// (if given) holds.
std::vector<uint64_t> PlanSegments(
    const uint8_t* data, size_t size, size_t target_bytes,
    const std::function<bool(uint64_t psb)>& usable = nullptr);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_SEAM_H_
