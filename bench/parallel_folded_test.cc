// Parallel decoding and profiling give byte for byte what --jobs 1 gives:
// the decoder's events and statistics, the complete profile text and the
// folded stacks (hwt-report --folded's pipeline, bench_pipeline.h), on the
// committed capture testdata/decode/counted.hwt (one PSB, so one segment per
// stream; its folded stacks are checked against its recorded ground truth)
// and on a synthetic multi-segment trace with thousands of PSBs (the seams).
#include <string>
#include <vector>

#include "analysis/capture_profile.h"
#include "analysis/profile_text.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "bench/bench_pipeline.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/pt/pt_seam.h"
#include "gtest/gtest.h"
#include "pipeline/symbolizer_resolver.h"
#include "pipeline/timeline_symbolizer.h"
#include "recorder/synthetic_capture.h"

namespace hwt::bench {
namespace {

// Every event of every stream, in order.
class Recorder : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    if (events_.size() <= stream) events_.resize(stream + 1);
    events_[stream].insert(events_[stream].end(), events.begin(), events.end());
  }
  void OnStreamEnd(uint32_t stream) override { ++ends_; }
  std::vector<std::vector<Event>> events_;
  int ends_ = 0;
};

void ExpectSameEvents(const Recorder& actual, const Recorder& expected,
                      int jobs) {
  ASSERT_EQ(actual.events_.size(), expected.events_.size());
  EXPECT_EQ(actual.ends_, expected.ends_);
  for (size_t s = 0; s < expected.events_.size(); ++s) {
    ASSERT_EQ(actual.events_[s].size(), expected.events_[s].size())
        << "jobs " << jobs << " stream " << s;
    for (size_t i = 0; i < expected.events_[s].size(); ++i) {
      ASSERT_TRUE(pt::SameEvent(actual.events_[s][i], expected.events_[s][i]))
          << "jobs " << jobs << " stream " << s << " event " << i;
    }
  }
}

// jobs 1 against 2 and 3: events, statistics, profile text, folded stacks.
// Returns the folded stacks of jobs 1.
std::string ExpectParallelSame(const capture::Capture& capture,
                               const capture::AddressSpaceTimeline& timeline,
                               analysis::FunctionResolver& resolver,
                               const report::FrameNamer& namer,
                               size_t segment_bytes) {
  Recorder sequential_events;
  {
    auto decoder = CreateDecoder(capture, timeline, DecoderOptions());
    EXPECT_TRUE(decoder.ok()) << decoder.status();
    if (!decoder.ok()) return "";
    EXPECT_TRUE((*decoder)->Decode(sequential_events).ok());
  }
  analysis::CaptureProfileOptions options;
  auto sequential =
      ProfileFolded(capture, timeline, resolver, namer, options, true);
  EXPECT_TRUE(sequential.ok()) << sequential.status();
  if (!sequential.ok()) return "";
  EXPECT_GT(sequential->instructions, 0u);
  for (int jobs : {2, 3}) {
    DecoderOptions decoder_options;
    decoder_options.jobs = jobs;
    decoder_options.segment_bytes = segment_bytes;
    auto decoder = CreateDecoder(capture, timeline, decoder_options);
    EXPECT_TRUE(decoder.ok()) << decoder.status();
    if (!decoder.ok()) continue;
    Recorder events;
    EXPECT_TRUE((*decoder)->Decode(events).ok());
    ExpectSameEvents(events, sequential_events, jobs);

    options.jobs = jobs;
    options.segment_bytes = segment_bytes;
    auto parallel =
        ProfileFolded(capture, timeline, resolver, namer, options, true);
    EXPECT_TRUE(parallel.ok()) << parallel.status();
    if (!parallel.ok()) continue;
    EXPECT_EQ(parallel->instructions, sequential->instructions);
    EXPECT_EQ(parallel->profile_text, sequential->profile_text)
        << "jobs " << jobs;
    EXPECT_EQ(parallel->folded, sequential->folded) << "jobs " << jobs;
  }
  return sequential->folded;
}

// counted.hwt has a single PSB: with jobs > 1 it is decoded as one segment
// per stream, so this checks the ground truth and the jobs > 1 plumbing
// (buffered segments, segment profiles and their merge), not seams; those
// are SyntheticMultiSegmentTrace's.
TEST(ParallelFoldedTest, CountedCaptureMatchesTruthInOneSegment) {
  const std::string dir = testing::SourceDir() + "/testdata/decode/counted.hwt";
  auto capture = capture::OpenCapture(dir, capture::InputOptions());
  ASSERT_TRUE(capture.ok()) << capture.status();
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  std::vector<std::string> warnings;
  auto symbols =
      pipeline::CreateSymbolizerForTimeline(*timeline, {}, &warnings);
  ASSERT_TRUE(symbols.ok()) << symbols.status();
  const report::FrameNamer namer = MakeNamer(symbols->get(), *timeline);
  pipeline::SymbolizerResolver resolver(**symbols);
  const std::string folded =
      ExpectParallelSame(**capture, *timeline, resolver, namer, 0);
  auto truth = ReadFileToString(dir + "/truth/folded.txt");
  ASSERT_TRUE(truth.ok()) << truth.status();
  EXPECT_EQ(folded, *truth);
}

