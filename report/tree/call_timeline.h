// Exact call/return timelines per thread, for speedscope's evented
// profiles: a ProfileObserver that sees each block with the stack the
// profile builder attributes it to, and turns every change of stack into
// frame closes and opens. Two clocks are kept, the thread's instruction
// count and the blocks' timestamps; Finish() picks one, so that the
// timeline's weight per stack equals the profile's in either unit. Memory grows
// with the number of stack changes: `max_events` caps it (the timeline then
// ends early, marked truncated).
#ifndef HWT_REPORT_TREE_CALL_TIMELINE_H_
#define HWT_REPORT_TREE_CALL_TIMELINE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/frame.h"
#include "analysis/profile_builder.h"

namespace hwt::report {

// The frame of an interval with tracing disabled (a system call, an
// interrupt): in timelines on time only (CallTimelineRecorder::Finish).
inline constexpr uint32_t kUntracedFrame = 0xffffffffu;

struct TimelineEvent {
  uint64_t at = 0;     // the chosen clock
  uint32_t frame = 0;  // index into CallTimeline::frames, or kUntracedFrame
  bool open = false;
};

struct ThreadTimeline {
  uint32_t stream = 0;
  uint64_t context = 0;
  uint64_t start = 0;                 // clock at the first event
  uint64_t end = 0;                   // clock after the last block
  std::vector<TimelineEvent> events;  // balanced, `at` non-decreasing
};

struct CallTimeline {
  bool by_time = false;
  bool truncated = false;  // max_events reached
  std::vector<analysis::FrameKey> frames;
  std::vector<ThreadTimeline> threads;  // sorted by (stream, context)
};

class CallTimelineRecorder : public analysis::ProfileObserver {
 public:
  explicit CallTimelineRecorder(size_t max_events);

  void OnBlock(const analysis::StackTable& stacks, uint32_t stream,
               uint64_t context, uint32_t stack,
               const hwt::Event& block) override;
  void OnGap(const analysis::StackTable& stacks, uint32_t stream,
             uint64_t context, uint32_t stack, const hwt::Event& gap) override;

  void OnDisabled(uint32_t stream, uint64_t context,
                  const hwt::Event& disabled) override;

  // Closes every open frame at its thread's end. `by_time`: the clock is
  // time (blocks before a thread's first timestamp are placed at it).
  // `untraced` (on time only): the intervals with tracing disabled become
  // kUntracedFrame events under the frame they interrupted, so that every
  // frame's own time is the profile's (which attributes none of them).
  // May be called again for another clock; the recorder takes no more
  // blocks.
  CallTimeline Finish(bool by_time, bool untraced = false);

 private:
  struct Event {
    uint64_t insns;
    uint64_t time;
    uint32_t frame;
    bool open;
  };
  struct Thread {
    uint32_t stream = 0;
    uint64_t context = 0;
    std::vector<Event> events;
    std::vector<uint32_t> open;  // stack ids, root first
    uint64_t insns = 0;          // instructions so far
    uint64_t time = 0;           // latest timestamp (0: none yet)
    uint64_t first_time = 0;
    bool started = false;
    bool untraced = false;  // disabled since the last block
  };
  Thread& ThreadOf(uint32_t stream, uint64_t context);
  uint32_t FrameIndex(const analysis::FrameKey& key);
  uint32_t Depth(const analysis::StackTable& stacks, uint32_t stack);
  // Closes frames down to `keep` open ones.
  void CloseTo(Thread& t, size_t keep);
  void Emit(Thread& t, uint32_t frame, bool open);
  void Tick(Thread& t, const hwt::Event& e);
  // Ends an untraced interval at event `e` (the next block or gap).
  void Resume(Thread& t, const hwt::Event& e);

  size_t max_events_;
  size_t events_ = 0;
  bool full_ = false;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, Thread> threads_;
  absl::flat_hash_map<analysis::FrameKey, uint32_t> frame_index_;
  std::vector<analysis::FrameKey> frames_;
  // Per stack id: its depth (1 for a root frame) and frame index; 0 = not
  // seen yet.
  std::vector<uint32_t> depth_;
  std::vector<uint32_t> stack_frame_;
  std::vector<uint32_t> scratch_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_TREE_CALL_TIMELINE_H_
