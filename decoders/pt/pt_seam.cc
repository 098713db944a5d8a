// Stitching PSB segments; see pt_seam.h.
#include "decoders/pt/pt_seam.h"

#include <algorithm>

#include "decoders/pt/pt_events.h"
#include "decoders/pt/pt_segment_decoder.h"
#include "decoders/pt/pt_sync.h"

namespace hwt::pt {
namespace {

// Events held back at a boundary before the seam is given up (a seam is
// normally found within a few events).
constexpr size_t kMaxTail = 1 << 16;

}  // namespace

bool IsLeadingStatusEvent(const Event& event) {
  switch (event.kind) {
    case EventKind::kCoreBusRatio:
    case EventKind::kTimestamp:
      return true;
    case EventKind::kBackend:
      return BackendType(event.code) == PtBackendEvent::kMnt;
    default:
      return false;
  }
}

bool SameEvent(const Event& a, const Event& b) {
  return a.kind == b.kind && a.branch == b.branch && a.isa == b.isa &&
         a.reason == b.reason && a.ninsn == b.ninsn && a.ip == b.ip &&
         a.last_ip == b.last_ip && a.next_ip == b.next_ip &&
         a.offset == b.offset && a.time == b.time &&
         (a.value == b.value || IsDecoderNumbered(a)) && a.code == b.code &&
         a.region == b.region;
}

std::optional<size_t> SeamFinder::Add(const Event& event) {
  tail_.push_back(event);
  if (!head_.usable()) return std::nullopt;
  const std::vector<Event>& head = head_.events;
  while (candidate_ + kSeamWindow <= tail_.size()) {
    size_t n = 0;
    while (n < kSeamWindow && SameEvent(tail_[candidate_ + n], head[n])) ++n;
    if (n == kSeamWindow) return candidate_;
    ++candidate_;
  }
  return std::nullopt;
}

SegmentOutput::SegmentOutput(EventSink* destination, SeamControl* decoder,
                             StreamStats* stats, SeamBuffers* buffers)
    : destination_(destination),
      decoder_(decoder),
      stats_(stats),
      buffers_(buffers) {
  if (buffers_ == nullptr) return;
  tail_.swap(buffers_->tail);
  pending_.swap(buffers_->pending);
  finder_storage_.swap(buffers_->finder);
  tail_.clear();
  pending_.clear();
}

SegmentOutput::~SegmentOutput() {
  if (buffers_ == nullptr) return;
  ResetFinder();
  tail_.clear();
  pending_.clear();
  finder_storage_.clear();
  buffers_->tail.swap(tail_);
  buffers_->pending.swap(pending_);
  buffers_->finder.swap(finder_storage_);
}

void SegmentOutput::ResetFinder() {
  if (finder_) finder_storage_ = finder_->ReleaseStorage();
  finder_.reset();
}

void SegmentOutput::SetBoundaries(absl::Span<const uint64_t> boundaries,
                                  HeadFn head) {
  boundaries_ = boundaries;
  head_fn_ = std::move(head);
  target_ = 0;
  if (!boundaries_.empty()) decoder_->set_prompt_from(boundaries_[0]);
}

void SegmentOutput::OnEvents(uint32_t stream, absl::Span<const Event> events) {
  stream_ = stream;
  if (!done_ && tail_.empty() && pending_.empty()) {
    // The common case: nothing held back and every event before the next
    // boundary (what Process() would do, without copying).
    const bool before_boundary =
        target_ >= boundaries_.size() ||
        std::all_of(events.begin(), events.end(), [&](const Event& e) {
          return e.offset < boundaries_[target_];
        });
    if (before_boundary) {
      if (!events.empty()) Deliver(events.data(), events.size());
      return;
    }
  }
  for (const Event& event : events) {
    if (done_) break;
    Process(event);
  }
  FlushPending();
}

void SegmentOutput::Process(const Event& event) {
  if (target_ >= boundaries_.size()) {
    pending_.push_back(event);
    return;
  }
  if (tail_.empty() && event.offset < boundaries_[target_]) {
    pending_.push_back(event);
    return;
  }
  if (tail_.empty()) EnterBoundary(target_);
  tail_.push_back(event);
  if (finder_) {
    if (const std::optional<size_t> seam = finder_->Add(event)) {
      // The next segment's output continues the stream from here.
      pending_.insert(pending_.end(), tail_.begin(), tail_.begin() + *seam);
      tail_.clear();
      stitched_to_ = target_;
      done_ = true;
      decoder_->RequestStop();
      return;
    }
  }
  const bool past_next = target_ + 1 < boundaries_.size() &&
                         event.offset >= boundaries_[target_ + 1];
  if (finder_ && !past_next && tail_.size() < kMaxTail) return;
  // No seam with this boundary: its segment is skipped, the events so far
  // are the stream's; look for the next boundary in what is held back.
  std::vector<Event> held;
  held.swap(tail_);
  ResetFinder();
  ++target_;
  decoder_->set_prompt_from(target_ < boundaries_.size() ? boundaries_[target_]
                                                         : ~uint64_t{0});
  for (const Event& e : held) {
    if (done_) break;
    Process(e);
  }
  if (tail_.empty()) {  // keep the larger buffer
    held.clear();
    tail_.swap(held);
  }
}

void SegmentOutput::EnterBoundary(size_t index) {
  const SegmentHead& head = head_fn_(index);
  ResetFinder();
  if (head.usable()) finder_.emplace(head, std::move(finder_storage_));
}

void SegmentOutput::FlushPending() {
  if (pending_.empty()) return;
  Deliver(pending_.data(), pending_.size());
  pending_.clear();
}

void SegmentOutput::Deliver(const Event* events, size_t count) {
  auto& gap_errors = decoder_->gap_errors();
  for (size_t i = 0; i < count; ++i) {
    const Event& e = events[i];
    if (e.kind == EventKind::kBlock) {
      ++stats_->blocks;
      stats_->instructions += e.ninsn;
    } else if (e.kind == EventKind::kGap) {
      stats_->bytes_lost += e.value;
      if (!gap_errors.empty()) {
        if (forward_gap_errors_ != nullptr) {
          forward_gap_errors_->push_back(gap_errors.front());
        }
        if (gap_errors.front())
          stats_->AddError(std::move(*gap_errors.front()));
        gap_errors.pop_front();
      } else if (forward_gap_errors_ != nullptr) {
        forward_gap_errors_->push_back(std::nullopt);
      }
    }
  }
  destination_->OnEvents(stream_, absl::MakeConstSpan(events, count));
}

void SegmentOutput::Finish() {
  if (!done_) {
    pending_.insert(pending_.end(), tail_.begin(), tail_.end());
    tail_.clear();
    FlushPending();
  }
  for (DecodeErrorInfo& error : decoder_->other_errors()) {
    if (forward_other_errors_ != nullptr)
      forward_other_errors_->push_back(error);
    stats_->AddError(std::move(error));
  }
  decoder_->other_errors().clear();
  stats_->bytes_lost += decoder_->other_bytes_lost();
  if (forward_other_bytes_lost_ != nullptr) {
    *forward_other_bytes_lost_ += decoder_->other_bytes_lost();
  }
}

void HeadCollector::OnEvents(uint32_t stream, absl::Span<const Event> events) {
  for (const Event& event : events) {
    if (head_->events.size() >= kSeamWindow) break;
    head_->events.push_back(event);
  }
  if (head_->events.size() >= kSeamWindow) decoder_->RequestStop();
}

std::vector<uint64_t> PlanSegments(
    const uint8_t* data, size_t size, size_t target_bytes,
    const std::function<bool(uint64_t psb)>& usable) {
  std::vector<uint64_t> starts = {0};
  if (target_bytes == 0) return starts;
  uint64_t from = target_bytes;
  while (from < size) {
    const std::optional<uint64_t> psb = FindNextPsb(data, size, from);
    if (!psb) break;
    if (usable && !usable(*psb)) {
      from = *psb + 1;
      continue;
    }
    starts.push_back(*psb);
    from = *psb + target_bytes;
  }
  return starts;
}

}  // namespace hwt::pt