// CoreSight decodes each stream as one segment (TraceDecoder's default
// DecodeSegments): profiling with jobs > 1 goes through the segment builders
// and the merger and must still give exactly the jobs 1 profile.
TEST(ParallelFoldedTest, CoreSightSnapshotsMatchSequential) {
  HWT_REQUIRE_CORPUS(corpus);
  for (const char* name : {"trace_cov_a15", "juno_r1_1"}) {
    SCOPED_TRACE(name);
    const std::string dir = corpus + "/opencsd/snapshots/" + name;
    auto capture = capture::OpenCapture(dir, capture::InputOptions());
    ASSERT_TRUE(capture.ok()) << capture.status();
    auto timeline = capture::BuildAddressSpaceTimeline(**capture);
    ASSERT_TRUE(timeline.ok()) << timeline.status();
    std::vector<std::string> warnings;
    auto symbols =
        pipeline::CreateSymbolizerForTimeline(*timeline, {}, &warnings);
    ASSERT_TRUE(symbols.ok()) << symbols.status();
    pipeline::SymbolizerResolver resolver(**symbols);
    const std::string folded =
        ExpectParallelSame(**capture, *timeline, resolver,
                           MakeNamer(symbols->get(), *timeline), 0);
    EXPECT_FALSE(folded.empty());
  }
}

TEST(ParallelFoldedTest, SyntheticMultiSegmentTrace) {
  auto dir = TempDir::Create("hwt-parallel-folded");
  ASSERT_TRUE(dir.ok());
  recorder::SyntheticCaptureOptions options;
  options.instructions = 1'000'000;
  options.encoder.psb_period = 512;
  auto synthetic = recorder::WriteSyntheticCapture(dir->path(), options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  ASSERT_GT(synthetic->encoder.psbs, 100u);
  RangeResolver resolver = SyntheticResolver(*synthetic->program);
  const report::FrameNamer namer = MakeNamer(nullptr, synthetic->timeline);
  const std::string folded = ExpectParallelSame(
      *synthetic->capture, synthetic->timeline, resolver, namer, 4096);
  // Real call stacks: many distinct stacks, some deep.
  EXPECT_GT(std::count(folded.begin(), folded.end(), '\n'), 20);
}

// hwt-report counts hot paths only for --hot. Without them the profile is
// the same but for its empty paths, sequentially and across segment seams.
TEST(ParallelFoldedTest, WithoutHotPathsOnlyThePathsAreMissing) {
  auto dir = TempDir::Create("hwt-parallel-folded");
  ASSERT_TRUE(dir.ok());
  recorder::SyntheticCaptureOptions options;
  options.instructions = 300'000;
  options.encoder.psb_period = 512;
  auto synthetic = recorder::WriteSyntheticCapture(dir->path(), options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  RangeResolver resolver = SyntheticResolver(*synthetic->program);
  for (int jobs : {1, 2}) {
    SCOPED_TRACE(jobs);
    analysis::CaptureProfileOptions with_paths;
    with_paths.jobs = jobs;
    with_paths.segment_bytes = 4096;
    analysis::CaptureProfileOptions without_paths = with_paths;
    without_paths.hot_paths = false;
    auto full = analysis::ProfileCapture(
        *synthetic->capture, synthetic->timeline, resolver, with_paths);
    ASSERT_TRUE(full.ok()) << full.status();
    auto lean = analysis::ProfileCapture(
        *synthetic->capture, synthetic->timeline, resolver, without_paths);
    ASSERT_TRUE(lean.ok()) << lean.status();
    EXPECT_FALSE(full->profile.paths.empty());
    EXPECT_TRUE(lean->profile.paths.empty());
    full->profile.paths.clear();
    EXPECT_EQ(analysis::ProfileToText(lean->profile),
              analysis::ProfileToText(full->profile));
  }
}

// hwt-report's filters (CaptureProfileOptions::keep, here a window of trace
// offsets) apply to each segment's events: the same profile as jobs 1.
TEST(ParallelFoldedTest, KeepFilterGivesTheSameProfile) {
  auto dir = TempDir::Create("hwt-parallel-folded");
  ASSERT_TRUE(dir.ok());
  recorder::SyntheticCaptureOptions options;
  options.instructions = 500'000;
  options.encoder.psb_period = 512;
  auto synthetic = recorder::WriteSyntheticCapture(dir->path(), options);
  ASSERT_TRUE(synthetic.ok()) << synthetic.status();
  RangeResolver resolver = SyntheticResolver(*synthetic->program);
  const report::FrameNamer namer = MakeNamer(nullptr, synthetic->timeline);
  const uint64_t size = synthetic->capture->manifest().buffers[0].size;
  analysis::CaptureProfileOptions profile_options;
  profile_options.keep = [size](uint32_t, const Event& e) {
    return e.offset >= size / 4 && e.offset < 3 * size / 4;
  };
  auto sequential = ProfileFolded(*synthetic->capture, synthetic->timeline,
                                  resolver, namer, profile_options, true);
  ASSERT_TRUE(sequential.ok()) << sequential.status();
  profile_options.jobs = 2;
  profile_options.segment_bytes = 4096;
  auto parallel = ProfileFolded(*synthetic->capture, synthetic->timeline,
                                resolver, namer, profile_options, true);
  ASSERT_TRUE(parallel.ok()) << parallel.status();
  EXPECT_FALSE(sequential->folded.empty());
  EXPECT_EQ(parallel->profile_text, sequential->profile_text);
  EXPECT_EQ(parallel->folded, sequential->folded);
}

}  // namespace
}  // namespace hwt::bench
