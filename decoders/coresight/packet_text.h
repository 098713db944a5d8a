// The text of CoreSight packets as hwt-decode --packets lists them, in
// trc_pkt_lister's layout ("Idx:N; ID:X; [0x.. ];\tTEXT"): OpenCSD's own
// packet strings, and the lines of OpenCSD's ETE packet printer read back
// into offset, size and packet (ETE packets reach us only as those lines;
// ocsd_api.h says why).
#ifndef HWT_DECODERS_CORESIGHT_PACKET_TEXT_H_
#define HWT_DECODERS_CORESIGHT_PACKET_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// OpenCSD's description of a decoded packet of `protocol` (ETE packets are
// ETMv4 packet objects), or "(packet text unavailable)".
std::string OcsdPacketText(ocsd_trace_protocol_t protocol, const void* packet);

// One listing line: "Idx:OFFSET; ID:ID; [0xb0 0xb1 ];\tTEXT".
std::string PacketLine(uint64_t offset, uint8_t id,
                       absl::Span<const uint8_t> bytes, std::string_view text);

// A line of OpenCSD's ETE packet printer.
struct EtePrinterLine {
  std::string_view line;    // without the line end
  uint64_t index = 0;       // OpenCSD's (32-bit) trace index of the packet
  uint64_t size = 0;        // bytes listed between [ and ]
  std::string_view packet;  // after "];\t": "I_ASYNC : Alignment sync."
  // I_BAD_* or I_RESERVED: a packet the decoder rejects.
  bool bad() const;
  // Bytes that are no packet (I_NOT_SYNC, I_INCOMPLETE_EOT): neither
  // decoded nor an error of their own.
  bool carries_no_packet() const;
};

// Nullopt for anything but a packet line (the printer also writes other
// messages through the same logger).
std::optional<EtePrinterLine> ParseEtePrinterLine(std::string_view text);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_PACKET_TEXT_H_
