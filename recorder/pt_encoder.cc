// PtEncoder: an execution (instruction addresses) -> Intel PT packets.
//
// Packet rules (Intel SDM vol. 3C ch. 33 "Intel Processor Trace", checked
// against libipt 2.0.5's decoders, which are the reference here):
//
// - Start: PSB+ with PacketEn=0: PSB, [TSC], [TMA], CBR, PSBEND (no MODE.Exec,
//   no FUP: the SDM lists both as "if PacketEn=1"); then MODE.Exec (the SDM's
//   packet table: MODE.Exec precedes TIP.PGE when there was none since the
//   last PSB, or the mode changed) and TIP.PGE(first ip).
// - Conditional branches (jcc, loop, jrcxz): one TNT bit, taken = next ip is
//   not the fall-through. Bits are buffered and written as TNT-8 (6 bits) or,
//   with long_tnt, TNT-64 (47 bits) when full, and before any FUP, TIP*, PSB,
//   OVF, so that bit order and binding are preserved. Timing packets do not
//   flush them (as on hardware).
// - Direct jumps and calls: nothing. Indirect jumps and calls: TIP(target).
// - Near calls push the return address on a 64-entry return-compression stack
//   (the oldest entry is dropped on overflow), except a direct call to the next
//   instruction ("call $+5" in PIC code), which libipt's decoders do not push
//   either. A near return to the top of that stack is a taken TNT bit and pops;
//   any other return is TIP(target) and does not pop (libipt pops only on a
//   compressed return, so popping here would desynchronise it). The stack is
//   emptied at every PSB and OVF (returns to older calls become TIPs; libipt
//   keeps its own stale entries, which never match a compressed return).
// - IP packets (FUP, TIP, TIP.PGE, TIP.PGD) use the shortest IPBytes form
//   relative to the last IP (update-16, update-32, then sext-48 before
//   update-48, then full). The last IP is the IP of the last IP packet that had
//   one and is reset to 0 at PSB and OVF (libipt resets at both).
// - Far calls (syscall, sysenter, int n, int3, far call): with OS=0 the target
//   is in the kernel: TIP.PGD with IP suppressed (libipt binds a suppressed
//   TIP.PGD to far branches). At the next user instruction: [MODE.Exec,]
//   TIP.PGE(ip). Far returns/jumps executed in user mode stay there: TIP.
// - A flow discontinuity the instruction cannot explain (the next ip is neither
//   the fall-through nor the direct target: a signal, a fault, an interrupt):
//   asynchronous disable FUP(ip that did not run) + TIP.PGD(suppressed), then
//   TIP.PGE(next ip). For a conditional branch the bit is written not-taken.
// - PSB+ at the first instruction boundary after psb_period bytes since the
//   previous PSB (and at least one packet after its PSBEND, which only matters
//   for test periods shorter than a PSB+): pending TNT, [CYC], PSB, [TSC],
//   [TMA], CBR (always: the SDM gives it no enable), and when tracing is on
//   MODE.Exec and FUP(ip of the next instruction), PSBEND.
// - End: if the last instruction was a far call (exit) its TIP.PGD ended
//   tracing. Otherwise the recording stopped in user mode, as an interrupt
//   would: FUP(next ip) + TIP.PGD(suppressed) when the next ip follows from
//   the instruction; after an indirect branch (target unknown) TIP.PGD with
//   the fall-through as placeholder target (libipt binds a TIP.PGD with an IP
//   to any indirect branch). A bare suppressed TIP.PGD is not used there:
//   libipt binds one only to a far branch (or CPL/CR3 change) and would
//   decode past the last instruction.
// - Overflow injection: pending TNT bits are written, then every packet is
//   dropped until the resume instruction: OVF, then FUP(ip) if tracing is on
//   there (the SDM: "FUP if overflow resolves while ContextEn=1"), else
//   MODE.Exec, TIP.PGE(ip) (as in libipt's ovf-tip_pge test). An overflow
//   still running at the end leaves OVF as the last packet. A decoder stops
//   after the last instruction bound to a packet written before the OVF (it
//   processes the overflow as soon as it reads it), so the lost range starts
//   there, not at the overflow point.
// - Timing (PtTimingOptions documents the clock): MTC at every CTC edge of bit
//   mtc_freq, also while tracing is off (MTC depends on TriggerEn only); CYC
//   (CycThresh 0) before TIP, TIP.PGE, TIP.PGD, FUP, MODE.Exec and at the
//   first branch of each TNT packet (the SDM: a TNT's CYC gives the time of its
//   first branch); a CYC also precedes every MTC (timed at the CTC edge) and
//   every PSB, so libipt's time model, which restarts its fast counter at MTC
//   and TSC, sees exact cycle counts. TSC and TMA (CTC and the fast counter at
//   that TSC) in PSB+.
#include "recorder/pt_encoder.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"

