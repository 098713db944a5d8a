// The packet listing lines in trc_pkt_lister's layout, and the ETE printer
// lines read back: the index, the byte count, the packet and its class, on
// lines of the form OpenCSD 1.3.3's printer writes.
#include "decoders/coresight/packet_text.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

TEST(PacketTextTest, LineHasTrcPktListersLayout) {
  const std::vector<uint8_t> bytes = {0x00, 0x80, 0xff};
  EXPECT_EQ(PacketLine(4660, 0x10, bytes, "I_ASYNC : Alignment Sync."),
            "Idx:4660; ID:10; [0x00 0x80 0xff ];\tI_ASYNC : Alignment Sync.");
  EXPECT_EQ(PacketLine(0, 0x7f, {}, "X"), "Idx:0; ID:7f; [];\tX");
}

TEST(PacketTextTest, EtePrinterLineIsReadBack) {
  auto line = ParseEtePrinterLine(
      "Idx:123; ID:12; [0x04 0x01 0x00 ];\tI_TRACE_INFO : Trace Info.\r\n");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->index, 123u);
  EXPECT_EQ(line->size, 3u);
  EXPECT_EQ(line->packet, "I_TRACE_INFO : Trace Info.");
  EXPECT_EQ(line->line,
            "Idx:123; ID:12; [0x04 0x01 0x00 ];\tI_TRACE_INFO : Trace Info.");
  EXPECT_FALSE(line->bad());
  EXPECT_FALSE(line->carries_no_packet());
}

TEST(PacketTextTest, EtePacketClasses) {
  auto bad = ParseEtePrinterLine("Idx:8; ID:1; [0x7f ];\tI_BAD_SEQUENCE : x");
  ASSERT_TRUE(bad.has_value());
  EXPECT_TRUE(bad->bad());
  auto reserved = ParseEtePrinterLine("Idx:9; ID:1; [0x0a ];\tI_RESERVED");
  ASSERT_TRUE(reserved.has_value());
  EXPECT_TRUE(reserved->bad());
  auto unsynced =
      ParseEtePrinterLine("Idx:0; ID:1; [0x00 0x00 ];\tI_NOT_SYNC : ...");
  ASSERT_TRUE(unsynced.has_value());
  EXPECT_FALSE(unsynced->bad());
  EXPECT_TRUE(unsynced->carries_no_packet());
  EXPECT_EQ(unsynced->size, 2u);
}

TEST(PacketTextTest, OtherLinesAndCutLinesAreSafe) {
  EXPECT_FALSE(ParseEtePrinterLine("DCD_ETE_0: some message").has_value());
  EXPECT_FALSE(ParseEtePrinterLine("").has_value());
  // A line cut right after "];" has an empty packet, not a read past its
  // end.
  auto cut = ParseEtePrinterLine("Idx:5; ID:1; [0x01 ];");
  ASSERT_TRUE(cut.has_value());
  EXPECT_EQ(cut->packet, "");
  EXPECT_EQ(cut->size, 1u);
  auto no_bytes = ParseEtePrinterLine("Idx:77");
  ASSERT_TRUE(no_bytes.has_value());
  EXPECT_EQ(no_bytes->index, 77u);
  EXPECT_EQ(no_bytes->size, 0u);
  EXPECT_EQ(no_bytes->packet, "Idx:77");
}

}  // namespace
}  // namespace hwt::coresight
