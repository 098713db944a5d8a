// Packet-level tests: every header byte classified as the spec's table says,
// every packet type with its payload sizes, short and extended headers,
// alignment pads, PAD runs and truncation.
#include "decoders/spe/packet.h"

#include <set>
#include <string>

#include "decoders/spe/encoder.h"
#include "gtest/gtest.h"

namespace hwt::spe {
namespace {

PacketResult Decode(const std::string& bytes, Packet* packet,
                    uint64_t unit_position = 0) {
  return DecodePacket(reinterpret_cast<const uint8_t*>(bytes.data()),
                      bytes.size(), unit_position, packet);
}

Packet DecodeOk(const std::string& bytes) {
  Packet packet;
  EXPECT_EQ(Decode(bytes, &packet), PacketResult::kOk);
  return packet;
}

TEST(SpePacketTest, HeaderBytesFollowTheSpecTable) {
  // The valid first bytes, listed by hand from reference/spe.md's table.
  std::set<int> valid = {0x00, 0x01, 0x71,        // PAD END TS
                         0x42, 0x52, 0x62, 0x72,  // EVENTS
                         0x43, 0x53, 0x63, 0x73,  // DATA_SOURCE
                         0x64, 0x65, 0x66, 0x67,  // CONTEXT
                         0x48, 0x49, 0x4a, 0x4b,  // OP_TYPE
                         0x20, 0x21, 0x22, 0x23,  // extended
                         0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
                         0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f};
  ASSERT_EQ(valid.size(), 39u);
  for (int h = 0; h < 256; ++h) {
    // Enough bytes for any packet; byte 1 = 0xb0 makes extended headers
    // valid address packets.
    std::string bytes(20, '\x11');
    bytes[0] = static_cast<char>(h);
    bytes[1] = static_cast<char>(0xb0);
    Packet packet;
    PacketResult result = Decode(bytes, &packet);
    EXPECT_EQ(result == PacketResult::kOk, valid.count(h) == 1)
        << "header 0x" << std::hex << h;
  }
}

TEST(SpePacketTest, PadEndTimestamp) {
  Packet p = DecodeOk(std::string(1, '\0'));
  EXPECT_EQ(p.type, PacketType::kPad);
  EXPECT_EQ(p.size, 1);
  // A run of PADs is one packet of at most 16 bytes.
  p = DecodeOk(std::string(40, '\0'));
  EXPECT_EQ(p.type, PacketType::kPad);
  EXPECT_EQ(p.size, 16);
  p = DecodeOk(std::string("\0\0\0\x01", 4));
  EXPECT_EQ(p.size, 3);

  p = DecodeOk("\x01");
  EXPECT_EQ(p.type, PacketType::kEnd);
  EXPECT_EQ(p.size, 1);

  SpeEncoder e;
  e.Timestamp(0x0123456789abcdefULL);
  p = DecodeOk(e.bytes());
  EXPECT_EQ(p.type, PacketType::kTimestamp);
  EXPECT_EQ(p.size, 9);
  EXPECT_EQ(p.payload_size, 8);
  EXPECT_EQ(p.payload, 0x0123456789abcdefULL);
}

TEST(SpePacketTest, EventsAndDataSourceInEverySize) {
  const uint64_t values[] = {0xa5, 0xbeef, 0xdeadbeef, 0x0102030405060708ULL};
  const int sizes[] = {1, 2, 4, 8};
  const uint8_t event_headers[] = {0x42, 0x52, 0x62, 0x72};
  const uint8_t source_headers[] = {0x43, 0x53, 0x63, 0x73};
  for (int i = 0; i < 4; ++i) {
    SpeEncoder e;
    e.Events(values[i], sizes[i]);
    ASSERT_EQ(static_cast<uint8_t>(e.bytes()[0]), event_headers[i]);
    Packet p = DecodeOk(e.bytes());
    EXPECT_EQ(p.type, PacketType::kEvents);
    EXPECT_EQ(p.payload, values[i]);
    EXPECT_EQ(p.payload_size, sizes[i]);
    EXPECT_EQ(p.size, 1 + sizes[i]);

    SpeEncoder d;
    d.DataSource(values[i], sizes[i]);
    ASSERT_EQ(static_cast<uint8_t>(d.bytes()[0]), source_headers[i]);
    p = DecodeOk(d.bytes());
    EXPECT_EQ(p.type, PacketType::kDataSource);
    EXPECT_EQ(p.payload, values[i]);
    EXPECT_EQ(p.size, 1 + sizes[i]);
  }
}

TEST(SpePacketTest, ContextAndOpType) {
  for (int index = 0; index < 4; ++index) {
    SpeEncoder e;
    e.Context(0x12345678u + index, index);
    Packet p = DecodeOk(e.bytes());
    EXPECT_EQ(p.type, PacketType::kContext);
    EXPECT_EQ(p.index, index);
    EXPECT_EQ(p.payload, 0x12345678u + index);
    EXPECT_EQ(p.size, 5);
  }
  for (int op_class = 0; op_class < 4; ++op_class) {
    SpeEncoder e;
    e.OpType(op_class, 0x5a);
    Packet p = DecodeOk(e.bytes());
    EXPECT_EQ(p.type, PacketType::kOpType);
    EXPECT_EQ(p.index, op_class);
    EXPECT_EQ(p.payload, 0x5au);
    EXPECT_EQ(p.size, 2);
  }
}

TEST(SpePacketTest, AddressAndCounterEveryIndexShortAndExtended) {
  for (int index = 0; index < 32; ++index) {
    for (bool extended : {false, true}) {
      if (index > 7 && !extended) continue;
      SpeEncoder e;
      uint64_t payload = 0x8877665544332211ULL + index;
      e.Address(index, payload, extended);
      Packet p = DecodeOk(e.bytes());
      EXPECT_EQ(p.type, PacketType::kAddress);
      EXPECT_EQ(p.index, index);
      EXPECT_EQ(p.extended, extended);
      EXPECT_EQ(p.payload, payload);
      EXPECT_EQ(p.size, (extended ? 2 : 1) + 8);

      SpeEncoder c;
      c.Counter(index, static_cast<uint16_t>(0x1234 + index), extended);
      p = DecodeOk(c.bytes());
      EXPECT_EQ(p.type, PacketType::kCounter);
      EXPECT_EQ(p.index, index);
      EXPECT_EQ(p.extended, extended);
      EXPECT_EQ(p.payload, 0x1234u + index);
      EXPECT_EQ(p.size, (extended ? 2 : 1) + 2);
    }
  }
}

TEST(SpePacketTest, ExtendedHeaderWithBadSecondByteIsInvalid) {
  Packet p;
  EXPECT_EQ(Decode(std::string("\x20\x42\x00\x00", 4), &p),
            PacketResult::kInvalid);
  EXPECT_EQ(Decode(std::string("\x21\x71", 2), &p), PacketResult::kInvalid);
  EXPECT_EQ(Decode(std::string("\x22", 1), &p), PacketResult::kTruncated);
}

TEST(SpePacketTest, AlignmentPadsReachTheNextBoundary) {
  // 0x20..0x23 with byte1 == 0: alignment 2, 4, 8, 16. The pad runs from
  // its header to the next multiple after the two header bytes.
  struct Case {
    uint8_t header;
    uint64_t position;
    uint8_t size;
  };
  const Case cases[] = {
      {0x20, 0, 2},  {0x20, 1, 3},   {0x21, 0, 4},    {0x21, 2, 2},
      {0x21, 3, 5},  {0x22, 0, 8},   {0x22, 5, 3},    {0x23, 0, 16},
      {0x23, 14, 2}, {0x23, 15, 17}, {0x23, 100, 12},
  };
  for (const Case& c : cases) {
    std::string bytes(40, '\0');
    bytes[0] = static_cast<char>(c.header);
    Packet p;
    ASSERT_EQ(Decode(bytes, &p, c.position), PacketResult::kOk);
    EXPECT_EQ(p.type, PacketType::kAlignment);
    EXPECT_EQ(p.size, c.size)
        << "header " << int(c.header) << " at " << c.position;
    EXPECT_EQ(p.index, 2 << (c.header & 3));
  }
  // Not enough bytes to reach the boundary.
  Packet p;
  EXPECT_EQ(Decode(std::string("\x23\x00\x00", 3), &p, 0),
            PacketResult::kTruncated);
  // The encoder's pads agree with the decoder's.
  for (int log2 = 0; log2 < 4; ++log2) {
    for (int lead = 0; lead < 20; ++lead) {
      SpeEncoder e;
      e.Raw(std::string(lead, '\x01'));
      e.Alignment(log2);
      std::string pad = e.bytes().substr(lead);
      ASSERT_EQ(Decode(pad, &p, lead), PacketResult::kOk);
      EXPECT_EQ(p.size, pad.size());
      EXPECT_EQ((lead + pad.size()) % (2u << log2), 0u);
    }
  }
}

TEST(SpePacketTest, TruncatedPacketsNeedTheirWholePayload) {
  SpeEncoder e;
  e.Address(0, 0x1122334455667788ULL);
  const std::string full = e.bytes();
  for (size_t n = 1; n < full.size(); ++n) {
    Packet p;
    EXPECT_EQ(Decode(full.substr(0, n), &p), PacketResult::kTruncated) << n;
  }
  SpeEncoder x;
  x.Counter(9, 0x55aa);  // extended
  for (size_t n = 1; n < x.size(); ++n) {
    Packet p;
    EXPECT_EQ(Decode(x.bytes().substr(0, n), &p), PacketResult::kTruncated);
  }
}

TEST(SpePacketTest, PayloadsAreReadExactlyAtTheEndOfTheBytes) {
  // Short inputs take the byte-by-byte path; they must not read beyond.
  SpeEncoder e;
  e.Events(0x1234, 2);
  Packet p = DecodeOk(e.bytes());
  EXPECT_EQ(p.payload, 0x1234u);
  SpeEncoder f;
  f.Events(0x1234, 2).Raw(std::string(10, '\xff'));
  p = DecodeOk(f.bytes());
  EXPECT_EQ(p.payload, 0x1234u);
}

}  // namespace
}  // namespace hwt::spe