namespace hwt::recorder {
namespace {

constexpr size_t kRetStackDepth = 64;
constexpr int kShortTntBits = 6;
constexpr int kLongTntBits = 47;
constexpr size_t kInsnCacheSize = 1 << 16;
constexpr size_t kMaxPacketBytes = 32;

// RTIT_CTL bits.
constexpr uint64_t kTraceEn = 1ull << 0;
constexpr uint64_t kCycEn = 1ull << 1;
constexpr uint64_t kUser = 1ull << 3;
constexpr uint64_t kToPA = 1ull << 8;
constexpr uint64_t kMtcEn = 1ull << 9;
constexpr uint64_t kTscEn = 1ull << 10;
constexpr uint64_t kDisRetc = 1ull << 11;
constexpr uint64_t kBranchEn = 1ull << 13;
constexpr int kMtcFreqShift = 14;
constexpr int kPsbFreqShift = 24;

// The shortest IP compression for `ip` given the decoder's last IP.
pt_ip_compression ChooseIpc(uint64_t ip, uint64_t last_ip) {
  if ((ip >> 16) == (last_ip >> 16)) return pt_ipc_update_16;
  if ((ip >> 32) == (last_ip >> 32)) return pt_ipc_update_32;
  const uint64_t sext =
      static_cast<uint64_t>(static_cast<int64_t>(ip << 16) >> 16);
  if (sext == ip) return pt_ipc_sext_48;
  if ((ip >> 48) == (last_ip >> 48)) return pt_ipc_update_48;
  return pt_ipc_full;
}

// PSBFreq field: PSB every 2 KiB << field bytes; the smallest field whose
// period is at least `period` (0 for shorter test periods).
uint32_t PsbFreqField(uint64_t period) {
  uint32_t field = 0;
  while (field < 15 && (uint64_t{2048} << field) < period) ++field;
  return field;
}

struct CachedInsn {
  uint64_t ip = ~uint64_t{0};
  uint64_t generation = 0;  // valid while it equals Impl::generation
  uint64_t fall = 0;
  uint64_t target = 0;
  x86::InsnClass cls = x86::InsnClass::kOther;
};

}  // namespace

struct PtEncoder::Impl {
  Impl(PtEncoder* self, InsnSource* insns, PtEncoderOptions options,
       Writer writer)
      : self(self),
        insns(insns),
        opt(std::move(options)),
        writer(std::move(writer)),
        cache(kInsnCacheSize) {
    status = Validate();
    if (!status.ok()) return;
    buffer.resize(std::max<size_t>(opt.buffer_size, 4 * kMaxPacketBytes));
    struct pt_config config;
    pt_config_init(&config);
    config.begin = buffer.data();
    config.end = buffer.data() + buffer.size();
    encoder = pt_alloc_encoder(&config);
    if (encoder == nullptr) {
      status = absl::InternalError("pt_alloc_encoder failed");
    }
    tnt_capacity = opt.long_tnt ? kLongTntBits : kShortTntBits;
  }

  ~Impl() {
    if (encoder != nullptr) pt_free_encoder(encoder);
  }

