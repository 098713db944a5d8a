// SegmentOutput with lent SeamBuffers: a parallel decode's worker lends the
// same buffers to the output of segment after segment, and each must deliver
// exactly what an output with its own storage delivers (events, seam,
// statistics), whatever the runs before left in the buffers.
#include "decoders/pt/pt_seam.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace hwt::pt {
namespace {

// A decode run as far as a SegmentOutput sees it: stop requests only.
class FakeRun : public SeamControl {
 public:
  void RequestStop() override { stopped = true; }
  void set_prompt_from(uint64_t) override {}
  std::deque<std::optional<DecodeErrorInfo>>& gap_errors() override {
    return gap_errors_;
  }
  std::vector<DecodeErrorInfo>& other_errors() override {
    return other_errors_;
  }
  uint64_t other_bytes_lost() const override { return 0; }
  bool stopped = false;

 private:
  std::deque<std::optional<DecodeErrorInfo>> gap_errors_;
  std::vector<DecodeErrorInfo> other_errors_;
};

class Collect : public EventSink {
 public:
  void OnEvents(uint32_t, absl::Span<const Event> events) override {
    delivered.insert(delivered.end(), events.begin(), events.end());
  }
  std::vector<Event> delivered;
};

// A run's events: blocks at offsets 0, 10, 20, ... with ips from `seed`.
std::vector<Event> RunEvents(size_t count, uint64_t seed) {
  std::vector<Event> events(count);
  for (size_t i = 0; i < count; ++i) {
    events[i].kind = EventKind::kBlock;
    events[i].offset = 10 * i;
    events[i].ip = 0x1000 + ((i * 7 + seed) % 97) * 0x10;
    events[i].ninsn = 1 + static_cast<uint32_t>(i % 5);
  }
  return events;
}

struct Outcome {
  std::vector<Event> delivered;
  std::optional<size_t> stitched_to;
  StreamStats stats;
  bool stopped = false;
};

// Feeds `events` in batches of `batch` to a SegmentOutput with boundaries
// `boundaries`; the head of boundary b is the run's own events from
// head_at[b] on (a seam there), or too short to use when head_at[b] is
// past the end.
Outcome Feed(const std::vector<Event>& events, size_t batch,
             const std::vector<uint64_t>& boundaries,
             const std::vector<size_t>& head_at, SeamBuffers* buffers) {
  Outcome outcome;
  FakeRun run;
  Collect sink;
  std::vector<SegmentHead> heads(boundaries.size());
  for (size_t b = 0; b < boundaries.size(); ++b) {
    for (size_t i = head_at[b];
         i < events.size() && i < head_at[b] + kSeamWindow; ++i) {
      heads[b].events.push_back(events[i]);
    }
  }
  {
    SegmentOutput output(&sink, &run, &outcome.stats, buffers);
    output.SetBoundaries(boundaries, [&heads](size_t b) -> const SegmentHead& {
      return heads[b];
    });
    for (size_t i = 0; i < events.size() && !run.stopped; i += batch) {
      const size_t n = std::min(batch, events.size() - i);
      output.OnEvents(0, absl::MakeConstSpan(events).subspan(i, n));
    }
    output.Finish();
    outcome.stitched_to = output.stitched_to();
  }
  outcome.delivered = sink.delivered;
  outcome.stopped = run.stopped;
  return outcome;
}

TEST(SegmentOutputTest, LentBuffersDeliverWhatOwnStorageDelivers) {
  struct Case {
    size_t events;
    size_t batch;
    std::vector<uint64_t> boundaries;
    std::vector<size_t> head_at;
  };
  const std::vector<Case> cases = {
      // A seam at the first boundary, batches crossing it.
      {5000, 4096, {20000}, {2100}},
      // Small, one event at a time.
      {60, 1, {200}, {25}},
      // The first head unusable (past the end): the seam is at the second.
      {9000, 700, {10000, 50000}, {100000, 5200}},
      // No seam at all: everything goes through.
      {3000, 333, {5000}, {100000}},
      // Large again after the small ones, seam later in the tail.
      {20000, 4096, {40000}, {4500}},
      {10, 3, {}, {}},
  };
  SeamBuffers buffers;
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    const Case& test = cases[c];
    const std::vector<Event> events = RunEvents(test.events, c);
    const Outcome own =
        Feed(events, test.batch, test.boundaries, test.head_at, nullptr);
    const Outcome lent =
        Feed(events, test.batch, test.boundaries, test.head_at, &buffers);
    EXPECT_EQ(own.stitched_to, lent.stitched_to);
    EXPECT_EQ(own.stopped, lent.stopped);
    EXPECT_EQ(own.stats.blocks, lent.stats.blocks);
    EXPECT_EQ(own.stats.instructions, lent.stats.instructions);
    ASSERT_EQ(own.delivered.size(), lent.delivered.size());
    for (size_t i = 0; i < own.delivered.size(); ++i) {
      ASSERT_TRUE(SameEvent(own.delivered[i], lent.delivered[i])) << i;
      ASSERT_EQ(own.delivered[i].value, lent.delivered[i].value) << i;
    }
    // The buffers come back empty for the next run.
    EXPECT_TRUE(buffers.tail.empty());
    EXPECT_TRUE(buffers.pending.empty());
    EXPECT_TRUE(buffers.finder.empty());
  }
}

// The seam cases above find the seam where the head starts: the run's
// events before it are delivered, none after.
TEST(SegmentOutputTest, SeamCutsTheRunWhereTheHeadStarts) {
  SeamBuffers buffers;
  const std::vector<Event> events = RunEvents(5000, 0);
  const Outcome lent = Feed(events, 4096, {20000}, {2100}, &buffers);
  ASSERT_TRUE(lent.stitched_to.has_value());
  EXPECT_EQ(*lent.stitched_to, 0u);
  EXPECT_EQ(lent.delivered.size(), 2100u);
  // Reused for a run whose seam comes later: the storage the first left
  // behind changes nothing.
  const Outcome again = Feed(events, 4096, {20000}, {2600}, &buffers);
  ASSERT_TRUE(again.stitched_to.has_value());
  EXPECT_EQ(again.delivered.size(), 2600u);
}

}  // namespace
}  // namespace hwt::pt
