// How the PT decoder fills the shared Event fields (decoders/event.h) from
// libipt's blocks and events. Mapping (libipt -> Event):
//
//   pt_block                -> kBlock: ip, last_ip = end_ip, ninsn, isa from
//                              the mode, region, code = kBlockSpeculative,
//                              branch from the last instruction, next_ip =
//                              end_ip + its size (see pt_decoder.h for how a
//                              conditional branch is known taken or not)
//   ptev_enabled            -> kEnabled: ip; code |= kPtResumed if resumed
//   ptev_disabled           -> kDisabled: ip (0 and kPtIpSuppressed if unknown)
//   ptev_async_disabled     -> kDisabled + kPtAsync: ip = `at` (where tracing
//                              stopped), value = the destination `ip`
//                              (kPtIpSuppressed: unknown)
//   end of trace while
//   tracing is enabled      -> kDisabled + kPtEndOfTrace (libipt pts_eos)
//   ptev_async_branch       -> kException: ip = from, next_ip = to, value = 0
//                              (PT does not say which vector)
//   ptev_paging             -> kPaging: value = CR3, code |= kPtNonRoot
//   ptev_async_paging       -> kPaging + kPtAsync: ip
//   ptev_overflow           -> kGap reason kOverflow: ip where tracing resumes
//   ptev_exec_mode          -> kExecMode: isa, ip
//   ptev_cbr                -> kCoreBusRatio: value = ratio
//   ptev_tick               -> kTimestamp + kPtTick: value = TSC, ip
//   ptev_tsx, ptev_stop, ptev_vmcs, ptev_async_vmcs, ptev_exstop, ptev_mwait,
//   ptev_pwre, ptev_pwrx, ptev_ptwrite, ptev_mnt
//                           -> kBackend: code = PtBackendEvent | flags, with
//                              the value layouts below
//   PSB the decoder syncs on-> kSync: offset of the PSB
//   decode error            -> kGap kDecodeError (kMissingImage for
//                              -pte_nomap): code = the negative pte_ error
//                              (as uint32), ip = where it failed, value =
//                              bytes skipped to the next PSB
//   bytes before the first
//   PSB of a chunk          -> kGap kNoSync (value = bytes)
//   chunk after lost data   -> kGap kLostData
//
// Events libipt reports as status updates (state restated in a PSB+, not a
// change) carry kPtStatusUpdate. Event::time is the TSC libipt estimates for
// the event or block (0 when the trace has no timing); kPtHasTsc tells that
// an event's TSC is known.
#ifndef HWT_DECODERS_PT_PT_EVENTS_H_
#define HWT_DECODERS_PT_PT_EVENTS_H_

#include <cstdint>

namespace hwt::pt {

// Event::code flags of PT events (bits 8 and up; kBackend events keep their
// type in bits 0-7).
inline constexpr uint32_t kPtResumed = 1u << 8;
inline constexpr uint32_t kPtAsync = 1u << 9;
inline constexpr uint32_t kPtIpSuppressed = 1u << 10;
inline constexpr uint32_t kPtStatusUpdate = 1u << 11;
inline constexpr uint32_t kPtEndOfTrace = 1u << 12;
inline constexpr uint32_t kPtNonRoot = 1u << 13;
inline constexpr uint32_t kPtTick = 1u << 14;
inline constexpr uint32_t kPtHasTsc = 1u << 15;

// kBackend event types (Event::code & kPtBackendTypeMask).
enum class PtBackendEvent : uint8_t {
  kTsx = 1,  // value: bit 0 speculative (begin), bit 1 aborted; else commit
  kStop,     // TraceStop: tracing stopped by an address filter
  kVmcs,     // value = VMCS base; kPtAsync: ip
  kExstop,   // execution stopped; ip
  kMwait,    // value = hints | ext << 32; ip
  kPwre,     // value = state | sub_state << 8 | hw << 16
  kPwrx,     // value = last | deepest << 8 | interrupt << 16 | store << 17 |
             //         autonomous << 18
  kPtwrite,  // value = payload; ip
  kMnt,      // value = maintenance payload
};
inline constexpr uint32_t kPtBackendTypeMask = 0xff;

inline PtBackendEvent BackendType(uint32_t code) {
  return static_cast<PtBackendEvent>(code & kPtBackendTypeMask);
}

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_EVENTS_H_
