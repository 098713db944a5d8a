// PT events as libipt's ptxed prints them ("[enabled]", "[disabled, ip:
// ...]", "[exec mode: 64-bit]", "[1b, 100004: error: ...]"), for listings
// that follow ptxed's style and for the libipt conformance tests. Blocks are
// printed by expanding them (InsnWalker): one "%016x" line per instruction,
// prefixed with "? " when speculative.
#ifndef HWT_DECODERS_PT_PT_PTXED_FORMAT_H_
#define HWT_DECODERS_PT_PT_PTXED_FORMAT_H_

#include <string>

#include "decoders/event.h"

namespace hwt::pt {

struct PtxedFormatOptions {
  bool event_ip = false;    // ptxed --event:ip
  bool event_time = false;  // ptxed --event:time
};

// ptxed's line for a non-block event, or "" when ptxed prints nothing for it
// (blocks, syncs, status updates, bytes before the first PSB, lost chunks).
std::string PtxedEventLine(const Event& event,
                           const PtxedFormatOptions& options);

// ptxed's line for one instruction of a block.
std::string PtxedInsnLine(uint64_t address, bool speculative);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_PTXED_FORMAT_H_
