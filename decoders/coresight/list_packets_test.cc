// ListPackets against Debian's trc_pkt_lister: every packet line (offset,
// trace ID, raw bytes, OpenCSD's packet text) identical and in the same
// order, for ETMv3, PTM, ETMv4 and ETE snapshots.
#include <cstdio>
#include <sstream>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/testing/test_env.h"
#include "capture/opencsd_snapshot.h"
#include "decoders/coresight/coresight_decoder.h"
#include "decoders/coresight/testing/snapshot_decode.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

class CollectingPacketSink : public PacketSink {
 public:
  void OnPacket(uint32_t stream, uint64_t offset,
                std::string_view text) override {
    lines.push_back({stream, offset, std::string(text)});
  }
  struct Line {
    uint32_t stream;
    uint64_t offset;
    std::string text;
  };
  std::vector<Line> lines;
};

class ListPacketsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ListPacketsTest, LinesMatchTrcPktLister) {
  HWT_REQUIRE_CORPUS(corpus);
  const std::string dir = corpus + "/opencsd/" + GetParam();
  auto capture = capture::OpenOpenCsdSnapshot(dir, {});
  ASSERT_TRUE(capture.ok()) << capture.status();
  // No images needed to list packets.
  capture::AddressSpaceTimeline no_images;
  no_images.SetBufferCount((*capture)->manifest().buffers.size());
  auto decoder = CreateCoreSightDecoder(**capture, no_images, {});
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  CollectingPacketSink sink;
  ASSERT_TRUE((*decoder)->ListPackets(sink).ok());

  std::vector<std::string> ours;
  std::map<uint32_t, uint64_t> packets_per_stream;
  std::map<uint32_t, uint64_t> bytes_per_stream;
  for (const auto& line : sink.lines) {
    const StreamInfo& s = (*decoder)->streams()[line.stream];
    packets_per_stream[line.stream]++;
    size_t close = line.text.find("];");
    for (size_t p = line.text.find('['); p + 1 < close; ++p) {
      if (line.text[p] == '0' && line.text[p + 1] == 'x') {
        bytes_per_stream[line.stream]++;
      }
    }
    if (s.buffer_index != 0) continue;  // the lister lists buffer 0
    ASSERT_EQ(line.text.rfind(absl::StrFormat("Idx:%u;", line.offset), 0), 0u)
        << line.text;
    ours.push_back(line.text);
  }
  std::vector<std::string> want;
  int status = testing::ForEachListingLine(
      absl::StrFormat(
          "trc_pkt_lister -ss_dir %s -decode -logstdout -logfilename /dev/null "
          "2>/dev/null",
          dir),
      [&](const testing::ListingLine& l) {
        if (l.text.rfind("[", 0) != 0) return;  // elements, not packets
        want.push_back(
            absl::StrFormat("Idx:%u; ID:%x; %s", l.index, l.trace_id, l.text));
      });
  ASSERT_EQ(status, 0);
  ASSERT_FALSE(want.empty());
  for (size_t i = 0; i < std::min(ours.size(), want.size()); ++i) {
    ASSERT_EQ(ours[i], want[i]) << "packet " << i;
  }
  ASSERT_EQ(ours.size(), want.size());

  // trc_pkt_lister -stats: "Decode stats ID 0x10" / "Total Bytes: N; ..."
  // (ETMv4 and ETE keep statistics in 1.3.3), and which printer each ID
  // got ("Protocol printer PTM on Trace ID 0x11").
  std::map<uint32_t, uint64_t> lister_total_bytes;
  std::map<uint32_t, std::string> protocol_by_id;
  {
    auto stats = hwt::testing::RunCommand({"trc_pkt_lister", "-ss_dir", dir,
                                           "-logstdout", "-logfilename",
                                           "/dev/null", "-stats"});
    ASSERT_EQ(stats.exit_code, 0);
    std::istringstream in(stats.out);
    std::string line;
    uint32_t id = 0;
    bool in_stats = false;
    while (std::getline(in, line)) {
      unsigned value = 0;
      char proto[32];
      if (sscanf(line.c_str(), "Decode stats ID 0x%x", &value) == 1) {
        id = value;
        in_stats = true;
      } else if (in_stats && line.rfind("Total Bytes: ", 0) == 0) {
        lister_total_bytes[id] = std::stoull(line.substr(13));
        in_stats = false;
      } else if (sscanf(line.c_str(),
                        "Trace Packet Lister : Protocol printer %31s on "
                        "Trace ID 0x%x",
                        proto, &value) == 2) {
        protocol_by_id[value] = proto;
      }
    }
  }
  int compared_totals = 0;
  for (const StreamInfo& s : (*decoder)->streams()) {
    const StreamStats& st = (*decoder)->stats()[s.id];
    EXPECT_EQ(st.packets, packets_per_stream[s.id]) << s.name;
    // Every byte the frame scan gave this trace ID reached its packet
    // processor: the scan and OpenCSD's demultiplexer agree. (1.3.3's PTM
    // processor may show a byte twice in an unsynchronised packet.)
    const uint32_t lister_id =
        (*capture)->manifest().coresight->formatted ? s.trace_id : 0;
    if (st.packets > 0 && s.buffer_index == 0) {
      if (protocol_by_id[lister_id] == "PTM") {
        EXPECT_LE(st.trace_bytes, bytes_per_stream[s.id]) << s.name;
      } else {
        EXPECT_EQ(st.trace_bytes, bytes_per_stream[s.id]) << s.name;
      }
    }
    // And OpenCSD's own count, where its decoder keeps one.
    auto total = lister_total_bytes.find(lister_id);
    if (s.buffer_index == 0 && total != lister_total_bytes.end()) {
      EXPECT_EQ(st.trace_bytes, total->second) << s.name;
      ++compared_totals;
    }
    EXPECT_EQ(st.trace_bytes, st.bytes_decoded + st.bytes_lost) << s.name;
  }
  if (!lister_total_bytes.empty()) {
    EXPECT_GT(compared_totals, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, ListPacketsTest,
    ::testing::Values("snapshots/a57_single_step", "snapshots/TC2",
                      "snapshots/Snowball", "snapshots/juno_r1_1",
                      "snapshots/tc2-ptm-rstk-t32", "snapshots/trace_cov_a15",
                      "snapshots/juno-uname-002", "snapshots-ete/001-ack_test",
                      "snapshots-ete/ete_spec_1", "snapshots-ete/tme_test"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      std::string name = info.param;
      for (char& ch : name) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace hwt::coresight
