// bugfix-exact-match (6 ETMv4 sources, one of which traced; 1 MiB ETR
// buffer, 1.74 million ranges): its 265 MB reference listing is not in the
// corpus, so Debian's trc_pkt_lister generates it now and every INSTR_RANGE
// line is compared, streamed, with ours (labelled "slow": about 10 s of CPU,
// mostly the lister's text output).
#include <cstdio>
#include <iostream>

#include "absl/strings/str_format.h"
#include "base/testing/test_env.h"
#include "capture/opencsd_snapshot.h"
#include "decoders/coresight/instr_range.h"
#include "decoders/coresight/testing/snapshot_decode.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

// Keeps blocks only (the events a range listing needs).
class BlockSink : public EventSink {
 public:
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    auto& v = blocks[stream];
    for (const Event& e : events) {
      if (e.kind == EventKind::kBlock) v.push_back(e);
    }
  }
  std::map<uint32_t, std::vector<Event>> blocks;
};

void CompareWithLister(int jobs) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/opencsd/snapshots/bugfix-exact-match";
  auto capture = capture::OpenOpenCsdSnapshot(dir, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  DecoderOptions options;
  options.jobs = jobs;
  auto decoder = CreateCoreSightDecoder(**capture, *timeline, options);
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  BlockSink sink;
  ASSERT_TRUE((*decoder)->Decode(sink).ok());

  std::map<uint32_t, uint32_t> stream_of;
  for (const StreamInfo& s : (*decoder)->streams()) {
    stream_of[s.trace_id] = s.id;
  }
  // Six ETMs are configured; only trace ID 0x12 wrote anything.
  ASSERT_EQ(stream_of.size(), 1u);
  ASSERT_EQ(stream_of.count(0x12), 1u);
  std::map<uint32_t, size_t> next;  // per trace ID: our next block
  std::map<uint32_t, uint64_t> lister_insns;
  size_t compared = 0, mismatches = 0;
  int status = testing::ForEachListingLine(
      absl::StrFormat("trc_pkt_lister -ss_dir %s -decode_only -logstdout "
                      "-logfilename /dev/null "
                      "2>/dev/null",
                      dir),
      [&](const testing::ListingLine& l) {
        testing::Range range;
        if (!testing::ParseRange(l.text, &range)) return;
        lister_insns[l.trace_id] += range.ninsn;
        ++compared;
        auto it = stream_of.find(l.trace_id);
        const std::vector<Event>* ours =
            it == stream_of.end() ? nullptr : &sink.blocks[it->second];
        size_t& i = next[l.trace_id];
        std::string want =
            absl::StrFormat("Idx:%u; ID:%x; %s", l.index, l.trace_id, l.text);
        std::string got = ours != nullptr && i < ours->size()
                              ? FormatInstrRangeLine(l.trace_id, (*ours)[i])
                              : "(no range)";
        ++i;
        if (got != want && ++mismatches <= 5) {
          ADD_FAILURE() << "range " << compared << ":\n  ours:   " << got
                        << "\n  lister: " << want;
        }
      });
  ASSERT_EQ(status, 0);
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(compared, 1740344u);
  for (const auto& [id, stream] : stream_of) {
    EXPECT_EQ(next[id], sink.blocks[stream].size())
        << "extra ranges on trace ID 0x" << std::hex << id;
    const StreamStats& st = (*decoder)->stats()[stream];
    EXPECT_EQ(st.instructions, lister_insns[id]);
    EXPECT_EQ(st.trace_bytes, st.bytes_decoded + st.bytes_lost);
  }
  std::cout << "[ MATCH ] bugfix-exact-match, jobs " << jobs << ": " << compared
            << " ranges compared with trc_pkt_lister 1.3.3, " << mismatches
            << " differ\n";
}

TEST(BugfixExactMatchTest, EveryRangeMatchesTrcPktLister) {
  CompareWithLister(1);
}

}  // namespace
}  // namespace hwt::coresight
