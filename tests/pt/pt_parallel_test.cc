// Parallel PT decoding gives exactly the sequential result: the same events
// in the same order per stream (every field, offsets included) and the same
// statistics, for any number of jobs and any segment size. The traces are
// synthetic programs (recorder/synthetic_program.h) encoded as PT with
// thousands of PSBs, calls and returns across segment seams, recursion
// deeper than the return-compression stack, timing packets, overflows, lost
// data between chunks and corrupt bytes. Both engines: libipt's, and the
// fast path's (compared with its own sequential decode; its block numbers,
// kBlockDecoderId, are each decoder's own, and its trace offsets, which are
// libipt's where libipt decoded a stretch and the walker's elsewhere
// (pt_fast_count.h), are left out of the comparison).
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/testing/pt_streams.h"
#include "gtest/gtest.h"
#include "recorder/synthetic_capture.h"
#include "tests/pt/testing/synthetic_configs.h"

namespace hwt::pt {
namespace {

using recorder::SyntheticCaptureOptions;
using testing::CollectingSink;
using testing::ExpectSameStats;
using testing::SyntheticConfig;
using testing::SyntheticConfigs;

struct Decoded {
  CollectingSink sink;
  std::vector<StreamStats> stats;
  PtParallelStats segments;
};

void Decode(const capture::Capture& capture,
            const capture::AddressSpaceTimeline& timeline,
            const PtDecoderOptions& options, Decoded* out) {
  auto decoder = PtDecoder::Create(capture, timeline, options);
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  ASSERT_TRUE((*decoder)->Decode(out->sink).ok());
  out->stats = (*decoder)->stats();
  out->segments = (*decoder)->segment_counts();
}

// The event as the comparison sees it: on the fast path without its block
// number and its trace offset.
Event Comparable(Event e, bool fast) {
  if (!fast) return e;
  if (IsDecoderNumbered(e)) {
    e.code &= ~kBlockDecoderId;
    e.value = 0;
  }
  e.offset = 0;
  return e;
}

// "" when equal, else where the streams first differ.
std::string FirstDifference(const std::vector<Event>& actual,
                            const std::vector<Event>& expected, bool fast) {
  const size_t n = std::min(actual.size(), expected.size());
  for (size_t i = 0; i < n; ++i) {
    if (!SameEvent(Comparable(actual[i], fast),
                   Comparable(expected[i], fast))) {
      return absl::StrFormat(
          "event %u: %s (offset 0x%x) instead of %s "
          "(offset 0x%x)",
          i, DescribeEvent(actual[i]), actual[i].offset,
          DescribeEvent(expected[i]), expected[i].offset);
    }
  }
  if (actual.size() != expected.size()) {
    return absl::StrFormat("%u events instead of %u", actual.size(),
                           expected.size());
  }
  return "";
}

// Decodes with jobs 1 and then with 2, 3 and 8 jobs and small segments.
// `seams`: most seams are expected to be found (on the fast path a corrupt
// trace finds few: after an error the run goes on with libipt, whose offsets
// differ from the walker's in the next segment's head).
void ExpectParallelEqualsSequential(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline, size_t segment_bytes,
    bool fast, bool seams = true) {
  PtDecoderOptions options;
  options.fast = fast;
  Decoded sequential;
  Decode(capture, timeline, options, &sequential);
  const size_t streams = capture.manifest().buffers.size();
  for (int jobs : {2, 3, 8}) {
    options.jobs = jobs;
    options.segment_bytes = segment_bytes;
    Decoded parallel;
    Decode(capture, timeline, options, &parallel);
    for (uint32_t s = 0; s < streams; ++s) {
      ASSERT_EQ(FirstDifference(parallel.sink.Events(s),
                                sequential.sink.Events(s), fast),
                "")
          << "jobs " << jobs << ", stream " << s;
      EXPECT_EQ(parallel.sink.ends(s), 1);
      ExpectSameStats(parallel.stats[s], sequential.stats[s]);
    }
    // The work was really shared: most seams were found.
    EXPECT_GT(parallel.segments.segments, 10u) << "jobs " << jobs;
    if (!seams) continue;
    EXPECT_GE(parallel.segments.committed, parallel.segments.segments * 3 / 4)
        << "jobs " << jobs << ": " << parallel.segments.dropped
        << " segments dropped";
  }
}

// (trace, fast engine)
class ParallelTest
    : public ::testing::TestWithParam<std::tuple<SyntheticConfig, bool>> {};

TEST_P(ParallelTest, SameEventsAndStatsAsSequential) {
  const auto& [config, fast] = GetParam();
  auto dir = TempDir::Create("hwt-pt-parallel");
  ASSERT_TRUE(dir.ok());
  auto synthetic = recorder::WriteSyntheticCapture(dir->path(), config.options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  // Many PSBs, several per segment.
  ASSERT_GT(synthetic->encoder.psbs, 80u);
  ExpectParallelEqualsSequential(*synthetic->capture, synthetic->timeline,
                                 config.segment_bytes, fast);
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, ParallelTest,
    ::testing::Combine(::testing::ValuesIn(SyntheticConfigs()),
                       ::testing::Bool()),
    [](const auto& info) {
      return std::string(std::get<0>(info.param).name) +
             (std::get<1>(info.param) ? "_fast" : "_libipt");
    });

// Corrupt bytes inside segments and right at segment starts: errors,
// resyncs and lost bytes are the same.
class ParallelDecodingTest : public ::testing::TestWithParam<bool> {};

TEST_P(ParallelDecodingTest, CorruptTraceGivesTheSameErrors) {
  auto dir = TempDir::Create("hwt-pt-parallel");
  ASSERT_TRUE(dir.ok());
  auto synthetic = testing::WriteCorruptSyntheticCapture(dir->path());
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  Decoded sequential;
  PtDecoderOptions options;
  options.fast = GetParam();
  Decode(*synthetic->capture, synthetic->timeline, options, &sequential);
  EXPECT_GT(sequential.stats[0].errors, 5u);
  ExpectParallelEqualsSequential(*synthetic->capture, synthetic->timeline, 4096,
                                 GetParam(), /*seams=*/!GetParam());
}

// Several buffers, each in chunks with lost data between them.
TEST_P(ParallelDecodingTest, BuffersAndChunks) {
  auto dir = TempDir::Create("hwt-pt-parallel");
  ASSERT_TRUE(dir.ok());
  auto test = testing::MakeChunkedBuffersCapture(dir->path());
  ASSERT_TRUE(test.ok()) << test.status();
  ExpectParallelEqualsSequential(*test->capture, test->timeline, 2000,
                                 GetParam());
}

// DecodeSegments: the committed segments, in order, are the stream.
TEST_P(ParallelDecodingTest, CommittedSegmentsConcatenateToTheStream) {
  auto dir = TempDir::Create("hwt-pt-parallel");
  ASSERT_TRUE(dir.ok());
  SyntheticCaptureOptions options;
  options.instructions = 2'000'000;
  options.encoder.psb_period = 512;
  auto synthetic = recorder::WriteSyntheticCapture(dir->path(), options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  Decoded sequential;
  PtDecoderOptions sequential_options;
  sequential_options.fast = GetParam();
  Decode(*synthetic->capture, synthetic->timeline, sequential_options,
         &sequential);

  class Consumer : public SegmentConsumer {
   public:
    std::unique_ptr<EventSink> StartSegment(uint32_t) override {
      return std::make_unique<CollectingSink>();
    }
    void CommitSegment(uint32_t stream,
                       std::unique_ptr<EventSink> segment) override {
      auto* events = static_cast<CollectingSink*>(segment.get());
      const std::vector<Event> more = events->Events(stream);
      all.insert(all.end(), more.begin(), more.end());
      ++commits;
    }
    void EndStream(uint32_t) override { ++ends; }
    std::vector<Event> all;
    int commits = 0;
    int ends = 0;
  };
  for (int jobs : {1, 2, 3}) {
    PtDecoderOptions parallel = sequential_options;
    parallel.jobs = jobs;
    parallel.segment_bytes = 4096;
    auto decoder =
        PtDecoder::Create(*synthetic->capture, synthetic->timeline, parallel);
    ASSERT_TRUE(decoder.ok());
    Consumer consumer;
    ASSERT_TRUE((*decoder)->DecodeSegments(consumer).ok());
    EXPECT_EQ(
        FirstDifference(consumer.all, sequential.sink.Events(), GetParam()), "")
        << "jobs " << jobs;
    EXPECT_EQ(consumer.ends, 1);
    if (jobs > 1) {
      EXPECT_GT(consumer.commits, 10);
    }
    ExpectSameStats((*decoder)->stats()[0], sequential.stats[0]);
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, ParallelDecodingTest, ::testing::Bool(),
                         [](const auto& info) {
                           return info.param ? "fast" : "libipt";
                         });

TEST(PlanSegmentsTest, StartsAtPsbsAfterEveryTarget) {
  std::vector<uint8_t> trace(10000, 0);  // PAD
  const std::vector<size_t> psbs = {100, 2500, 2600, 7000};
  for (size_t at : psbs) {
    for (size_t i = 0; i < kPsbSize; i += 2) {
      trace[at + i] = 0x02;
      trace[at + i + 1] = 0x82;
    }
  }
  EXPECT_EQ(PlanSegments(trace.data(), trace.size(), 2000),
            (std::vector<uint64_t>{0, 2500, 7000}));
  EXPECT_EQ(PlanSegments(trace.data(), trace.size(), 50),
            (std::vector<uint64_t>{0, 100, 2500, 2600, 7000}));
  EXPECT_EQ(PlanSegments(trace.data(), trace.size(), 0),
            (std::vector<uint64_t>{0}));
  EXPECT_EQ(PlanSegments(trace.data(), trace.size(), 8000),
            (std::vector<uint64_t>{0}));
}

}  // namespace
}  // namespace hwt::pt
