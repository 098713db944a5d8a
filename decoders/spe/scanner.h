// Walks a chunk of SPE trace packet by packet, resynchronising after bytes
// that are no packet: like Linux perf it skips one byte and tries again, but
// every skipped byte is reported (consecutive ones as one run) so that the
// caller can account for all input: sum(packet sizes) + sum(skipped) == size.
// A packet cut by the end of the chunk ends the walk: its bytes are skipped
// as one "truncated packet" run.
#ifndef HWT_DECODERS_SPE_SCANNER_H_
#define HWT_DECODERS_SPE_SCANNER_H_

#include <cstddef>
#include <cstdint>

#include "decoders/spe/packet.h"
#include "decoders/spe/stats.h"

namespace hwt::spe {

// Visitor needs:
//   void OnPacket(const Packet& packet);
//   void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason);
// `file_offset` is the offset of data[0] in the buffer's raw file; data[0] is
// also the start of the decode unit (alignment pads align relative to it).
template <typename Visitor>
void ScanPackets(const uint8_t* data, size_t size, uint64_t file_offset,
                 Visitor& visitor) {
  size_t pos = 0;
  Packet packet;
  while (pos < size) {
    PacketResult result = DecodePacket(data + pos, size - pos, pos, &packet);
    if (result == PacketResult::kOk) {
      packet.offset = file_offset + pos;
      visitor.OnPacket(packet);
      pos += packet.size;
      continue;
    }
    if (result == PacketResult::kTruncated) {
      // A packet cut by the end of the chunk: what follows its header is
      // (most likely) its payload, not packets.
      visitor.OnSkipped(file_offset + pos, size - pos,
                        SkipReason::kTruncatedPacket);
      return;
    }
    // Skip bytes until one decodes as a complete packet again.
    size_t start = pos;
    ++pos;
    while (pos < size && DecodePacket(data + pos, size - pos, pos, &packet) !=
                             PacketResult::kOk) {
      ++pos;
    }
    visitor.OnSkipped(file_offset + start, pos - start,
                      SkipReason::kInvalidHeader);
  }
}

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_SCANNER_H_
