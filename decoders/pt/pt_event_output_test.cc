// EventOutput::Reset: a decoder keeps one EventOutput from run to run (a
// parallel decode's segments) and must get exactly what a new EventOutput per
// run delivers, batch by batch, whatever the run before left behind.
#include "decoders/pt/pt_event_output.h"

#include <cstdint>
#include <random>
#include <vector>

#include "decoders/pt/pt_events.h"
#include "gtest/gtest.h"

namespace hwt::pt {
namespace {

// Records every batch as delivered.
class BatchSink : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    batches.emplace_back(events.begin(), events.end());
    streams.push_back(stream);
  }
  std::vector<std::vector<Event>> batches;
  std::vector<uint32_t> streams;
};

bool Same(const Event& a, const Event& b) {
  return a.kind == b.kind && a.branch == b.branch && a.isa == b.isa &&
         a.reason == b.reason && a.ninsn == b.ninsn && a.ip == b.ip &&
         a.last_ip == b.last_ip && a.next_ip == b.next_ip &&
         a.offset == b.offset && a.time == b.time && a.value == b.value &&
         a.code == b.code && a.region == b.region;
}

void ExpectSameBatches(const BatchSink& fresh, const BatchSink& reused) {
  ASSERT_EQ(fresh.batches.size(), reused.batches.size());
  EXPECT_EQ(fresh.streams, reused.streams);
  for (size_t b = 0; b < fresh.batches.size(); ++b) {
    ASSERT_EQ(fresh.batches[b].size(), reused.batches[b].size()) << b;
    for (size_t i = 0; i < fresh.batches[b].size(); ++i) {
      EXPECT_TRUE(Same(fresh.batches[b][i], reused.batches[b][i]))
          << "batch " << b << " event " << i;
    }
  }
}

// Feeds `count` events of a flow made up from `seed`: blocks ending in
// conditional branches (taken, not taken), blocks without a branch that the
// next one continues (joined), other events and gaps.
void Feed(EventOutput& out, uint32_t seed, size_t count) {
  std::mt19937 random(seed);
  uint64_t ip = 0x1000;
  for (size_t i = 0; i < count; ++i) {
    Event event;
    event.offset = i;
    event.time = i * 3;
    switch (random() % 6) {
      case 0:
      case 1: {  // conditional block
        event.kind = EventKind::kBlock;
        event.ip = ip;
        event.ninsn = 1 + random() % 8;
        event.last_ip = ip + 4 * event.ninsn;
        event.next_ip = event.last_ip + 2;
        const uint64_t target = ip + 0x100;
        out.AddCondBlock(event, target);
        ip = random() % 2 ? target : event.next_ip;
        break;
      }
      case 2: {  // a block without a branch: the next one may continue it
        event.kind = EventKind::kBlock;
        event.ip = ip;
        event.ninsn = 2;
        event.last_ip = ip + 4;
        event.next_ip = ip + 8;
        event.code = kBlockDecoderId;
        event.value = i;
        out.AddBlock(event);
        ip = random() % 3 ? event.next_ip : ip + 0x40;
        break;
      }
      case 3: {  // a block ending in a jump
        event.kind = EventKind::kBlock;
        event.branch = BranchKind::kJump;
        event.ip = ip;
        event.ninsn = 3;
        event.last_ip = ip + 8;
        event.next_ip = ip + 10;
        out.AddBlock(event);
        ip = 0x1000 + (random() % 64) * 0x10;
        break;
      }
      case 4:
        event.kind = EventKind::kTimestamp;
        out.Add(event);
        break;
      default:
        event.kind = random() % 4 ? EventKind::kCoreBusRatio : EventKind::kGap;
        event.value = 7;
        out.Add(event);
        break;
    }
  }
}

struct RunSpec {
  uint32_t seed;
  size_t events;
  size_t batch_size;
  bool drained;  // the run ends with Drain() (else abandoned mid-way)
};

// Runs of different sizes and batch sizes, each left drained or not.
const RunSpec kRuns[] = {
    {1, 20000, 4096, true}, {2, 3, 1, true},     {3, 9000, 7, false},
    {4, 0, 4096, true},     {5, 700, 16, false}, {6, 40000, 4096, true},
    {7, 5, 4096, false},    {8, 1500, 1, true},
};

TEST(EventOutputTest, ResetDeliversWhatANewOutputDelivers) {
  EventOutput reused(nullptr, 0, 1);
  for (size_t r = 0; r < std::size(kRuns); ++r) {
    const RunSpec& run = kRuns[r];
    SCOPED_TRACE(r);
    const uint32_t stream = static_cast<uint32_t>(r % 3);
    BatchSink fresh_sink;
    {
      EventOutput fresh(&fresh_sink, stream, run.batch_size);
      Feed(fresh, run.seed, run.events);
      if (run.drained) fresh.Drain();
    }
    BatchSink reused_sink;
    reused.Reset(&reused_sink, stream, run.batch_size);
    Feed(reused, run.seed, run.events);
    if (run.drained) reused.Drain();
    ExpectSameBatches(fresh_sink, reused_sink);
    // Not vacuous: a drained run with events delivers some.
    if (run.drained && run.events > 0) {
      EXPECT_FALSE(reused_sink.batches.empty());
    }
  }
}

// The hold limit goes with the batch size of the run: a branch nothing
// decides is given up after 4 batches of the run's size, not of the size
// of the run before.
TEST(EventOutputTest, ResetTakesTheNewBatchSizeForTheHoldLimit) {
  EventOutput reused(nullptr, 0, 4096);
  for (size_t batch_size : {4096, 2, 4096, 3}) {
    SCOPED_TRACE(batch_size);
    auto feed = [](EventOutput& out) {
      Event cond;
      cond.kind = EventKind::kBlock;
      cond.ip = 0x1000;
      cond.last_ip = 0x1004;
      cond.next_ip = 0x1006;
      out.AddCondBlock(cond, 0x2000);
      for (int i = 0; i < 20; ++i) {
        Event timing;
        timing.kind = EventKind::kTimestamp;
        timing.offset = i;
        out.Add(timing);
      }
    };
    BatchSink fresh_sink;
    EventOutput fresh(&fresh_sink, 0, batch_size);
    feed(fresh);
    BatchSink reused_sink;
    reused.Reset(&reused_sink, 0, batch_size);
    feed(reused);
    ExpectSameBatches(fresh_sink, reused_sink);
    EXPECT_EQ(reused_sink.batches.empty(), batch_size == 4096);
    reused.Drain();
  }
}

}  // namespace
}  // namespace hwt::pt
