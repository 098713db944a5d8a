// Which ETMv4/ETE packets OpenCSD 1.3.3's instruction decoder must not see
// from a trace unit that does not speculate, and the message for one.
//
// A Mispredict-class packet (Mispredict, Cancel format 1 with mispredict,
// Cancel formats 2 and 3) marks the newest atom mispredicted. OpenCSD looks
// for it from the newest P0 element back and erases the address elements on
// the way (EtmV4P0Stack::erase_curr_from_front): it never frees them, and
// when it erases the oldest element its iterator runs past the end of the
// deque, so the search reads freed memory. With TRCIDR8.MAXSPEC 0 every atom
// is committed when it is traced, so only address elements are left and any
// such packet takes that path; but such a trace unit never emits one either
// (no P0 element is ever speculative). The decode therefore treats the
// packet as a bad one (decode_run.cc), as the packet processor treats a bad
// byte sequence.
#ifndef HWT_DECODERS_CORESIGHT_SPECULATION_GUARD_H_
#define HWT_DECODERS_CORESIGHT_SPECULATION_GUARD_H_

#include <cstdint>
#include <string>

#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// True for the packets that mispredict the newest atom.
bool MispredictsAtom(ocsd_etmv4_i_pkt_type type);

// True when a source with TRCIDR8.MAXSPEC `max_speculation` cannot have
// emitted a packet of `type`: a Mispredict-class packet without
// speculation.
bool ImpossibleWithoutSpeculation(uint32_t max_speculation,
                                  ocsd_etmv4_i_pkt_type type);

// The error message for such a packet, whose OpenCSD text is `packet_text`.
std::string SpeculationErrorMessage(const char* protocol_name,
                                    const std::string& packet_text);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_SPECULATION_GUARD_H_
