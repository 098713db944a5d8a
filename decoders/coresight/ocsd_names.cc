// OpenCSD's enums and packets in words; see ocsd_names.h.
#include "decoders/coresight/ocsd_names.h"

#include "absl/strings/str_format.h"

namespace hwt::coresight {

const char* ProtocolName(ocsd_trace_protocol_t protocol) {
  switch (protocol) {
    case OCSD_PROTOCOL_ETMV3:
      return "ETMv3";
    case OCSD_PROTOCOL_PTM:
      return "PTM";
    case OCSD_PROTOCOL_ETMV4I:
      return "ETMv4";
    case OCSD_PROTOCOL_ETE:
      return "ETE";
    default:
      return "trace";
  }
}

PacketClass ClassifyPacket(ocsd_trace_protocol_t protocol, const void* packet) {
  switch (protocol) {
    case OCSD_PROTOCOL_ETMV4I:
    case OCSD_PROTOCOL_ETE:
      switch (static_cast<const ocsd_etmv4_i_pkt*>(packet)->type) {
        case ETM4_PKT_I_NOTSYNC:
          return PacketClass::kUnsynced;
        case ETM4_PKT_I_INCOMPLETE_EOT:
          return PacketClass::kIncomplete;
        case ETM4_PKT_I_BAD_SEQUENCE:
        case ETM4_PKT_I_BAD_TRACEMODE:
        case ETM4_PKT_I_RESERVED:
        case ETM4_PKT_I_RESERVED_CFG:
          return PacketClass::kBad;
        default:
          return PacketClass::kGood;
      }
    case OCSD_PROTOCOL_ETMV3:
      switch (static_cast<const ocsd_etmv3_pkt*>(packet)->type) {
        case ETM3_PKT_NOTSYNC:
          return PacketClass::kUnsynced;
        case ETM3_PKT_INCOMPLETE_EOT:
          return PacketClass::kIncomplete;
        case ETM3_PKT_BAD_SEQUENCE:
        case ETM3_PKT_BAD_TRACEMODE:
        case ETM3_PKT_RESERVED:
          return PacketClass::kBad;
        default:
          return PacketClass::kGood;
      }
    case OCSD_PROTOCOL_PTM:
      switch (static_cast<const ocsd_ptm_pkt*>(packet)->type) {
        case PTM_PKT_NOTSYNC:
          return PacketClass::kUnsynced;
        case PTM_PKT_INCOMPLETE_EOT:
          return PacketClass::kIncomplete;
        case PTM_PKT_BAD_SEQUENCE:
        case PTM_PKT_RESERVED:
          return PacketClass::kBad;
        default:
          return PacketClass::kGood;
      }
    default:
      return PacketClass::kGood;
  }
}

std::string DatapathResponseName(ocsd_datapath_resp_t resp) {
  switch (resp) {
    case OCSD_RESP_FATAL_NOT_INIT:
      return "component not initialised";
    case OCSD_RESP_FATAL_INVALID_OP:
      return "invalid datapath operation";
    case OCSD_RESP_FATAL_INVALID_PARAM:
      return "invalid parameter";
    case OCSD_RESP_FATAL_INVALID_DATA:
      return "invalid trace data";
    case OCSD_RESP_FATAL_SYS_ERR:
      return "internal error";
    default:
      return absl::StrFormat("response %d", static_cast<int>(resp));
  }
}

std::string OcsdErrorName(ocsd_err_t err) {
  char text[256];
  ocsd_err_str(err, text, sizeof(text));
  return text;
}

}  // namespace hwt::coresight