  absl::Status Validate() const {
    const PtTimingOptions& t = opt.timing;
    if (t.any()) {
      if (t.cbr == 0 || t.nom_freq == 0) {
        return absl::InvalidArgumentError(
            "PT timing: cbr and nom_freq must be > 0");
      }
      if (t.cpuid_15_eax == 0 || t.cpuid_15_ebx == 0) {
        return absl::InvalidArgumentError(
            "PT timing: CPUID 0x15 ratio must be non-zero");
      }
      // TMA's fast counter has 9 bits: a CTC tick must be < 512 TSC ticks.
      if (t.mtc && t.cpuid_15_ebx / t.cpuid_15_eax >= 512) {
        return absl::InvalidArgumentError(
            "PT timing: TSC/CTC ratio must be < 512 (TMA fast counter)");
      }
      if (t.mtc_freq > 15) {
        return absl::InvalidArgumentError("PT timing: mtc_freq must be <= 15");
      }
    }
    uint64_t previous_end = 1;
    for (const PtOverflow& o : opt.overflows) {
      if (o.instructions == 0 || o.first_instruction < previous_end) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "PT overflow at instruction %d: overflows must be sorted, "
            "non-overlapping, non-empty, start after instruction 0 and "
            "after the previous resume point",
            o.first_instruction));
      }
      previous_end = o.first_instruction + o.instructions + 1;
    }
    return absl::OkStatus();
  }

  // --- Output ---------------------------------------------------------------

  uint64_t Offset() const { return flushed + used; }

  void FlushBuffer() {
    if (used == 0) return;
    if (status.ok()) {
      absl::Status s = writer(
          std::string_view(reinterpret_cast<const char*>(buffer.data()), used));
      if (!s.ok()) status = s;
    }
    flushed += used;
    used = 0;
    pt_enc_sync_set(encoder, 0);
  }

  void Emit(const pt_packet& packet, uint64_t cycle) {
    if (in_overflow || !status.ok()) return;
    if (buffer.size() - used < kMaxPacketBytes) FlushBuffer();
    const uint64_t offset = Offset();
    int size = pt_enc_next(encoder, &packet);
    if (size < 0) {
      status = absl::InternalError(
          absl::StrFormat("pt_enc_next failed at trace offset %d: %s", offset,
                          pt_errstr(pt_errcode(size))));
      return;
    }
    used += static_cast<size_t>(size);
    self->stats_.bytes += static_cast<uint64_t>(size);
    if (packet.type < self->stats_.packets.size()) {
      ++self->stats_.packets[packet.type];
    }
    if (self->observer_) {
      PtPacketInfo info;
      info.offset = offset;
      info.packet = packet;
      info.instruction = current_index;
      info.first_instruction =
          (packet.type == ppt_tnt_8 || packet.type == ppt_tnt_64)
              ? tnt_first_index
              : current_index;
      info.cycle = cycle;
      info.tsc = TscAtCycle(opt.timing, cycle);
      self->observer_(info);
    }
  }

  void EmitSimple(pt_packet_type type, uint64_t cycle) {
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = type;
    Emit(p, cycle);
  }

  void EmitIp(pt_packet_type type, uint64_t ip, uint64_t cycle) {
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = type;
    p.payload.ip.ipc = ChooseIpc(ip, last_ip);
    p.payload.ip.ip = ip;
    Emit(p, cycle);
    last_ip = ip;
  }

  void EmitSuppressedIp(pt_packet_type type, uint64_t cycle) {
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = type;
    p.payload.ip.ipc = pt_ipc_suppressed;
    Emit(p, cycle);
  }

  void EmitModeExec(uint64_t cycle) {
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = ppt_mode;
    p.payload.mode.leaf = pt_mol_exec;
    p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
    Emit(p, cycle);
  }

  // --- Timing ---------------------------------------------------------------

  void StartClock() {
    if (!opt.timing.mtc) return;
    const uint64_t period = uint64_t{1} << opt.timing.mtc_freq;
    next_mtc_ctc =
        (CtcAtTsc(opt.timing, TscAtCycle(opt.timing, 0)) / period + 1) * period;
    next_mtc_cycle = CycleAtTsc(opt.timing, TscAtCtc(opt.timing, next_mtc_ctc));
  }

  // CYC with the cycles since the previous CYC. While packets are dropped the
  // counter keeps running: the next CYC after an overflow covers the gap.
  void EmitCyc(uint64_t cycle) {
    if (!opt.timing.cyc || in_overflow || cycle <= last_cyc_cycle) return;
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = ppt_cyc;
    p.payload.cyc.value = cycle - last_cyc_cycle;
    Emit(p, cycle);
    last_cyc_cycle = cycle;
  }

  // MTCs for every CTC edge up to `cycle`.
  void AdvanceClock(uint64_t cycle) {
    if (!opt.timing.mtc) return;
    const uint64_t period = uint64_t{1} << opt.timing.mtc_freq;
    while (next_mtc_cycle <= cycle) {
      EmitCyc(next_mtc_cycle);
      pt_packet p;
      std::memset(&p, 0, sizeof(p));
      p.type = ppt_mtc;
      p.payload.mtc.ctc =
          static_cast<uint8_t>((next_mtc_ctc >> opt.timing.mtc_freq) & 0xff);
      Emit(p, next_mtc_cycle);
      next_mtc_ctc += period;
      next_mtc_cycle =
          CycleAtTsc(opt.timing, TscAtCtc(opt.timing, next_mtc_ctc));
    }
  }

  // --- TNT and return compression -------------------------------------------

  void AddTnt(bool taken, uint64_t index, uint64_t cycle) {
    ++self->stats_.tnt_bits;
    if (in_overflow) return;
    if (tnt_count == 0) {
      EmitCyc(cycle);
      tnt_first_cycle = cycle;
      tnt_first_index = index;
    }
    tnt_bits = (tnt_bits << 1) | (taken ? 1 : 0);
    ++tnt_count;
    tnt_last_index = index;
    if (tnt_count == tnt_capacity) FlushTnt();
  }

  void FlushTnt() {
    if (tnt_count == 0) return;
    pt_packet p;
    std::memset(&p, 0, sizeof(p));
    p.type = tnt_count > kShortTntBits ? ppt_tnt_64 : ppt_tnt_8;
    p.payload.tnt.bit_size = static_cast<uint8_t>(tnt_count);
    p.payload.tnt.payload = tnt_bits;
    Emit(p, tnt_first_cycle);
    Deliver(tnt_last_index + 1);
    tnt_count = 0;
    tnt_bits = 0;
  }

  void PushReturn(uint64_t ip) {
    ret_stack[(ret_head + ret_size) % kRetStackDepth] = ip;
    if (ret_size < kRetStackDepth) {
      ++ret_size;
    } else {
      ret_head = (ret_head + 1) % kRetStackDepth;  // drop the oldest
    }
  }
  bool TopReturnIs(uint64_t ip) const {
    return ret_size > 0 &&
           ret_stack[(ret_head + ret_size - 1) % kRetStackDepth] == ip;
  }
  uint64_t TopReturn() const {
    return ret_stack[(ret_head + ret_size - 1) % kRetStackDepth];
  }
  void ClearReturns() { ret_size = 0; }

  // The decoder can report every instruction before index `next`.
  void Deliver(uint64_t next) {
    if (!in_overflow) delivered_next = std::max(delivered_next, next);
  }

  // --- Tracing state changes ------------------------------------------------

  void EmitPsbPlus(uint64_t ip, uint64_t index, uint64_t cycle) {
    FlushTnt();
    EmitCyc(cycle);
    psb_start = Offset();
    ++self->stats_.psbs;
    EmitSimple(ppt_psb, cycle);
    last_ip = 0;
    ClearReturns();
    mode_exec_since_psb = false;
    const PtTimingOptions& t = opt.timing;
    if (t.tsc) {
      pt_packet p;
      std::memset(&p, 0, sizeof(p));
      p.type = ppt_tsc;
      p.payload.tsc.tsc = TscAtCycle(opt.timing, cycle);
      Emit(p, cycle);
      if (t.mtc) {
        const uint64_t tsc = TscAtCycle(opt.timing, cycle);
        const uint64_t ctc = CtcAtTsc(opt.timing, tsc);
        std::memset(&p, 0, sizeof(p));
        p.type = ppt_tma;
        p.payload.tma.ctc = static_cast<uint16_t>(ctc & 0xffff);
        p.payload.tma.fc =
            static_cast<uint16_t>(tsc - TscAtCtc(opt.timing, ctc));
        Emit(p, cycle);
      }
    }
    {
      pt_packet p;
      std::memset(&p, 0, sizeof(p));
      p.type = ppt_cbr;
      p.payload.cbr.ratio = t.cbr;
      Emit(p, cycle);
    }
    if (enabled) {
      EmitModeExec(cycle);
      mode_exec_since_psb = true;
      EmitIp(ppt_fup, ip, cycle);
      Deliver(index);
    }
    EmitSimple(ppt_psbend, cycle);
    psb_end = Offset();
  }

  void Enable(uint64_t ip, uint64_t index, uint64_t cycle) {
    EmitCyc(cycle);
    if (!mode_exec_since_psb) {
      EmitModeExec(cycle);
      mode_exec_since_psb = true;
    }
    EmitIp(ppt_tip_pge, ip, cycle);
    enabled = true;
    ++self->stats_.enables;
    Deliver(index);
  }

  void DisableSuppressed(uint64_t index, uint64_t cycle) {
    FlushTnt();
    EmitCyc(cycle);
    EmitSuppressedIp(ppt_tip_pgd, cycle);
    enabled = false;
    Deliver(index + 1);
  }

  // Tracing stops after instruction `index` before `next_ip` runs.
  void AsyncDisable(uint64_t next_ip, uint64_t index, uint64_t cycle) {
    FlushTnt();
    EmitCyc(cycle);
    EmitIp(ppt_fup, next_ip, cycle);
    EmitSuppressedIp(ppt_tip_pgd, cycle);
    enabled = false;
    ++self->stats_.async_disables;
    Deliver(index + 1);
  }

  void Tip(uint64_t target, uint64_t index, uint64_t cycle) {
    FlushTnt();
    EmitCyc(cycle);
    EmitIp(ppt_tip, target, cycle);
    Deliver(index + 1);
  }

  void StartOverflow() {
    FlushTnt();
    const PtOverflow& o = opt.overflows[next_overflow++];
    in_overflow = true;
    overflow_resume = o.first_instruction + o.instructions;
    ++self->stats_.overflows;
  }

  void RecordLost(uint64_t end) {
    if (end <= delivered_next) return;
    self->stats_.lost.push_back({delivered_next, end - delivered_next});
    self->stats_.lost_instructions += end - delivered_next;
    delivered_next = end;
  }

  // The overflow resolves as instruction `index` starts.
  void ResumeFromOverflow(uint64_t ip, uint64_t index, uint64_t cycle) {
    AdvanceClock(cycle);  // edges inside the overflow: dropped
    in_overflow = false;
    RecordLost(index);
    last_ip = 0;
    ClearReturns();
    EmitSimple(ppt_ovf, cycle);
    if (enabled) {
      EmitCyc(cycle);
      EmitIp(ppt_fup, ip, cycle);
      Deliver(index);
    } else {
      mode_exec_since_psb = false;
      Enable(ip, index, cycle);
    }
  }

  // --- Instructions ---------------------------------------------------------

  const CachedInsn* Lookup(uint64_t ip, uint64_t index) {
    CachedInsn& slot = cache[(ip ^ (ip >> 16)) & (kInsnCacheSize - 1)];
    if (slot.ip == ip && slot.generation == generation) return &slot;
    std::optional<x86::Insn> insn = insns->InsnAt(ip);
    if (!insn || insn->length == 0) {
      status = absl::InvalidArgumentError(absl::StrFormat(
          "PT encoder: no decodable instruction at 0x%x (instruction %d of "
          "the execution)",
          ip, index));
      return nullptr;
    }
    slot.ip = ip;
    slot.generation = generation;
    slot.fall = ip + insn->length;
    slot.target = insn->target;
    slot.cls = insn->cls;
    return &slot;
  }

  void Begin(uint64_t ip) {
    const uint64_t index = next_index++;
    current_index = index;
    ++self->stats_.instructions;
    if (!started) {
      started = true;
      StartClock();
      EmitPsbPlus(ip, index, cycle);
    }
    if (in_overflow && index == overflow_resume) {
      ResumeFromOverflow(ip, index, cycle);
    } else if (!in_overflow && next_overflow < opt.overflows.size() &&
               opt.overflows[next_overflow].first_instruction == index) {
      StartOverflow();
    }
    AdvanceClock(cycle);
    if (!in_overflow && opt.psb_period != 0 &&
        Offset() - psb_start >= opt.psb_period && Offset() > psb_end) {
      EmitPsbPlus(ip, index, cycle);
    }
    if (!enabled) {
      if (in_overflow) {
        enabled = true;  // the TIP.PGE is dropped
      } else {
        Enable(ip, index, cycle);
      }
    }
    const CachedInsn* insn = Lookup(ip, index);
    if (insn == nullptr) return;
    pending = *insn;
    pending_index = index;
    have_pending = true;
  }

  // The pending instruction retired and `next` runs next.
  void Resolve(uint64_t next) {
    have_pending = false;
    const CachedInsn& insn = pending;
    const uint64_t index = pending_index;
    current_index = index;
    const uint64_t retire = cycle + opt.timing.cycles_per_instruction;
    AdvanceClock(retire);
    switch (insn.cls) {
      case x86::InsnClass::kOther:
        if (next != insn.fall) AsyncDisable(insn.fall, index, retire);
        break;
      case x86::InsnClass::kCondJump:
        if (next == insn.target) {
          AddTnt(true, index, retire);
        } else {
          AddTnt(false, index, retire);
          if (next != insn.fall) AsyncDisable(insn.fall, index, retire);
        }
        break;
      case x86::InsnClass::kJump:
        if (next != insn.target) AsyncDisable(insn.target, index, retire);
        break;
      case x86::InsnClass::kCall:
        if (insn.target != insn.fall) PushReturn(insn.fall);
        if (next != insn.target) AsyncDisable(insn.target, index, retire);
        break;
      case x86::InsnClass::kCallIndirect:
        PushReturn(insn.fall);
        Tip(next, index, retire);
        break;
      case x86::InsnClass::kJumpIndirect:
      case x86::InsnClass::kFarReturn:
      case x86::InsnClass::kFarJump:
        Tip(next, index, retire);
        break;
      case x86::InsnClass::kReturn:
        if (opt.return_compression && TopReturnIs(next)) {
          --ret_size;
          ++self->stats_.compressed_returns;
          AddTnt(true, index, retire);
        } else {
          ++self->stats_.uncompressed_returns;
          Tip(next, index, retire);
        }
        break;
      case x86::InsnClass::kFarCall:
        ++self->stats_.far_calls;
        DisableSuppressed(index, retire);
        cycle = retire + opt.timing.cycles_per_far_call;
        return;
    }
    cycle = retire;
  }

  // The recording ended after the pending instruction, in user mode.
  void ResolveLast() {
    have_pending = false;
    const CachedInsn& insn = pending;
    const uint64_t index = pending_index;
    current_index = index;
    const uint64_t retire = cycle + opt.timing.cycles_per_instruction;
    AdvanceClock(retire);
    switch (insn.cls) {
      case x86::InsnClass::kOther:
        AsyncDisable(insn.fall, index, retire);
        break;
      case x86::InsnClass::kCondJump:
        AddTnt(false, index, retire);
        AsyncDisable(insn.fall, index, retire);
        break;
      case x86::InsnClass::kJump:
        AsyncDisable(insn.target, index, retire);
        break;
      case x86::InsnClass::kCall:
        if (insn.target != insn.fall) PushReturn(insn.fall);
        AsyncDisable(insn.target, index, retire);
        break;
      case x86::InsnClass::kFarCall:
        ++self->stats_.far_calls;
        DisableSuppressed(index, retire);
        break;
      case x86::InsnClass::kReturn:
      case x86::InsnClass::kCallIndirect:
      case x86::InsnClass::kJumpIndirect:
      case x86::InsnClass::kFarReturn:
      case x86::InsnClass::kFarJump:
        // Where it went is unknown: a TIP.PGD with a placeholder target
        // binds to the branch and ends the trace there.
        FlushTnt();
        EmitCyc(retire);
        EmitIp(ppt_tip_pgd, insn.fall, retire);
        enabled = false;
        Deliver(index + 1);
        break;
    }
    cycle = retire;
  }

  void End() {
    if (ended) return;
    ended = true;
    if (!status.ok()) return;
    if (have_pending) {
      if (enabled || in_overflow) {
        ResolveLast();
      } else {
        have_pending = false;
      }
    }
    FlushTnt();
    if (in_overflow) {
      // Tracing ends while packets are dropped: the OVF is the last packet.
      in_overflow = false;
      RecordLost(next_index);
      EmitSimple(ppt_ovf, cycle);
    }
  }

  PtEncoder* self;
  InsnSource* insns;
  PtEncoderOptions opt;
  Writer writer;
  absl::Status status;

  struct pt_encoder* encoder = nullptr;
  std::vector<uint8_t> buffer;
  size_t used = 0;       // bytes in buffer
  uint64_t flushed = 0;  // bytes handed to the writer

  std::vector<CachedInsn> cache;
  uint64_t generation = 1;  // bumped at every mapping change

  bool started = false;
  bool ended = false;
  bool enabled = false;  // PacketEn
  uint64_t next_index = 0;
  uint64_t current_index = 0;
  bool have_pending = false;
  CachedInsn pending;
  uint64_t pending_index = 0;
  uint64_t delivered_next = 0;

  int tnt_capacity = kShortTntBits;
  uint64_t tnt_bits = 0;
  int tnt_count = 0;
  uint64_t tnt_last_index = 0;
  uint64_t tnt_first_cycle = 0;
  uint64_t tnt_first_index = 0;

  uint64_t last_ip = 0;
  std::array<uint64_t, kRetStackDepth> ret_stack{};
  size_t ret_head = 0;
  size_t ret_size = 0;

  uint64_t psb_start = 0;
  uint64_t psb_end = 0;  // a PSB+ needs a packet after the previous PSBEND
  bool mode_exec_since_psb = false;

  size_t next_overflow = 0;
  bool in_overflow = false;
  uint64_t overflow_resume = 0;

  uint64_t cycle = 0;  // start cycle of the next (or pending) instruction
  uint64_t last_cyc_cycle = 0;
  uint64_t next_mtc_ctc = 0;
  uint64_t next_mtc_cycle = ~uint64_t{0};
};

