// The fast path counts exactly what libipt's block decoder counts: the same
// instructions, errors and lost bytes as the sequential decoder (Decode with
// jobs 1), on synthetic traces with thousands of PSBs, deep recursion, long
// TNT, timing, overflows, corrupt bytes and lost data between chunks, and on
// the demo capture recorded from a real program. Each test also checks that
// the walker, not libipt, counted most of the trace, so that a fast path
// that always gave up could not pass.
#include "decoders/pt/pt_fast_count.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/progress_sink.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/testing/pt_streams.h"
#include "gtest/gtest.h"
#include "recorder/synthetic_capture.h"
#include "tests/pt/testing/synthetic_configs.h"

namespace hwt::pt {
namespace {

using recorder::SyntheticCaptureOptions;
using testing::ExpectSameStats;
using testing::SyntheticConfig;
using testing::SyntheticConfigs;

// Counts with the fast path and decodes with libipt; the statistics must be
// the same. Returns the fast path's own figures.
PtFastCountStats ExpectFastCountEqualsDecode(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline) {
  auto sequential = PtDecoder::Create(capture, timeline);
  EXPECT_TRUE(sequential.ok()) << sequential.status();
  if (!sequential.ok()) return {};
  NullEventSink discard;
  EXPECT_TRUE((*sequential)->Decode(discard).ok());

  auto fast = PtDecoder::Create(capture, timeline);
  EXPECT_TRUE(fast.ok()) << fast.status();
  if (!fast.ok()) return {};
  PtFastCountStats counts;
  EXPECT_TRUE((*fast)->CountInstructions(&counts).ok());

  const auto& expected = (*sequential)->stats();
  const auto& actual = (*fast)->stats();
  EXPECT_EQ(actual.size(), expected.size());
  for (size_t s = 0; s < actual.size() && s < expected.size(); ++s) {
    SCOPED_TRACE(absl::StrFormat("stream %u", s));
    EXPECT_GT(expected[s].instructions, 0u);
    ExpectSameStats(actual[s], expected[s], /*blocks=*/false);
    EXPECT_EQ(actual[s].blocks, 0u);
  }
  EXPECT_EQ(counts.fast_segments + counts.libipt_segments, counts.segments);
  return counts;
}

// The fields a block's decoder id stands for (kBlockDecoderId).
struct IdentifiedBlock {
  uint64_t ip = 0, last_ip = 0, next_ip = 0;
  uint32_t ninsn = 0, region = 0;
  Isa isa = Isa::kUnknown;
  friend bool operator==(const IdentifiedBlock&,
                         const IdentifiedBlock&) = default;
};

// Checks what kBlockDecoderId promises for `event` against the first block
// seen with its id, and removes the id (libipt numbers no blocks). Returns
// whether the event had one.
bool CheckAndDropDecoderId(Event& event,
                           std::map<uint64_t, IdentifiedBlock>& by_id) {
  if (event.kind != EventKind::kBlock || !(event.code & kBlockDecoderId)) {
    return false;
  }
  EXPECT_NE(event.value, 0u);
  const IdentifiedBlock fields{event.ip,    event.last_ip, event.next_ip,
                               event.ninsn, event.region,  event.isa};
  const auto [it, inserted] = by_id.try_emplace(event.value, fields);
  EXPECT_TRUE(it->second == fields)
      << "block id " << event.value
      << " stands for two blocks: " << DescribeEvent(event) << " and 0x"
      << std::hex << it->second.ip << "-0x" << it->second.last_ip;
  event.code &= ~kBlockDecoderId;
  event.value = 0;
  return true;
}

// Decodes with the fast engine and with libipt; the events must be the same
// in every field but the trace offset (see pt_fast_count.h) and the fast
// engine's block ids (which must keep their promise), and so must the
// statistics (blocks included). Returns the fast path's figures.
PtFastCountStats ExpectFastEventsEqualDecode(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline) {
  PtDecoderOptions libipt_options;
  auto libipt = PtDecoder::Create(capture, timeline, libipt_options);
  EXPECT_TRUE(libipt.ok()) << libipt.status();
  PtDecoderOptions fast_options;
  fast_options.fast = true;
  auto fast = PtDecoder::Create(capture, timeline, fast_options);
  EXPECT_TRUE(fast.ok()) << fast.status();
  if (!libipt.ok() || !fast.ok()) return {};
  testing::CollectingSink expected_events, actual_events;
  EXPECT_TRUE((*libipt)->Decode(expected_events).ok());
  EXPECT_TRUE((*fast)->Decode(actual_events).ok());
  size_t blocks_with_id = 0;
  for (size_t s = 0; s < (*libipt)->streams().size(); ++s) {
    SCOPED_TRACE(absl::StrFormat("stream %u", s));
    const std::vector<Event> expected = expected_events.Events(s);
    std::vector<Event> actual = actual_events.Events(s);
    EXPECT_EQ(actual_events.ends(s), 1);
    std::map<uint64_t, IdentifiedBlock> by_id;
    for (Event& event : actual) {
      blocks_with_id += CheckAndDropDecoderId(event, by_id);
    }
    size_t i = 0;
    for (; i < expected.size() && i < actual.size(); ++i) {
      Event a = actual[i];
      a.offset = expected[i].offset;
      if (std::memcmp(&a, &expected[i], sizeof(Event)) != 0) {
        ADD_FAILURE() << "event " << i << " of " << expected.size()
                      << ": expected " << DescribeEvent(expected[i]) << " code "
                      << expected[i].code << " time " << expected[i].time
                      << " region " << expected[i].region << ", got "
                      << DescribeEvent(actual[i]) << " code " << actual[i].code
                      << " time " << actual[i].time << " region "
                      << actual[i].region << " (offset " << expected[i].offset
                      << " / " << actual[i].offset << ")"
                      << (i > 0 ? ", after " + DescribeEvent(expected[i - 1])
                                : std::string());
        break;
      }
    }
    if (i == expected.size() || i == actual.size()) {
      EXPECT_EQ(actual.size(), expected.size());
    }
    ExpectSameStats((*fast)->stats()[s], (*libipt)->stats()[s],
                    /*blocks=*/true);
  }
  const PtFastCountStats& counts = (*fast)->fast_stats();
  EXPECT_EQ(counts.fast_segments + counts.libipt_segments, counts.segments);
  // The walker's blocks carry ids (so a broken id could not pass unseen).
  if (counts.fast_segments > 0) {
    EXPECT_GT(blocks_with_id, 0u);
  }
  return counts;
}

class FastCountTest : public ::testing::TestWithParam<SyntheticConfig> {};

TEST_P(FastCountTest, SameCountsAsLibipt) {
  auto dir = TempDir::Create("hwt-pt-fast");
  ASSERT_TRUE(dir.ok());
  auto synthetic =
      recorder::WriteSyntheticCapture(dir->path(), GetParam().options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  ASSERT_GT(synthetic->encoder.psbs, 80u);
  const PtFastCountStats counts =
      ExpectFastCountEqualsDecode(*synthetic->capture, synthetic->timeline);
  // The walker takes everything but the segments with overflows (and the
  // ones libipt runs through before handing back).
  EXPECT_GE(counts.fast_segments, counts.segments * 9 / 10)
      << counts.libipt_segments << " of " << counts.segments
      << " segments went to libipt";
  if (GetParam().options.encoder.overflows.empty()) {
    EXPECT_EQ(counts.libipt_segments, 0u);
  } else {
    EXPECT_GT(counts.libipt_segments, 0u);
  }
  const PtFastCountStats events =
      ExpectFastEventsEqualDecode(*synthetic->capture, synthetic->timeline);
  RecordProperty("fast_event_segments", std::to_string(events.fast_segments));
  if (GetParam().options.encoder.overflows.empty()) {
    // Only the chunk's start is libipt's: the walker takes timing (a libipt
    // run restarted at a PSB needs no replay where its clock equals the
    // sequential one) and goes on through PSBs with tracing off.
    EXPECT_EQ(events.libipt_segments, 1u)
        << events.libipt_segments << " of " << events.segments
        << " segments went to libipt";
  }
  std::printf("events: %llu of %llu segments on the fast path\n",
              static_cast<unsigned long long>(events.fast_segments),
              static_cast<unsigned long long>(events.segments));
}

INSTANTIATE_TEST_SUITE_P(Synthetic, FastCountTest,
                         ::testing::ValuesIn(SyntheticConfigs()),
                         [](const auto& info) { return info.param.name; });

// Corrupt bytes: libipt reports the errors and resyncs, and hands back to
// the walker after them.
TEST(FastCountTest, CorruptTraceGivesTheSameErrors) {
  auto dir = TempDir::Create("hwt-pt-fast");
  ASSERT_TRUE(dir.ok());
  auto synthetic = testing::WriteCorruptSyntheticCapture(dir->path());
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  const PtFastCountStats counts =
      ExpectFastCountEqualsDecode(*synthetic->capture, synthetic->timeline);
  EXPECT_GT(counts.libipt_segments, 5u);
  EXPECT_GE(counts.fast_segments, counts.segments * 3 / 4);
  ExpectFastEventsEqualDecode(*synthetic->capture, synthetic->timeline);
}

// Several buffers in chunks, with data lost before one of them.
TEST(FastCountTest, BuffersAndChunks) {
  auto dir = TempDir::Create("hwt-pt-fast");
  ASSERT_TRUE(dir.ok());
  auto test = testing::MakeChunkedBuffersCapture(dir->path());
  ASSERT_TRUE(test.ok()) << test.status();
  const PtFastCountStats counts =
      ExpectFastCountEqualsDecode(*test->capture, test->timeline);
  EXPECT_GE(counts.fast_segments, counts.segments * 9 / 10);
  ExpectFastEventsEqualDecode(*test->capture, test->timeline);
}

// DecodeSegments on the fast path with one job decodes each buffer in one
// piece: each stream's events (in the committed segment) and statistics are
// those of a sequential fast Decode(). (With more jobs buffers are split at
// PSBs: pt_parallel_test.cc.)
TEST(FastCountTest, OneJobDecodesEachBufferInOnePiece) {
  auto dir = TempDir::Create("hwt-pt-fast");
  ASSERT_TRUE(dir.ok());
  auto test = testing::MakeChunkedBuffersCapture(dir->path());
  ASSERT_TRUE(test.ok()) << test.status();
  PtDecoderOptions sequential_options;
  sequential_options.fast = true;
  auto sequential =
      PtDecoder::Create(*test->capture, test->timeline, sequential_options);
  ASSERT_TRUE(sequential.ok()) << sequential.status();
  testing::CollectingSink expected;
  ASSERT_TRUE((*sequential)->Decode(expected).ok());

  class Consumer : public SegmentConsumer {
   public:
    std::unique_ptr<EventSink> StartSegment(uint32_t) override {
      return std::make_unique<testing::CollectingSink>();
    }
    void CommitSegment(uint32_t stream,
                       std::unique_ptr<EventSink> segment) override {
      auto* events = static_cast<testing::CollectingSink*>(segment.get());
      const std::vector<Event> more = events->Events(stream);
      std::vector<Event>& all = streams[stream];
      all.insert(all.end(), more.begin(), more.end());
      ++commits[stream];
    }
    void EndStream(uint32_t stream) override { ++ends[stream]; }
    std::map<uint32_t, std::vector<Event>> streams;
    std::map<uint32_t, int> commits, ends;
  };
  {
    PtDecoderOptions options = sequential_options;
    options.jobs = 1;
    auto decoder = PtDecoder::Create(*test->capture, test->timeline, options);
    ASSERT_TRUE(decoder.ok()) << decoder.status();
    Consumer consumer;
    ASSERT_TRUE((*decoder)->DecodeSegments(consumer).ok());
    ASSERT_EQ((*decoder)->streams().size(), 3u);
    for (uint32_t s = 0; s < 3; ++s) {
      const std::vector<Event> want = expected.Events(s);
      const std::vector<Event>& got = consumer.streams[s];
      ASSERT_EQ(got.size(), want.size()) << "stream " << s;
      EXPECT_EQ(
          std::memcmp(got.data(), want.data(), want.size() * sizeof(Event)), 0)
          << "stream " << s;
      EXPECT_EQ(consumer.commits[s], 1);
      EXPECT_EQ(consumer.ends[s], 1);
      ExpectSameStats((*decoder)->stats()[s], (*sequential)->stats()[s],
                      /*blocks=*/true);
    }
    EXPECT_EQ((*decoder)->fast_stats().fast_segments,
              (*sequential)->fast_stats().fast_segments);
  }
}

// The demo: a real program recorded with valgrind, with syscalls (TIP.PGD and
// TIP.PGE around each), timing packets and its exec at the start.
TEST(FastCountTest, DemoCapture) {
  auto capture =
      capture::OpenCapture(::hwt::testing::SourceDir() + "/testdata/demo.hwt",
                           capture::InputOptions());
  ASSERT_TRUE(capture.ok()) << capture.status();
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  const PtFastCountStats counts =
      ExpectFastCountEqualsDecode(**capture, *timeline);
  EXPECT_GT(counts.fast_segments, 0u);
  ExpectFastEventsEqualDecode(**capture, *timeline);
}

}  // namespace
}  // namespace hwt::pt

namespace hwt::pt {
namespace {

// Asynchronous events, hand-written: an interrupt (FUP + TIP) in the middle
// of straight-line code, and tracing stopped by one (FUP + TIP.PGD) and
// resumed. The walker follows both (no segment goes to libipt) and counts
// what libipt counts: the instructions before each FUP's address.
TEST(FastCountTest, InterruptsAndAsynchronousDisables) {
  testing::CodeBlob code{0x1000, std::vector<uint8_t>(0x40, 0x90)};  // nops
  code.bytes[0x0a] = 0xff;  // 100a jmp *%rax
  code.bytes[0x0b] = 0xe0;
  code.bytes[0x2a] = 0x0f;  // 102a syscall
  code.bytes[0x2b] = 0x05;
  testing::PtWriter w;
  w.SyncAt(0x1000)
      .Fup(0x1004)  // interrupted before 0x1004: 4 instructions
      .Tip(0x1020)  // the handler: 0x1020..
      .Fup(0x1026)  // interrupted again: 6 more, tracing stops
      .TipPgd()
      .ModeExec64()
      .TipPge(0x1008)  // resumes: 0x1008, 0x1009, jmp *%rax (3)
      .Tip(0x1028)     // 0x1028, 0x1029, syscall (3), which leaves
      .TipPgd();
  auto test = testing::MakeTestCapture(w.bytes(), {code});
  ASSERT_TRUE(test.ok()) << test.status();
  const PtFastCountStats counts =
      ExpectFastCountEqualsDecode(*test->capture, test->timeline);
  EXPECT_EQ(counts.fast_segments, 1u);
  EXPECT_EQ(counts.libipt_segments, 0u);
  auto decoder = PtDecoder::Create(*test->capture, test->timeline);
  ASSERT_TRUE(decoder.ok());
  PtFastCountStats unused;
  ASSERT_TRUE((*decoder)->CountInstructions(&unused).ok());
  EXPECT_EQ((*decoder)->stats()[0].instructions, 4u + 6u + 3u + 3u);
  ExpectFastEventsEqualDecode(*test->capture, test->timeline);
}

}  // namespace
}  // namespace hwt::pt
