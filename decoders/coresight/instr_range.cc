// INSTR_RANGE element <-> kBlock event, and the lister text of a block.
#include "decoders/coresight/instr_range.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace hwt::coresight {

Isa IsaFromOcsd(uint32_t isa) {
  switch (isa) {
    case ocsd_isa_arm:
      return Isa::kA32;
    case ocsd_isa_thumb2:
      return Isa::kT32;
    case ocsd_isa_aarch64:
      return Isa::kA64;
    default:
      return Isa::kUnknown;
  }
}

ocsd_isa OcsdFromIsa(Isa isa) {
  switch (isa) {
    case Isa::kA32:
      return ocsd_isa_arm;
    case Isa::kT32:
      return ocsd_isa_thumb2;
    case Isa::kA64:
      return ocsd_isa_aarch64;
    default:
      return ocsd_isa_unknown;
  }
}

BranchKind ClassifyLastInstruction(uint32_t type, uint32_t subtype,
                                   bool executed, bool conditional) {
  switch (type) {
    case OCSD_INSTR_BR:
      // A branch that did not execute fell through (a failed condition, or
      // an N atom on a waypoint).
      if (!executed) return BranchKind::kCondNotTaken;
      if (subtype == OCSD_S_INSTR_BR_LINK) return BranchKind::kCall;
      return conditional ? BranchKind::kCondTaken : BranchKind::kJump;
    case OCSD_INSTR_BR_INDIRECT:
      if (!executed) return BranchKind::kCondNotTaken;
      switch (subtype) {
        case OCSD_S_INSTR_BR_LINK:
          return BranchKind::kCallIndirect;
        case OCSD_S_INSTR_V8_RET:
        case OCSD_S_INSTR_V7_IMPLIED_RET:
          return BranchKind::kReturn;
        case OCSD_S_INSTR_V8_ERET:
          return BranchKind::kFarReturn;
        default:
          return BranchKind::kJumpIndirect;
      }
    case OCSD_INSTR_ISB:
    case OCSD_INSTR_DSB_DMB:
    case OCSD_INSTR_WFI_WFE:
    case OCSD_INSTR_TSTART:
      return BranchKind::kOther;
    default:
      return BranchKind::kNone;
  }
}

Event BlockFromRange(const ocsd_generic_trace_elem& elem) {
  Event e;
  e.kind = EventKind::kBlock;
  e.isa = IsaFromOcsd(RawEnum(elem.isa));
  e.ip = elem.st_addr;
  e.next_ip = elem.en_addr;
  e.last_ip = elem.en_addr - elem.last_instr_sz;
  e.ninsn = elem.num_instr_range;
  const uint32_t type = RawEnum(elem.last_i_type);
  const uint32_t subtype = RawEnum(elem.last_i_subtype);
  e.branch = ClassifyLastInstruction(type, subtype, elem.last_instr_exec != 0,
                                     elem.last_instr_cond != 0);
  e.code = (type & kBlockInstrTypeMask) |
           ((subtype << kBlockInstrSubtypeShift) & kBlockInstrSubtypeMask);
  if (elem.last_instr_exec) e.code |= kBlockLastExecuted;
  if (elem.last_instr_cond) e.code |= kBlockLastConditional;
  if (elem.has_cc) {
    e.code |= kBlockHasCycleCount;
    e.code |= std::min<uint32_t>(elem.cycle_count, kBlockCycleCountOverflow)
              << kBlockCycleCountShift;
    e.value = elem.cycle_count;
  }
  return e;
}

std::string FormatInstrRange(const Event& block) {
  ocsd_generic_trace_elem elem;
  ocsd_gen_elem_init(&elem, OCSD_GEN_TRC_ELEM_INSTR_RANGE);
  elem.isa = OcsdFromIsa(block.isa);
  elem.st_addr = block.ip;
  elem.en_addr = block.next_ip;
  elem.num_instr_range = block.ninsn;
  elem.last_instr_sz = static_cast<uint32_t>(block.next_ip - block.last_ip);
  elem.last_i_type =
      static_cast<ocsd_instr_type>(block.code & kBlockInstrTypeMask);
  elem.last_i_subtype = static_cast<ocsd_instr_subtype>(
      (block.code & kBlockInstrSubtypeMask) >> kBlockInstrSubtypeShift);
  elem.last_instr_exec = (block.code & kBlockLastExecuted) != 0;
  elem.last_instr_cond = (block.code & kBlockLastConditional) != 0;
  if (block.code & kBlockHasCycleCount) {
    elem.has_cc = 1;
    uint32_t own = block.code >> kBlockCycleCountShift;
    elem.cycle_count = own == kBlockCycleCountOverflow
                           ? static_cast<uint32_t>(block.value)
                           : own;
  }
  char text[256];
  if (ocsd_gen_elem_str(&elem, text, sizeof(text)) != OCSD_OK) {
    return absl::StrFormat(
        "OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0x%x:[0x%x] "
        "num_i(%u))",
        block.ip, block.next_ip, block.ninsn);
  }
  return text;
}

std::string FormatInstrRangeLine(uint32_t trace_id, const Event& block) {
  return absl::StrFormat("Idx:%u; ID:%x; %s", block.offset, trace_id,
                         FormatInstrRange(block));
}

}  // namespace hwt::coresight