PtEncoder::PtEncoder(InsnSource* insns, PtEncoderOptions options, Writer writer)
    : impl_(std::make_unique<Impl>(this, insns, std::move(options),
                                   std::move(writer))) {}

PtEncoder::~PtEncoder() = default;

void PtEncoder::OnMapping(const MappingEvent& event) {
  // Mappings change in system calls (exec, mmap...): the far call that
  // entered the kernel wrote its TIP.PGD before the kernel acted, so the
  // record must lie after it. A pending far call does not depend on the next
  // instruction: resolve it now. (Otherwise an exec's reset would cover the
  // last blocks of the old program.)
  Impl& impl = *impl_;
  if (impl.have_pending && impl.status.ok() && !impl.ended &&
      impl.pending.cls == x86::InsnClass::kFarCall) {
    impl.Resolve(/*next=*/0);
  }
  capture::Record record;
  record.type = event.type;
  record.path = event.path;
  record.addr = event.addr;
  record.baseaddr = event.baseaddr;
  record.positions.push_back({0, impl_->Offset()});
  records_.push_back(std::move(record));
  // The code at an address may differ from now on.
  ++impl_->generation;
}

void PtEncoder::OnInstructions(absl::Span<const uint64_t> ips) {
  Impl& impl = *impl_;
  if (impl.ended && impl.status.ok()) {
    impl.status = absl::FailedPreconditionError(
        "PT encoder: instructions after the end of the execution");
  }
  for (uint64_t ip : ips) {
    if (!impl.status.ok()) return;
    if (impl.have_pending) impl.Resolve(ip);
    impl.Begin(ip);
  }
}

