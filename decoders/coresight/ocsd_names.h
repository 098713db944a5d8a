// OpenCSD's enums and packets in words, for decode errors and listings:
// protocol names, whether a packet is good, unsynchronised, incomplete or
// bad, and the text of datapath responses and error codes.
#ifndef HWT_DECODERS_CORESIGHT_OCSD_NAMES_H_
#define HWT_DECODERS_CORESIGHT_OCSD_NAMES_H_

#include <string>

#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// "ETMv3", "PTM", "ETMv4", "ETE"; "trace" for anything else.
const char* ProtocolName(ocsd_trace_protocol_t protocol);

enum class PacketClass { kGood, kUnsynced, kIncomplete, kBad };

// The class of a packet OpenCSD's packet monitor delivers for `protocol`.
PacketClass ClassifyPacket(ocsd_trace_protocol_t protocol, const void* packet);

// A fatal datapath response in words ("invalid trace data").
std::string DatapathResponseName(ocsd_datapath_resp_t resp);

// OpenCSD's own text for an error code.
std::string OcsdErrorName(ocsd_err_t err);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_OCSD_NAMES_H_
