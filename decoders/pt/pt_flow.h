// What the libipt path and the fast path share about following PT flow: the
// execution mode as an Isa, and the limits past which a flow that reads no
// trace is taken to loop.
#ifndef HWT_DECODERS_PT_PT_FLOW_H_
#define HWT_DECODERS_PT_PT_FLOW_H_

#include <intel-pt.h>

#include <cstdint>

#include "decoders/event.h"

namespace hwt::pt {

// libipt follows direct jumps and calls without reading trace, so a flow
// that comes back to the same code without needing a packet (a jump to
// itself, a cycle of direct branches) would run forever. No real flow runs
// this many blocks or instructions without reading a single packet: every
// conditional branch, return, indirect branch and far transfer needs one.
inline constexpr uint64_t kMaxBlocksWithoutTrace = uint64_t{1} << 16;
inline constexpr uint64_t kMaxInsnsWithoutTrace = uint64_t{1} << 22;

inline Isa IsaOf(enum pt_exec_mode mode) {
  switch (mode) {
    case ptem_16bit:
      return Isa::kX86_16;
    case ptem_32bit:
      return Isa::kX86_32;
    case ptem_64bit:
      return Isa::kX86_64;
    default:
      return Isa::kUnknown;
  }
}

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_FLOW_H_
