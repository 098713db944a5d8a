// Packet type names; the decoding itself is inline in packet.h.
#include "decoders/spe/packet.h"

#include <bit>

namespace hwt::spe {

static_assert(std::endian::native == std::endian::little,
              "packet.h reads little-endian payloads with memcpy");

std::string_view PacketTypeName(PacketType type) {
  switch (type) {
    case PacketType::kPad:
      return "PAD";
    case PacketType::kEnd:
      return "END";
    case PacketType::kTimestamp:
      return "TS";
    case PacketType::kEvents:
      return "EVENTS";
    case PacketType::kDataSource:
      return "DATA-SOURCE";
    case PacketType::kContext:
      return "CONTEXT";
    case PacketType::kOpType:
      return "OP-TYPE";
    case PacketType::kAddress:
      return "ADDR";
    case PacketType::kCounter:
      return "LAT";
    case PacketType::kAlignment:
      return "ALIGN";
  }
  return "?";
}

}  // namespace hwt::spe
