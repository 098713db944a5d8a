// What a segment builder hands to the merger: its store, its threads' final
// states with the operations they did on their unknown starting stacks, and
// per stream what the first events resolve of the previous segment's state
// (the timing weight of its last block, its context). Internal to analysis/.
#ifndef HWT_ANALYSIS_SEGMENT_DATA_H_
#define HWT_ANALYSIS_SEGMENT_DATA_H_

#include <cstdint>
#include <vector>

#include "analysis/profile.h"
#include "analysis/profile_store.h"
#include "analysis/stack_machine.h"
#include "decoders/event.h"

namespace hwt::analysis::internal {

// The last block of a stream whose timing weight waits for the next
// resolving event (a block or a disable; a gap drops it).
struct TimePending {
  uint32_t slot = kNone;
  uint32_t block = kNone;
  uint64_t time = 0;
};

struct StreamSegment {
  uint32_t id = 0;
  // The first block, disable or gap of the stream in this segment.
  bool resolver_seen = false;
  EventKind first_resolver = EventKind::kBlock;
  uint64_t first_resolver_time = 0;
  TimePending pending;  // at the end of the segment
  bool context_seen = false;
  uint64_t context = 0;  // at the end of the segment, if context_seen
  // Trace offsets of the stream's first and last event in the segment.
  uint64_t first_offset = 0;
  uint64_t last_offset = 0;
  // The newest exec (kResetUser) at a position before first_offset: it
  // resets the stack at the seam unless an event of the previous segment
  // came after it (the previous segment then applied it).
  bool lead_reset = false;
  uint64_t lead_reset_position = 0;
};

struct SegmentData {
  ProfileStore store;
  std::vector<ThreadState> threads;
  std::vector<BaseOp> bases;  // by base id
  std::vector<StreamSegment> streams;
  ProfileStats stats;
  bool has_time = false;
  bool hot_paths = true;  // ProfileOptions::hot_paths of the builder
};

// Adds the time from `pending` to `time` (docs/call-stacks.md, Timing).
inline void AddPendingTime(ProfileStore& store, const TimePending& pending,
                           uint64_t time, ProfileStats& stats) {
  if (pending.slot == kNone || time <= pending.time) return;
  const uint64_t delta = time - pending.time;
  store.slots()[pending.slot].time += delta;
  store.blocks()[pending.block].time += delta;
  stats.time += delta;
}

// Builds the canonical profile from a store without base frames.
Profile FinishProfile(const ProfileStore& store,
                      const std::vector<ThreadState>& threads,
                      const ProfileStats& stats, bool has_time);

}  // namespace hwt::analysis::internal

#endif  // HWT_ANALYSIS_SEGMENT_DATA_H_
