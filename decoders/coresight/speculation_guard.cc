// Mispredict-class packets from a trace unit without speculation.
#include "decoders/coresight/speculation_guard.h"

#include "absl/strings/str_format.h"

namespace hwt::coresight {

bool MispredictsAtom(ocsd_etmv4_i_pkt_type type) {
  switch (type) {
    case ETM4_PKT_I_MISPREDICT:
    case ETM4_PKT_I_CANCEL_F1_MISPRED:
    case ETM4_PKT_I_CANCEL_F2:
    case ETM4_PKT_I_CANCEL_F3:
      return true;
    default:
      return false;
  }
}

bool ImpossibleWithoutSpeculation(uint32_t max_speculation,
                                  ocsd_etmv4_i_pkt_type type) {
  return max_speculation == 0 && MispredictsAtom(type);
}

std::string SpeculationErrorMessage(const char* protocol_name,
                                    const std::string& packet_text) {
  return absl::StrFormat(
      "bad %s packet: %s: a mispredict from a trace unit that does not "
      "speculate (TRCIDR8.MAXSPEC 0) cannot occur; decoded as a bad packet "
      "(OpenCSD 1.3.3 would read freed memory on it), up to the next A-Sync",
      protocol_name, packet_text);
}

}  // namespace hwt::coresight