void PtEncoder::OnExit(int status) { impl_->End(); }

absl::Status PtEncoder::Finish() {
  impl_->End();
  if (impl_->encoder != nullptr) impl_->FlushBuffer();
  return impl_->status;
}

uint64_t PtEncoder::offset() const { return impl_->Offset(); }

capture::PtConfig PtEncoder::pt_config() const {
  const PtEncoderOptions& opt = impl_->opt;
  capture::PtConfig config;
  uint64_t ctl = kTraceEn | kUser | kToPA | kBranchEn;
  if (!opt.return_compression) ctl |= kDisRetc;
  if (opt.timing.cyc) ctl |= kCycEn;
  if (opt.timing.tsc) ctl |= kTscEn;
  if (opt.timing.mtc) {
    ctl |= kMtcEn;
    ctl |= uint64_t{opt.timing.mtc_freq} << kMtcFreqShift;
    config.mtc_freq = opt.timing.mtc_freq;
  }
  config.psb_freq = PsbFreqField(opt.psb_period);
  ctl |= uint64_t{config.psb_freq} << kPsbFreqShift;
  config.rtit_ctl = ctl;
  return config;
}

PtEncoder::Writer StringWriter(std::string* out) {
  return [out](std::string_view bytes) {
    out->append(bytes.data(), bytes.size());
    return absl::OkStatus();
  };
}

}  // namespace hwt::recorder
