// CoreSight instruction ranges as events: how an OpenCSD INSTR_RANGE element
// becomes a kBlock Event (branch kind of its last instruction), what the
// CoreSight decoder keeps of OpenCSD's detail in the block's `code` and
// `value`, and the trc_pkt_lister text of a block, so that hwt-decode can
// list ranges exactly as OpenCSD's reference lister prints them.
#ifndef HWT_DECODERS_CORESIGHT_INSTR_RANGE_H_
#define HWT_DECODERS_CORESIGHT_INSTR_RANGE_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "decoders/event.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// Event::code of a CoreSight kBlock: OpenCSD's description of the last
// instruction, and the cycle count OpenCSD attached to the range itself.
// Event::value holds the block's cycles: that count plus the standalone
// CYCLE_COUNT elements that came right after the range (ETMv3 wait cycles,
// ETMv4 counts not tied to an atom); a count that follows another event
// goes to the next block.
inline constexpr uint32_t kBlockInstrTypeMask = 0xf;  // ocsd_instr_type
inline constexpr int kBlockInstrSubtypeShift = 4;     // ocsd_instr_subtype
inline constexpr uint32_t kBlockInstrSubtypeMask = 0xf0;
inline constexpr uint32_t kBlockLastExecuted = 1u << 8;     // E (vs N)
inline constexpr uint32_t kBlockLastConditional = 1u << 9;  // <cond>
inline constexpr uint32_t kBlockHasCycleCount = 1u << 10;   // [CC=n]
// The range's own cycle count n (bits 12-31). Counts that do not fit are
// stored as kBlockCycleCountOverflow; such a block's value is then exactly
// its own count (later standalone counts go to the next block).
inline constexpr int kBlockCycleCountShift = 12;
inline constexpr uint32_t kBlockCycleCountOverflow = 0xfffff;

// The bits of an enum field of an OpenCSD structure. OpenCSD leaves some
// fields unset in some elements (e.g. the ISA of a PE_CONTEXT decoded from
// corrupt trace): reading them as the enum type would be undefined.
template <typename E>
uint32_t RawEnum(const E& field) {
  static_assert(sizeof(E) == sizeof(uint32_t));
  uint32_t value;
  std::memcpy(&value, &field, sizeof(value));
  return value;
}

Isa IsaFromOcsd(uint32_t raw_isa);  // an ocsd_isa value
ocsd_isa OcsdFromIsa(Isa isa);

// How the last instruction of a range transferred control. A branch counts
// as taken only when OpenCSD says it executed (E atom); BR + link is a call,
// BR_INDIRECT + V8_RET / V7_IMPLIED_RET a return, + V8_ERET an exception
// return. ISB, DSB/DMB, WFI/WFE and TSTART waypoints end a block without a
// branch (kOther); a range ended by anything else (exception, trace off,
// missing memory) has kNone.
// `type` and `subtype` are ocsd_instr_type / ocsd_instr_subtype values.
BranchKind ClassifyLastInstruction(uint32_t type, uint32_t subtype,
                                   bool executed, bool conditional);

// The kBlock event for an INSTR_RANGE element (offset, time and region are
// left for the caller).
Event BlockFromRange(const ocsd_generic_trace_elem& elem);

// trc_pkt_lister's text for a block, produced by OpenCSD's own printer from
// the block's fields, e.g. "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec
// range=0x1000:[0x1010] num_i(4) last_sz(4) (ISA=A64) E BR  b+link )".
std::string FormatInstrRange(const Event& block);

// The whole lister line: "Idx:<offset>; ID:<trace id hex>; " +
// FormatInstrRange(block).
std::string FormatInstrRangeLine(uint32_t trace_id, const Event& block);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_INSTR_RANGE_H_
