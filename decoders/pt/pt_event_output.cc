// Batched event delivery with conditional-branch outcomes; see
// pt_event_output.h.
#include "decoders/pt/pt_event_output.h"

#include <algorithm>

#include "decoders/pt/pt_events.h"

namespace hwt::pt {

EventOutput::EventOutput(EventSink* sink, uint32_t stream, size_t batch_size) {
  Reset(sink, stream, batch_size);
}

void EventOutput::Reset(EventSink* sink, uint32_t stream, size_t batch_size) {
  sink_ = sink;
  stream_ = stream;
  batch_size_ = std::max<size_t>(batch_size, 1);
  hold_limit_ = 4 * batch_size_;
  events_.clear();
  events_.reserve(batch_size_ + 16);
  pending_ = kNone;
  pending_target_ = 0;
  held_ = false;
  held_block_ = Event();
}

void EventOutput::AddSlow(const Event& event) {
  if (pending_ != kNone) {
    if (event.kind == EventKind::kGap || event.kind == EventKind::kSync) {
      // The flow was interrupted: decoding restarts elsewhere.
      Resolve(std::nullopt);
    } else if (auto location = LocationOf(event)) {
      Resolve(location);
    }
  }
  events_.push_back(event);
  MaybeFlush();
}

void EventOutput::AddRun(absl::Span<const Event> events) {
  if (batch_size_ <= 1 || pending_ != kNone) {
    for (const Event& event : events) AddEvent(event);
    return;
  }
  size_t stretch = 0;  // the first event not yet delivered
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& event = events[i];
    // What AddBlock() and Add() would put into the batch as it is.
    if (!held_ && !(event.kind == EventKind::kBlock && MayContinue(event))) {
      continue;
    }
    PassThrough(events.subspan(stretch, i - stretch));
    AddEvent(event);
    stretch = i + 1;
  }
  PassThrough(events.subspan(stretch));
}

void EventOutput::PassThrough(absl::Span<const Event> events) {
  if (events.empty()) return;
  Flush(events_.size());
  // In pieces of at most a batch: a sink that copies what it cannot pass on
  // yet (a parallel decode's segment at its end, pt_seam.h) then copies no
  // more at a time than it did from the batch.
  while (!events.empty()) {
    const size_t count = std::min(events.size(), batch_size_);
    sink_->OnEvents(stream_, events.first(count));
    events.remove_prefix(count);
  }
}

void EventOutput::PutCondBlock(const Event& block, uint64_t target) {
  if (pending_ != kNone) Resolve(block.ip);
  events_.push_back(block);
  pending_ = events_.size() - 1;
  pending_target_ = target;
  MaybeFlush();
}

void EventOutput::Drain() {
  if (held_) FlushHeld();
  if (pending_ != kNone) Resolve(std::nullopt);
  Flush(events_.size());
}

std::optional<uint64_t> EventOutput::LocationOf(const Event& event) {
  switch (event.kind) {
    case EventKind::kBlock:
      return event.ip;
    case EventKind::kDisabled:
      if (event.code & kPtEndOfTrace) return std::nullopt;
      if (event.code & kPtAsync) return event.ip;  // `at`
      if (event.code & kPtIpSuppressed) return std::nullopt;
      return event.ip;
    case EventKind::kException:
      return event.ip;
    case EventKind::kPaging:
      if (event.code & kPtAsync) return event.ip;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

void EventOutput::Resolve(std::optional<uint64_t> location) {
  Event& block = events_[pending_];
  const uint64_t fallthrough = block.next_ip;
  if (!location) {
    block.branch = BranchKind::kNone;
  } else if (fallthrough != 0 && *location == fallthrough) {
    block.branch = BranchKind::kCondNotTaken;
  } else if (pending_target_ != 0 && *location == pending_target_) {
    block.branch = BranchKind::kCondTaken;
  } else {
    block.branch = BranchKind::kNone;
  }
  pending_ = kNone;
}

void EventOutput::MaybeFlush() {
  if (events_.size() < batch_size_) return;
  if (pending_ == kNone) {
    Flush(events_.size());
  } else if (pending_ > 0) {
    Flush(pending_);
  } else if (events_.size() >= hold_limit_) {
    // Nothing has said where the branch went for a long time.
    Resolve(std::nullopt);
    Flush(events_.size());
  }
}

void EventOutput::Flush(size_t count) {
  if (count == 0) return;
  absl::Span<const Event> span(events_.data(), count);
  sink_->OnEvents(stream_, span);
  events_.erase(events_.begin(), events_.begin() + count);
  if (pending_ != kNone) pending_ -= count;
}

}  // namespace hwt::pt
