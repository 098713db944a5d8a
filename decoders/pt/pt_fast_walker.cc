// The fast path's flow walker; see pt_fast_walker.h.
#include "decoders/pt/pt_fast_walker.h"

#include "decoders/pt/pt_events.h"
#include "decoders/pt/pt_flow.h"

namespace hwt::pt {
namespace {

std::optional<Isa> ExecIsa(const pt_packet_mode_exec& exec) {
  const Isa isa = IsaOf(pt_get_exec_mode(&exec));
  if (isa == Isa::kUnknown) return std::nullopt;
  return isa;
}

// Packets that do not touch the flow: padding, timing, maintenance.
bool IsFlowNeutral(pt_packet_type type) {
  switch (type) {
    case ppt_pad:
    case ppt_tsc:
    case ppt_tma:
    case ppt_cbr:
    case ppt_mtc:
    case ppt_cyc:
    case ppt_mnt:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool LastIp::Update(const pt_packet_ip& packet, uint64_t* ip) {
  // Intel SDM 32.4.2.2, IP compression; libipt's pt_last_ip. A PSB resets
  // the last IP to 0, from which updates are valid.
  switch (packet.ipc) {
    case pt_ipc_suppressed:
      return false;
    case pt_ipc_update_16:
      last = (last & ~uint64_t{0xffff}) | (packet.ip & 0xffff);
      break;
    case pt_ipc_update_32:
      last = (last & ~uint64_t{0xffffffff}) | (packet.ip & 0xffffffff);
      break;
    case pt_ipc_update_48:
      last = (last & ~uint64_t{0xffffffffffff}) | (packet.ip & 0xffffffffffff);
      break;
    case pt_ipc_sext_48:
      last = static_cast<uint64_t>(static_cast<int64_t>(packet.ip << 16) >> 16);
      break;
    case pt_ipc_full:
      last = packet.ip;
      break;
    default:
      return false;
  }
  *ip = last;
  return true;
}

void FastWalker::Configure(const pt_config& config) {
  follow_disables_ = config.addr_filter.config.addr_cfg == 0;
  config_ = config;
  skd022_ = config.errata.skd022;
}

PsbState FastWalker::ReadPsbPlus(pt_packet_decoder* decoder, uint64_t psb) {
  PsbState state;
  if (pt_pkt_sync_set(decoder, psb) < 0) return state;
  // The PSB resets IP compression.
  LastIp last_ip;
  pt_packet packet;
  if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0 ||
      packet.type != ppt_psb) {
    return state;
  }
  for (;;) {
    if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0) return state;
    switch (packet.type) {
      case ppt_psbend:
        pt_pkt_get_offset(decoder, &state.end);
        state.usable = true;
        return state;
      case ppt_fup:
        if (!last_ip.Update(packet.payload.ip, &state.ip)) return state;
        state.enabled = true;
        break;
      case ppt_mode:
        if (packet.payload.mode.leaf == pt_mol_exec) {
          const std::optional<Isa> isa = ExecIsa(packet.payload.mode.bits.exec);
          if (!isa) return state;
          state.isa = *isa;
          state.has_isa = true;
        } else if (packet.payload.mode.bits.tsx.intx ||
                   packet.payload.mode.bits.tsx.abrt) {
          return state;  // inside a transaction
        }
        break;
      case ppt_pip:  // the address space (one image per buffer here)
      case ppt_vmcs:
        state.context = true;
        break;
      case ppt_pad:
        break;
      case ppt_cbr:
        state.cbr = packet.payload.cbr.ratio;
        state.timing_packets.push_back(packet);
        break;
      case ppt_mnt:
        return state;  // libipt reports it as an event
      default:
        if (!IsFlowNeutral(packet.type)) return state;
        state.timing = true;
        state.timing_packets.push_back(packet);
        break;
    }
  }
}

bool FastWalker::ClockThroughPsb(const PsbState& psb) {
  if (clock_ == nullptr) return !psb.timing;
  clock_->Psb(config_);
  for (const pt_packet& packet : psb.timing_packets) {
    if (!clock_->Apply(packet, /*header=*/true, config_)) return false;
  }
  // libipt reads the PSB+'s status events at the PSBEND: what follows, up
  // to the next query, has their time.
  if (psb.has_isa || psb.cbr) {
    FetchEvent(clock_->Now());
  } else {
    query_time_ = clock_->Now();
  }
  return true;
}

bool FastWalker::TakeTiming(const pt_packet& packet) {
  switch (packet.type) {
    case ppt_tsc:
    case ppt_tma:
    case ppt_mtc:
    case ppt_cyc:
      return clock_ != nullptr && clock_->Apply(packet, false, config_);
    default:
      // A CBR outside PSB+ is an event of its own in libipt; MNT too.
      return false;
  }
}

void FastWalker::Restart(const PsbState& psb) {
  return_size_ = 0;
  return_head_ = 0;
  resume_ip_.reset();
  enabled_ = psb.enabled;
  if (psb.has_isa) isa_ = psb.isa;
  cache_->Revalidate();
  block_ = enabled_ ? cache_->At(psb.ip, isa_) : nullptr;
  // libipt stands after the PSB+'s status events (the caller has set the
  // clock there).
  query_time_ = Now();
}

FastBlock* FastWalker::Settle() {
  FastBlock* block = block_;
  uint64_t blocks = 0;
  uint64_t insns = 0;
  while (block->end == FastBlockEnd::kJump ||
         block->end == FastBlockEnd::kCall) {
    count_ += block->ninsn;
    if (++blocks > kMaxBlocksWithoutTrace ||
        (insns += block->ninsn) > kMaxInsnsWithoutTrace) {
      return nullptr;
    }
    if (records_ != nullptr) EmitBlock(block, block->branch);
    if (block->end == FastBlockEnd::kCall) Push(block->fall);
    block = cache_->Next(block, 0, isa_);
  }
  return block_ = block;
}

bool FastWalker::TakeTnt(uint64_t bits, int count) {
  for (int i = count - 1; i >= 0; --i) {
    const int taken = static_cast<int>((bits >> i) & 1);
    FastBlock* block = Settle();
    if (block == nullptr) return false;
    // libipt fetches the packet for its first bit, after the blocks that
    // need no trace.
    if (i == count - 1) query_time_ = tnt_time_;
    if (block->end == FastBlockEnd::kCondJump) {
      count_ += block->ninsn;
      if (records_ != nullptr) {
        // A branch to the next instruction goes there either way; libipt's
        // output calls it not taken (pt_event_output.h).
        EmitBlock(block, taken && block->target != block->fall
                             ? BranchKind::kCondTaken
                             : BranchKind::kCondNotTaken);
        if (i == 0) MarkTrailing();
      }
      block_ = cache_->Next(block, taken, isa_);
    } else if (block->end == FastBlockEnd::kReturn) {
      // A compressed return: taken, to the last pushed return address.
      if (!taken || return_size_ == 0) return false;
      count_ += block->ninsn;
      if (records_ != nullptr) {
        EmitBlock(block, BranchKind::kReturn);
        if (i == 0) MarkTrailing();
      }
      --return_size_;
      block_ = cache_->At(
          returns_[(return_head_ + return_size_) % kReturnDepth], isa_);
    } else {
      return false;
    }
  }
  return true;
}

bool FastWalker::TakeTip(uint64_t ip) {
  FastBlock* block = Settle();
  if (block == nullptr) return false;
  query_time_ = Now();
  switch (block->end) {
    case FastBlockEnd::kCallIndirect:
      Push(block->fall);
      [[fallthrough]];
    case FastBlockEnd::kJumpIndirect:
    case FastBlockEnd::kReturn:  // not compressed: nothing is popped
    case FastBlockEnd::kFar:
      count_ += block->ninsn;
      if (records_ != nullptr) {
        EmitBlock(block, block->branch);
        MarkTrailing();
      }
      block_ = cache_->At(ip, isa_);
      return true;
    default:
      return false;
  }
}

bool FastWalker::TakeDisable() {
  // TIP.PGD without a FUP: tracing stops at the next branch that needs an
  // IP (a syscall leaving user space, a branch out of the filter ranges).
  // libipt fetches the disable (an event) before it goes on.
  const uint64_t time = Now();
  FetchEvent(time);
  FastBlock* block = Settle();
  if (block == nullptr) return false;
  switch (block->end) {
    case FastBlockEnd::kCallIndirect:
      Push(block->fall);
      [[fallthrough]];
    case FastBlockEnd::kJumpIndirect:
    case FastBlockEnd::kReturn:
    case FastBlockEnd::kFar:
      count_ += block->ninsn;
      if (records_ != nullptr) {
        EmitBlock(block, block->branch);
        EmitEvent(EventKind::kDisabled, 0, kPtIpSuppressed, 0, time);
        resume_ip_ = block->fall;
      }
      enabled_ = false;
      block_ = nullptr;
      return true;
    default:
      return false;
  }
}

bool FastWalker::WalkToAsync(uint64_t ip) {
  if (!WalkTo(ip)) return false;
  // With a branch at the FUP's address the event may belong to the branch
  // (libipt applies errata such as SKD022 there, for VMLAUNCH and the
  // like): libipt's.
  return block_->ninsn > 1;
}

bool FastWalker::WalkTo(uint64_t ip) {
  FastBlock* block = block_;
  uint64_t blocks = 0;
  for (;;) {
    uint64_t previous = 0;
    if (const std::optional<uint32_t> before =
            cache_->InsnsBefore(*block, ip, isa_, &previous)) {
      count_ += *before;
      if (records_ != nullptr && *before > 0) {
        EmitPartial(block, *before, previous, ip);
      }
      block_ = *before == 0 ? block : cache_->At(ip, isa_);
      return true;
    }
    if ((block->end != FastBlockEnd::kJump &&
         block->end != FastBlockEnd::kCall) ||
        ++blocks > kMaxBlocksWithoutTrace) {
      return false;
    }
    count_ += block->ninsn;
    if (records_ != nullptr) EmitBlock(block, block->branch);
    if (block->end == FastBlockEnd::kCall) Push(block->fall);
    block = cache_->Next(block, 0, isa_);
  }
}

void FastWalker::EmitBlock(const FastBlock* block, BranchKind branch) {
  if (block->region == 0) failed_ = true;
  Event& event = records_->emplace_back();
  event.kind = EventKind::kBlock;
  event.branch = branch;
  event.isa = isa_;
  event.ninsn = block->ninsn;
  event.ip = block->start;
  event.last_ip = block->last;
  event.next_ip = block->fall;
  event.offset = packet_offset_;
  event.region = block->region;
  event.time = query_time_;
  if (block->id != 0) {
    // The block's fields above are the cached block's own, so its id names
    // them (kBlockDecoderId); isa_ is the cache's mode the block was found in.
    event.code = kBlockDecoderId;
    event.value = block->id;
  }
}

void FastWalker::EmitPartial(const FastBlock* block, uint32_t ninsn,
                             uint64_t last, uint64_t next) {
  EmitBlock(block, BranchKind::kNone);
  Event& event = records_->back();
  // Part of the cached block: not what its id stands for.
  event.code &= ~kBlockDecoderId;
  event.value = 0;
  event.ninsn = ninsn;
  event.last_ip = last;
  event.next_ip = next;
}

void FastWalker::EmitEvent(EventKind kind, uint64_t ip, uint32_t code,
                           uint64_t next_ip, uint64_t time) {
  Event& event = records_->emplace_back();
  event.kind = kind;
  event.ip = ip;
  event.code = code | (time != 0 ? kPtHasTsc : 0);
  event.next_ip = next_ip;
  event.offset = packet_offset_;
  event.time = time;
}

void FastWalker::TakeEnable(uint64_t ip) {
  enabled_ = true;
  block_ = cache_->At(ip, isa_);
  const uint64_t time = Now();
  query_time_ = time;
  if (records_ == nullptr) return;
  // libipt: resumed where the flow stood when tracing stopped.
  EmitEvent(EventKind::kEnabled, ip, resume_ip_ == ip ? kPtResumed : 0, 0,
            time);
  if (pending_exec_) {
    EmitEvent(EventKind::kExecMode, ip, 0, 0, time);
    records_->back().isa = *pending_exec_;
    pending_exec_.reset();
  }
}

std::optional<uint64_t> FastWalker::Walk(pt_packet_decoder* decoder,
                                         const PsbState& psb, uint64_t end,
                                         const PsbState* next) {
  count_ = 0;
  failed_ = false;
  trailing_ = kNoBlock;
  pending_exec_.reset();
  last_ip_.last = psb.enabled ? psb.ip : 0;
  if (pt_pkt_sync_set(decoder, psb.end) < 0) return std::nullopt;
  uint64_t offset = psb.end;
  // Whether a packet of the flow (TNT, TIP) came. libipt cannot synchronise
  // on a PSB+ that no such packet follows before the end of the trace, and
  // reports the bytes as lost; such segments are rare and left to it.
  bool flow = false;
  // A FUP waiting for its TIP or TIP.PGD, and its IP.
  bool fup = false;
  uint64_t fup_ip = 0;
  pt_packet packet;
  while (offset < end) {
    packet_offset_ = offset;
    if (pt_pkt_next(decoder, &packet, sizeof(packet)) < 0) return std::nullopt;
    pt_pkt_get_offset(decoder, &offset);
    bool ok = true;
    uint64_t ip = 0;
    switch (packet.type) {
      case ppt_tnt_8:
      case ppt_tnt_64:
        tnt_time_ = Now();
        trailing_ = kNoBlock;
        ok = enabled_ &&
             TakeTnt(packet.payload.tnt.payload, packet.payload.tnt.bit_size);
        break;
      case ppt_fup:
        // An asynchronous event (interrupt, exception) at `ip`: the flow
        // runs up to the instruction there, which did not execute; the TIP
        // or TIP.PGD that follows says what came next.
        ok = enabled_ && !fup && last_ip_.Update(packet.payload.ip, &fup_ip);
        fup = true;
        fup_time_ = Now();
        break;
      case ppt_tip:
        if (!fup) trailing_ = kNoBlock;
        ok = enabled_ && last_ip_.Update(packet.payload.ip, &ip);
        if (ok && fup) {
          // libipt fetches the event (at the TIP) before it walks to it.
          FetchEvent(Now());
          ok = WalkToAsync(fup_ip);
          if (records_ != nullptr) {
            EmitEvent(EventKind::kException, fup_ip, 0, ip, fup_time_);
          }
          block_ = cache_->At(ip, isa_);
          fup = false;
        } else if (ok) {
          ok = TakeTip(ip);
        }
        break;
      case ppt_tip_pge:
        ok = !enabled_ && last_ip_.Update(packet.payload.ip, &ip);
        if (ok) TakeEnable(ip);
        break;
      case ppt_tip_pgd:
        // Only a disable without an IP (leaving the traced privilege level)
        // is followed: one with an IP may bind to a direct branch.
        if (last_ip_.Update(packet.payload.ip, &ip) || !follow_disables_) {
          ok = false;
        } else if (enabled_ && fup) {
          // SKD022: a VM entry's disable comes with a FUP at the
          // VMLAUNCH/VMRESUME, which libipt makes a synchronous disable.
          if (skd022_ && cache_->IsVmEntry(fup_ip)) return std::nullopt;
          // Asynchronous: tracing stopped at the FUP's instruction.
          FetchEvent(Now());
          ok = WalkToAsync(fup_ip);
          if (records_ != nullptr) {
            EmitEvent(EventKind::kDisabled, fup_ip,
                      kPtIpSuppressed | kPtAsync | kDisabledInterrupted, 0,
                      fup_time_);
            resume_ip_ = fup_ip;
          }
          enabled_ = false;
          block_ = nullptr;
          fup = false;
        } else {
          ok = enabled_ && TakeDisable();
        }
        break;
      case ppt_mode:
        if (packet.payload.mode.leaf == pt_mol_exec && !enabled_) {
          // Applies from the TIP.PGE that follows.
          const std::optional<Isa> isa = ExecIsa(packet.payload.mode.bits.exec);
          ok = isa.has_value();
          if (ok) isa_ = *isa;
          if (ok) pending_exec_ = isa;
        } else {
          ok = false;
        }
        break;
      default:
        // OVF, PIP, TSX, PTW, power events, PSB, ... are libipt's; in event
        // mode timing packets move the clock.
        if (packet.type == ppt_pad) break;
        if (!IsFlowNeutral(packet.type)) {
          ok = false;
        } else if (records_ != nullptr) {
          ok = TakeTiming(packet);
        }
        break;
    }
    // A FUP binds to the TIP or TIP.PGD right after it (timing packets may
    // come between); anything else with it (TSX, PTWRITE, MWAIT, ...) is
    // libipt's.
    if (fup && packet.type != ppt_fup && !IsFlowNeutral(packet.type)) {
      ok = false;
    }
    if (!ok) return std::nullopt;
    flow |= packet.type == ppt_tnt_8 || packet.type == ppt_tnt_64 ||
            packet.type == ppt_tip || packet.type == ppt_tip_pge ||
            packet.type == ppt_tip_pgd;
  }
  if (!flow || fup || failed_) return std::nullopt;
  if (offset != end) return std::nullopt;  // a packet ran across the PSB
  // At the end of the chunk libipt stops with the last packet: the
  // instructions after it are not known to have run (pts_eos).
  if (next == nullptr) return count_;
  if (!EnterNext(*next, end)) return std::nullopt;
  return count_;
}

bool FastWalker::EnterNext(const PsbState& next, uint64_t end) {
  if (!next.usable || next.enabled != enabled_) return false;
  // A libipt run that starts at a PSB without a FUP leaves out the enable
  // that follows (its resumed flag depends on the trace before the PSB,
  // pt_seam.h), so a segment that starts with tracing off is libipt's; but
  // the walker goes on through such a PSB when the flow comes to it with
  // tracing off (it keeps where tracing stopped, as libipt's flow does) and
  // the PSB+ has no execution mode, which libipt would bind to nothing.
  if (records_ != nullptr && !next.enabled && (next.has_isa || pending_exec_)) {
    return false;
  }
  if (records_ != nullptr && !ClockThroughPsb(next)) return false;
  if (records_ != nullptr && next.cbr) {
    // libipt reports the PSB+'s status when it reads the PSB, after the
    // block that took the last packet before it (pt_seam.h).
    packet_offset_ = end;
    EmitEvent(EventKind::kCoreBusRatio, 0, kPtStatusUpdate, 0, Now());
    records_->back().value = *next.cbr;
  }
  if (enabled_) {
    if (next.has_isa && next.isa != isa_) return false;
    packet_offset_ = end;
    if (!WalkTo(next.ip) || failed_) return false;
  } else if (next.has_isa) {
    isa_ = next.isa;
  }
  return true;
}

}  // namespace hwt::pt
