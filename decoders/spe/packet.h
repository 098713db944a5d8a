// ARM SPE packet decoding: one packet at a time from raw bytes, per the Arm
// architecture's SPE packet format (see ../shared/reference/spe.md). Headers
// are classified through a 256-entry table and payloads read with one
// unaligned load, so decoding allocates nothing and costs a few instructions
// per packet.
#ifndef HWT_DECODERS_SPE_PACKET_H_
#define HWT_DECODERS_SPE_PACKET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hwt::spe {

enum class PacketType : uint8_t {
  kPad,         // 0x00 (consecutive PAD bytes are merged, up to 16)
  kEnd,         // 0x01: ends a record
  kTimestamp,   // 0x71: 8-byte timestamp; ends a record
  kEvents,      // 0x42/0x52/0x62/0x72: event bits
  kDataSource,  // 0x43/0x53/0x63/0x73: implementation-defined data source
  kContext,     // 0x64..0x67: CONTEXTIDR_EL1 (index 0) / _EL2 (index 1)
  kOpType,      // 0x48..0x4b: operation class h[1:0] + 1-byte subclass
  kAddress,     // 0xb0..0xb7 or extended: 8-byte address, index 0..31
  kCounter,     // 0x98..0x9f or extended: 16-bit counter, index 0..31
  kAlignment,   // extended header with byte1 == 0: pad to an alignment
};
inline constexpr int kNumPacketTypes = 10;
// Upper-case names as perf's arm-spe dump prints them ("PAD", "TS", ...).
std::string_view PacketTypeName(PacketType type);

// Address packet indices (short header: h[2:0]; extended: ii << 3 | h1[2:0]).
enum AddressIndex : uint8_t {
  kAddressPc = 0,
  kAddressBranchTarget = 1,
  kAddressDataVirtual = 2,
  kAddressDataPhysical = 3,
  kAddressPrevBranchTarget = 4,
};
// Counter packet indices.
enum CounterIndex : uint8_t {
  kCounterTotalLatency = 0,
  kCounterIssueLatency = 1,
  kCounterTranslationLatency = 2,
};

struct Packet {
  uint64_t offset = 0;   // of the first header byte, in the buffer's raw file
  uint64_t payload = 0;  // little-endian payload, zero-extended
  PacketType type = PacketType::kPad;
  uint8_t size = 0;          // bytes, headers and payload (and padding)
  uint8_t header = 0;        // first header byte
  uint8_t header1 = 0;       // second header byte of an extended header
  uint8_t index = 0;         // address/counter index, context index, op class
  uint8_t payload_size = 0;  // 0, 1, 2, 4 or 8
  bool extended = false;     // 16-bit extended header
};

enum class PacketResult : uint8_t {
  kOk,
  kInvalid,    // the byte at the position is no packet header
  kTruncated,  // a valid header whose packet runs past the end of the bytes
};

namespace internal {

enum class HeaderKind : uint8_t {
  kInvalid,
  kPad,
  kEnd,
  kTimestamp,
  kEvents,
  kDataSource,
  kContext,
  kOpType,
  kExtended,
  kAddress,
  kCounter,
};

constexpr HeaderKind ClassifyHeader(unsigned h) {
  if (h == 0x00) return HeaderKind::kPad;
  if (h == 0x01) return HeaderKind::kEnd;
  if (h == 0x71) return HeaderKind::kTimestamp;
  if ((h & 0xcf) == 0x42) return HeaderKind::kEvents;
  if ((h & 0xcf) == 0x43) return HeaderKind::kDataSource;
  if ((h & 0xfc) == 0x64) return HeaderKind::kContext;
  if ((h & 0xfc) == 0x48) return HeaderKind::kOpType;
  if ((h & 0xfc) == 0x20) return HeaderKind::kExtended;
  if ((h & 0xf8) == 0xb0) return HeaderKind::kAddress;
  if ((h & 0xf8) == 0x98) return HeaderKind::kCounter;
  return HeaderKind::kInvalid;
}

constexpr std::array<HeaderKind, 256> MakeHeaderTable() {
  std::array<HeaderKind, 256> table{};
  for (unsigned h = 0; h < 256; ++h) table[h] = ClassifyHeader(h);
  return table;
}
inline constexpr std::array<HeaderKind, 256> kHeaderTable = MakeHeaderTable();

inline uint64_t ReadPayload(const uint8_t* p, size_t avail, size_t size) {
  uint64_t value = 0;
  if (avail >= 8) {
    std::memcpy(&value, p, 8);  // little-endian hosts only (static_assert'd
                                // in packet.cc)
    return size == 8 ? value : value & ((uint64_t{1} << (size * 8)) - 1);
  }
  for (size_t i = 0; i < size; ++i) value |= uint64_t{p[i]} << (8 * i);
  return value;
}

// Reads a header + payload packet whose payload starts at p[header_size].
inline PacketResult ReadSized(const uint8_t* p, size_t avail,
                              size_t header_size, uint8_t size_byte,
                              Packet* out) {
  size_t payload_size = size_t{1} << ((size_byte >> 4) & 3);
  size_t total = header_size + payload_size;
  if (avail < total) return PacketResult::kTruncated;
  out->payload =
      ReadPayload(p + header_size, avail - header_size, payload_size);
  out->payload_size = static_cast<uint8_t>(payload_size);
  out->size = static_cast<uint8_t>(total);
  return PacketResult::kOk;
}

}  // namespace internal

