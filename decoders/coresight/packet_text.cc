// CoreSight packet listing text; see packet_text.h.
#include "decoders/coresight/packet_text.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace hwt::coresight {

std::string OcsdPacketText(ocsd_trace_protocol_t protocol, const void* packet) {
  char text[1024];
  // ETE packets are ETMv4 packet objects (the C API prints ETMv4 ones).
  if (protocol == OCSD_PROTOCOL_ETE) protocol = OCSD_PROTOCOL_ETMV4I;
  if (ocsd_pkt_str(protocol, packet, text, sizeof(text)) != OCSD_OK) {
    return "(packet text unavailable)";
  }
  return text;
}

std::string PacketLine(uint64_t offset, uint8_t id,
                       absl::Span<const uint8_t> bytes, std::string_view text) {
  std::string line = absl::StrFormat("Idx:%u; ID:%x; [", offset, id);
  for (uint8_t byte : bytes) absl::StrAppendFormat(&line, "0x%02x ", byte);
  line += "];\t";
  line += text;
  return line;
}

bool EtePrinterLine::bad() const {
  return packet.starts_with("I_BAD_") || packet.starts_with("I_RESERVED");
}

bool EtePrinterLine::carries_no_packet() const {
  return packet.starts_with("I_NOT_SYNC") ||
         packet.starts_with("I_INCOMPLETE_EOT");
}

std::optional<EtePrinterLine> ParseEtePrinterLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  if (!text.starts_with("Idx:")) return std::nullopt;
  EtePrinterLine out;
  out.line = text;
  size_t i = 4;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    out.index = out.index * 10 + static_cast<uint64_t>(text[i++] - '0');
  }
  const size_t open = text.find('[');
  const size_t close = text.find("];");
  if (open != std::string_view::npos && close != std::string_view::npos) {
    for (size_t p = open; p + 1 < close; ++p) {
      if (text[p] == '0' && text[p + 1] == 'x') ++out.size;
    }
  }
  out.packet = close == std::string_view::npos
                   ? text
                   : text.substr(std::min(close + 3, text.size()));
  return out;
}

}  // namespace hwt::coresight
