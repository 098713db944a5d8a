// EventOutput::Reset: a decoder keeps one EventOutput from run to run (a
// parallel decode's segments) and must get exactly what a new EventOutput per
// run delivers, batch by batch, whatever the run before left behind. And
// EventOutput::AddRun: the events of AddBlock() and Add() one by one.
#include "decoders/pt/pt_event_output.h"

#include <algorithm>
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

// A walk's records as the fast path makes them: blocks whose branch kinds
// are known (conditional ones decided), blocks without a branch that the
// next one may continue (a partial block at a PSB, a block cut at an
// event), and other events.
std::vector<Event> WalkRecords(uint32_t seed, size_t count) {
  std::mt19937 random(seed);
  std::vector<Event> records;
  uint64_t ip = 0x1000;
  for (size_t i = 0; i < count; ++i) {
    Event& event = records.emplace_back();
    event.offset = i;
    event.time = i * 5;
    event.kind = EventKind::kBlock;
    event.ip = ip;
    event.ninsn = 1 + random() % 6;
    event.last_ip = ip + 4 * event.ninsn;
    event.next_ip = event.last_ip + 2;
    event.region = 1 + random() % 2;
    event.code = random() % 2 ? kBlockDecoderId : 0;
    event.value = event.code != 0 ? i : 0;
    switch (random() % 7) {
      case 0:
      case 1:
        event.branch =
            random() % 2 ? BranchKind::kCondTaken : BranchKind::kCondNotTaken;
        ip =
            event.branch == BranchKind::kCondTaken ? ip + 0x100 : event.next_ip;
        break;
      case 2:
      case 3:  // often continued, sometimes not (another region, elsewhere)
        event.branch = BranchKind::kNone;
        ip = random() % 4 ? event.next_ip : ip + 0x40;
        break;
      case 4:
        event.branch = BranchKind::kReturn;
        ip = 0x1000 + (random() % 64) * 0x10;
        break;
      case 5:
        event.branch = BranchKind::kNone;
        event.next_ip = 0;  // nothing to continue
        break;
      default:
        event = Event();
        event.offset = i;
        event.kind = random() % 2 ? EventKind::kDisabled : EventKind::kExecMode;
        event.ip = ip;
        break;
    }
  }
  return records;
}

// Every event delivered, in order; and how many came straight from `from`
// (not copied into the output's batch) and the largest batch.
class CollectingSink : public EventSink {
 public:
  explicit CollectingSink(const std::vector<Event>* from = nullptr)
      : from_(from) {}
  void OnEvents(uint32_t, absl::Span<const Event> events) override {
    events_.insert(events_.end(), events.begin(), events.end());
    largest_batch = std::max(largest_batch, events.size());
    if (from_ != nullptr && !events.empty() && events.data() >= from_->data() &&
        events.data() < from_->data() + from_->size()) {
      passed_through += events.size();
    }
  }
  std::vector<Event> events_;
  size_t largest_batch = 0;
  size_t passed_through = 0;

 private:
  const std::vector<Event>* from_;
};

TEST(EventOutputTest, AddRunDeliversWhatAddBlockAndAddDeliverOneByOne) {
  for (const size_t batch_size : {size_t{4096}, size_t{1}, size_t{5}}) {
    for (const uint32_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(testing::Message()
                   << "batch " << batch_size << " seed " << seed);
      const std::vector<Event> records = WalkRecords(seed, 12000);
      CollectingSink one_by_one_sink;
      EventOutput one_by_one(&one_by_one_sink, 0, batch_size);
      for (const Event& event : records) {
        if (event.kind == EventKind::kBlock) {
          one_by_one.AddBlock(event);
        } else {
          one_by_one.Add(event);
        }
      }
      one_by_one.Drain();

      // Runs of random lengths: a held block crosses from one to the next.
      CollectingSink runs_sink(&records);
      EventOutput runs(&runs_sink, 0, batch_size);
      std::mt19937 random(seed);
      for (size_t at = 0; at < records.size();) {
        const size_t length =
            std::min<size_t>(records.size() - at, 1 + random() % 3000);
        runs.AddRun(absl::MakeConstSpan(records).subspan(at, length));
        at += length;
      }
      runs.Drain();

      ASSERT_EQ(one_by_one_sink.events_.size(), runs_sink.events_.size());
      for (size_t i = 0; i < runs_sink.events_.size(); ++i) {
        ASSERT_TRUE(Same(one_by_one_sink.events_[i], runs_sink.events_[i]))
            << "event " << i;
      }
      EXPECT_LE(runs_sink.largest_batch, batch_size);
      // Not vacuous: blocks were joined, and (with batches larger than one)
      // many events went to the sink without a copy.
      EXPECT_LT(runs_sink.events_.size(), records.size());
      if (batch_size > 1) {
        EXPECT_GT(runs_sink.passed_through, records.size() / 3);
      } else {
        EXPECT_EQ(runs_sink.passed_through, 0u);
      }
    }
  }
}

}  // namespace
}  // namespace hwt::pt
