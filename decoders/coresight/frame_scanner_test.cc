// Frame scanner on hand-built frames whose unpacking was worked out by hand
// from the CoreSight formatter rules (and OpenCSD's deformatter); real
// buffers are checked against OpenCSD itself in list_packets_test.
#include "decoders/coresight/frame_scanner.h"

#include <string>

#include "gtest/gtest.h"
#include "opencsd/ocsd_if_types.h"

namespace hwt::coresight {
namespace {

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Byte  0: 0x21 ID 0x10 (flag 0: byte 1 is the new ID's)
// Bytes 2-3: data (0x10)
// Byte  4: 0x25 ID 0x12 (flag 1: byte 5 still belongs to 0x10)
// Bytes 6-9: data (0x12)
// Byte 10: 0x01 ID 0x00 (null; byte 11 is padding)
// Byte 12: 0x21 ID 0x10 (byte 13 is 0x10's)
// Byte 14: 0xe1 ID 0x70 (reserved; no data of its own)
// Byte 15: flags 0x06 (bits 1 and 2)
const std::string kFrame(
    "\x21\xaa\x02\x03\x25\xbb\x04\x05\x00\x00\x01\x0c\x21\x0d\xe1\x06", 16);

TEST(FrameScannerTest, UnpacksOneFrame) {
  FrameScanner scanner(OCSD_DFRMTR_FRAME_MEM_ALIGN);
  EXPECT_EQ(scanner.alignment(), 16u);
  FrameScanResult r;
  scanner.Scan(Bytes(kFrame), 0x100, &r);
  ASSERT_EQ(r.ids.size(), 2u);
  EXPECT_EQ(r.ids[0x10].bytes, 5u);  // bytes 1, 2, 3, 5, 13
  EXPECT_EQ(r.ids[0x10].first_offset, 0x101u);
  EXPECT_EQ(r.ids[0x12].bytes, 4u);  // bytes 6..9
  EXPECT_EQ(r.ids[0x12].first_offset, 0x106u);
  EXPECT_EQ(r.null_id_bytes, 1u);
  EXPECT_EQ(r.frame_bytes, 6u);  // five IDs and the flag byte
  EXPECT_EQ(r.unknown_id_bytes, 0u);
  EXPECT_TRUE(r.errors.empty());
}

TEST(FrameScannerTest, IdCarriesIntoTheNextFrame) {
  FrameScanner scanner(OCSD_DFRMTR_FRAME_MEM_ALIGN);
  FrameScanResult r;
  // The second frame is all data: it belongs to the reserved ID 0x70 that
  // ended the first one. A trailing half frame is not scanned.
  std::string data = kFrame + std::string(15, '\x02') + '\0' + "\x21\x01";
  scanner.Scan(Bytes(data), 0, &r);
  EXPECT_EQ(r.reserved_id_bytes, 15u);
  EXPECT_EQ(r.ids[0x10].bytes, 5u);
}

TEST(FrameScannerTest, DataBeforeAnyIdIsUnknown) {
  FrameScanner scanner(OCSD_DFRMTR_FRAME_MEM_ALIGN);
  FrameScanResult r;
  scanner.Scan(Bytes(std::string(15, '\x02') + '\0'), 0, &r);
  EXPECT_EQ(r.unknown_id_bytes, 15u);
  EXPECT_TRUE(r.ids.empty());
  // Reset() forgets the ID, as OCSD_OP_RESET does.
  scanner.Scan(Bytes(kFrame), 16, &r);
  scanner.Reset();
  scanner.Scan(Bytes(std::string(15, '\x02') + '\0'), 32, &r);
  EXPECT_EQ(r.unknown_id_bytes, 30u);
}

TEST(FrameScannerTest, PerfResetPatterns) {
  const std::string fsync("\xff\xff\xff\x7f", 4);
  FrameScanner scanner(OCSD_DFRMTR_FRAME_MEM_ALIGN |
                       OCSD_DFRMTR_RESET_ON_4X_FSYNC);
  FrameScanResult r;
  std::string data =
      kFrame + fsync + fsync + fsync + fsync + std::string(15, '\x02') + '\0';
  scanner.Scan(Bytes(data), 0, &r);
  EXPECT_EQ(r.unknown_id_bytes, 15u);  // the reset forgot ID 0x70
  EXPECT_EQ(r.reserved_id_bytes, 0u);
  EXPECT_TRUE(r.errors.empty());
  // Three FSYNCs are not a reset frame.
  FrameScanResult bad;
  FrameScanner scanner2(OCSD_DFRMTR_FRAME_MEM_ALIGN |
                        OCSD_DFRMTR_RESET_ON_4X_FSYNC);
  scanner2.Scan(Bytes(fsync + fsync + fsync + std::string(4, '\0') + kFrame), 0,
                &bad);
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].offset, 0u);
}

TEST(FrameScannerTest, TpiuSyncsOnFsyncAndSkipsHsyncs) {
  const std::string fsync("\xff\xff\xff\x7f", 4);
  FrameScanner scanner(OCSD_DFRMTR_HAS_FSYNCS | OCSD_DFRMTR_HAS_HSYNCS);
  EXPECT_EQ(scanner.alignment(), 2u);
  FrameScanResult r;
  // Six bytes of noise, FSYNC, the frame with an HSYNC after its third
  // pair, FSYNC.
  std::string frame_with_hsync =
      kFrame.substr(0, 6) + std::string("\xff\x7f", 2) + kFrame.substr(6);
  std::string data = std::string("\x11\x22\x33\x44\x55\x66", 6) + fsync +
                     frame_with_hsync + fsync;
  scanner.Scan(Bytes(data), 0, &r);
  EXPECT_EQ(r.unsynced_bytes, 6u);
  EXPECT_EQ(r.ids[0x10].bytes, 5u);
  EXPECT_EQ(r.ids[0x10].first_offset, 11u);  // after noise and FSYNC
  EXPECT_EQ(r.ids[0x12].bytes, 4u);
  EXPECT_EQ(r.frame_bytes, 6u + 4 + 2 + 4);
  EXPECT_TRUE(r.errors.empty());
}

TEST(FrameScannerTest, FsyncInsideAFrameIsAnError) {
  const std::string fsync("\xff\xff\xff\x7f", 4);
  FrameScanner scanner(OCSD_DFRMTR_HAS_FSYNCS);
  FrameScanResult r;
  std::string data = fsync + kFrame.substr(0, 8) + fsync + kFrame;
  scanner.Scan(Bytes(data), 0, &r);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].offset, 12u);
  EXPECT_EQ(r.errors[0].bytes, 8u);
  // It resynchronises on that FSYNC and reads the whole frame after it.
  EXPECT_EQ(r.ids[0x12].bytes, 4u);
}

}  // namespace
}  // namespace hwt::coresight
