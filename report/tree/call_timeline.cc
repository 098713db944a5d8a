// Call/return timelines from the profile builder's stacks; see
// call_timeline.h.
#include "report/tree/call_timeline.h"

#include <algorithm>

namespace hwt::report {

using analysis::FrameKey;
using analysis::StackTable;

CallTimelineRecorder::CallTimelineRecorder(size_t max_events)
    : max_events_(max_events) {}

CallTimelineRecorder::Thread& CallTimelineRecorder::ThreadOf(uint32_t stream,
                                                             uint64_t context) {
  auto [it, inserted] = threads_.try_emplace({stream, context});
  if (inserted) {
    it->second.stream = stream;
    it->second.context = context;
  }
  return it->second;
}

uint32_t CallTimelineRecorder::FrameIndex(const FrameKey& key) {
  auto [it, inserted] =
      frame_index_.try_emplace(key, static_cast<uint32_t>(frames_.size()));
  if (inserted) frames_.push_back(key);
  return it->second;
}

uint32_t CallTimelineRecorder::Depth(const StackTable& stacks, uint32_t stack) {
  if (stack < depth_.size() && depth_[stack] != 0) return depth_[stack];
  // Walk up to a known ancestor, then fill in on the way down.
  scratch_.clear();
  uint32_t base = 0;
  for (uint32_t s = stack; s != StackTable::kNoStack; s = stacks.Parent(s)) {
    if (s < depth_.size() && depth_[s] != 0) {
      base = depth_[s];
      break;
    }
    scratch_.push_back(s);
  }
  for (size_t i = scratch_.size(); i-- > 0;) {
    const uint32_t id = scratch_[i];
    if (id >= depth_.size()) {
      depth_.resize(id + 1024, 0);
      stack_frame_.resize(id + 1024, 0);
    }
    depth_[id] = ++base;
    stack_frame_[id] = FrameIndex(stacks.TopFrame(id));
  }
  return depth_[stack];
}

void CallTimelineRecorder::Emit(Thread& t, uint32_t frame, bool open) {
  t.events.push_back(Event{t.insns, t.time, frame, open});
  ++events_;
}

void CallTimelineRecorder::CloseTo(Thread& t, size_t keep) {
  while (t.open.size() > keep) {
    Emit(t, stack_frame_[t.open.back()], false);
    t.open.pop_back();
  }
}

void CallTimelineRecorder::Tick(Thread& t, const hwt::Event& e) {
  if (e.time == 0) return;
  if (t.first_time == 0) t.first_time = e.time;
  t.time = std::max(t.time, e.time);
}

void CallTimelineRecorder::Resume(Thread& t, const hwt::Event& e) {
  if (!t.untraced) {
    Tick(t, e);
    return;
  }
  t.untraced = false;
  Emit(t, kUntracedFrame, true);
  Tick(t, e);
  Emit(t, kUntracedFrame, false);
}

void CallTimelineRecorder::OnDisabled(uint32_t stream, uint64_t context,
                                      const hwt::Event& disabled) {
  if (full_) return;
  Thread& t = ThreadOf(stream, context);
  if (!t.started) return;
  Tick(t, disabled);
  t.untraced = true;
}

void CallTimelineRecorder::OnBlock(const StackTable& stacks, uint32_t stream,
                                   uint64_t context, uint32_t stack,
                                   const hwt::Event& block) {
  if (full_) return;
  Thread& t = ThreadOf(stream, context);
  t.started = true;
  Resume(t, block);
  if (t.open.empty() || t.open.back() != stack) {
    // The new stack's frames that are not open yet, from the top down.
    uint32_t d = Depth(stacks, stack);
    scratch_.clear();
    uint32_t s = stack;
    while (s != StackTable::kNoStack &&
           !(d <= t.open.size() && t.open[d - 1] == s)) {
      scratch_.push_back(s);
      s = stacks.Parent(s);
      --d;
    }
    CloseTo(t, d);
    for (size_t i = scratch_.size(); i-- > 0;) {
      t.open.push_back(scratch_[i]);
      Emit(t, stack_frame_[scratch_[i]], true);
    }
  }
  t.insns += block.ninsn;
  if (events_ >= max_events_) full_ = true;
}

void CallTimelineRecorder::OnGap(const StackTable& stacks, uint32_t stream,
                                 uint64_t context, uint32_t stack,
                                 const hwt::Event& gap) {
  if (full_) return;
  Thread& t = ThreadOf(stream, context);
  if (!t.started) return;
  Resume(t, gap);
  if (stack != StackTable::kNoStack) {
    // The [gap] leaf the profile shows below the cut stack: zero width.
    const uint32_t frame = FrameIndex(FrameKey::Gap());
    Emit(t, frame, true);
    Emit(t, frame, false);
  }
  CloseTo(t, 0);
  if (events_ >= max_events_) full_ = true;
}

CallTimeline CallTimelineRecorder::Finish(bool by_time, bool untraced) {
  untraced = untraced && by_time;
  CallTimeline out;
  out.by_time = by_time;
  out.truncated = full_;
  std::vector<std::pair<uint32_t, uint64_t>> keys;
  for (const auto& [key, t] : threads_) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const auto& key : keys) {
    Thread& t = threads_.at(key);
    if (!t.started) continue;
    CloseTo(t, 0);
    ThreadTimeline timeline;
    timeline.stream = t.stream;
    timeline.context = t.context;
    auto clock = [&](const Event& e) {
      return by_time ? std::max(e.time, t.first_time) : e.insns;
    };
    timeline.start = t.events.empty() ? 0 : clock(t.events.front());
    timeline.end = by_time ? std::max(t.time, t.first_time) : t.insns;
    timeline.events.reserve(t.events.size());
    for (const Event& e : t.events) {
      if (e.frame == kUntracedFrame && !untraced) continue;
      timeline.events.push_back(TimelineEvent{clock(e), e.frame, e.open});
    }
    out.threads.push_back(std::move(timeline));
  }
  out.frames = frames_;
  return out;
}

}  // namespace hwt::report