// Decodes the packet at p[0] (avail > 0 bytes available). `unit_position` is
// the offset of p[0] from the start of the decode unit (an SPE half-buffer,
// which the hardware filled from an aligned address): alignment pads extend
// from their header to the next multiple of their alignment after it.
// out->offset is left to the caller.
inline PacketResult DecodePacket(const uint8_t* p, size_t avail,
                                 uint64_t unit_position, Packet* out) {
  using internal::HeaderKind;
  const uint8_t h = p[0];
  out->header = h;
  out->header1 = 0;
  out->index = 0;
  out->extended = false;
  out->payload = 0;
  out->payload_size = 0;
  switch (internal::kHeaderTable[h]) {
    case HeaderKind::kInvalid:
      return PacketResult::kInvalid;
    case HeaderKind::kPad: {
      // Merge a run of PADs (up to 16 bytes, one listing line, like perf).
      size_t n = 1;
      size_t limit = avail < 16 ? avail : 16;
      while (n < limit && p[n] == 0) ++n;
      out->type = PacketType::kPad;
      out->size = static_cast<uint8_t>(n);
      return PacketResult::kOk;
    }
    case HeaderKind::kEnd:
      out->type = PacketType::kEnd;
      out->size = 1;
      return PacketResult::kOk;
    case HeaderKind::kTimestamp:
      out->type = PacketType::kTimestamp;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kEvents:
      out->type = PacketType::kEvents;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kDataSource:
      out->type = PacketType::kDataSource;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kContext:
      out->type = PacketType::kContext;
      out->index = h & 3;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kOpType:
      out->type = PacketType::kOpType;
      out->index = h & 3;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kAddress:
      out->type = PacketType::kAddress;
      out->index = h & 7;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kCounter:
      out->type = PacketType::kCounter;
      out->index = h & 7;
      return internal::ReadSized(p, avail, 1, h, out);
    case HeaderKind::kExtended: {
      if (avail < 2) return PacketResult::kTruncated;
      const uint8_t h1 = p[1];
      out->header1 = h1;
      out->extended = true;
      if (h1 == 0) {
        uint64_t alignment = uint64_t{2} << (h & 3);
        uint64_t end = (unit_position + 2 + alignment - 1) & ~(alignment - 1);
        uint64_t size = end - unit_position;
        out->type = PacketType::kAlignment;
        out->index = static_cast<uint8_t>(alignment);
        if (avail < size) return PacketResult::kTruncated;
        out->size = static_cast<uint8_t>(size);
        return PacketResult::kOk;
      }
      uint8_t index = static_cast<uint8_t>(((h & 3) << 3) | (h1 & 7));
      if ((h1 & 0xf8) == 0xb0) {
        out->type = PacketType::kAddress;
      } else if ((h1 & 0xf8) == 0x98) {
        out->type = PacketType::kCounter;
      } else {
        return PacketResult::kInvalid;
      }
      out->index = index;
      return internal::ReadSized(p, avail, 2, h1, out);
    }
  }
  return PacketResult::kInvalid;
}

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_PACKET_H_
