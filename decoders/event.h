// The unified event model shared by every decoder: for control flow (PT,
// CoreSight) blocks of executed instructions plus the events around them
// (enable/disable, gaps and errors with trace offsets, timing, mode and
// context changes); for sampling (SPE) one event per sample. Events are plain
// 64-byte values delivered in batches (EventSink::OnEvents), never one
// virtual call per instruction.
#ifndef HWT_DECODERS_EVENT_H_
#define HWT_DECODERS_EVENT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace hwt {

// Instruction set of a block or of an exec-mode change.
enum class Isa : uint8_t {
  kUnknown,
  kX86_16,
  kX86_32,
  kX86_64,
  kA64,
  kA32,
  kT32,
};
std::string_view IsaName(Isa isa);

// How the last instruction of a block transferred control.
enum class BranchKind : uint8_t {
  kNone,          // the block ended without a branch: an event or a gap
                  // follows, the trace ended, or it hit an image boundary
  kCondTaken,     // conditional branch, taken
  kCondNotTaken,  // conditional branch, not taken (block ended for another
                  // reason)
  kJump,          // direct unconditional jump
  kJumpIndirect,  // indirect jump
  kCall,          // direct call
  kCallIndirect,  // indirect call
  kReturn,        // near return (RET; A64 RET; A32/T32 implied returns)
  kFarCall,       // syscall/sysenter/int/far call; SVC/HVC/SMC
  kFarReturn,     // sysret/sysexit/iret/far ret; ERET
  kFarJump,       // far jmp
  kOther,         // a non-branch instruction that ends the block (ptwrite..)
};
std::string_view BranchKindName(BranchKind kind);
inline bool IsCall(BranchKind k) {
  return k == BranchKind::kCall || k == BranchKind::kCallIndirect;
}

enum class EventKind : uint8_t {
  kBlock,         // ninsn instructions from ip to last_ip executed;
                  // code = kBlockSpeculative if inside a transaction;
                  // with kBlockDecoderId, value = the decoder's block id
  kEnabled,       // tracing (re)started at ip (TIP.PGE, TRACE_ON + range)
  kDisabled,      // tracing stopped; ip = where it would resume if known
  kGap,           // trace lost or undecodable: reason, value = bytes lost,
                  // code = backend error code; the flow restarts after it
  kExecMode,      // isa changed to `isa`
  kPaging,        // address space changed: value = CR3 / context
  kContext,       // PE context: value = context ID (thread), code = EL,
                  // isa = A64/A32
  kTimestamp,     // value = timestamp (TSC / generic timer) now in effect
  kCoreBusRatio,  // value = core:bus ratio (PT CBR)
  kException,     // exception/interrupt taken at ip: value = number
  kExceptionReturn,
  kSync,     // a synchronisation point (PSB, ASYNC) at offset: call
             // stacks built from return compression restart here
  kBackend,  // a backend-specific event that changes neither the flow nor
             // the address space (PT: TSX, PTWRITE, power, VMCS, MNT...):
             // code = the backend's event type (see e.g. decoders/pt/
             // pt_events.h), value/ip = its payload. Consumers that do not
             // know the backend ignore it.
  kSample,   // one sampled operation (SPE): ip = its PC, time = its
             // timestamp (0 = none), value = its latency weight (total
             // latency in cycles, 0 = not recorded; every sample counts
             // once), isa = kA64, code = its index in the batch, where sinks
             // that know the backend find its full record (decoders/spe/
             // sample_sink.h). No call stack: its stack is its one leaf frame.
};

// kBlock code flag: the block executed speculatively (inside a hardware
// transaction that may still abort).
inline constexpr uint32_t kBlockSpeculative = 1;
// kBlock code flag: `value` is the decoder's id of the block (never 0), not
// a backend payload (CoreSight puts cycle counts there). Two blocks of one
// stream with the same id have the same ip, last_ip, next_ip, ninsn, isa and
// region (branch, time and offset may differ), so a consumer may keep what it
// derives from those fields by id, in an array, instead of hashing them
// (PT's fast engine numbers the blocks of its block cache so). Ids are dense
// from 1 and never reused within a stream, also after the decoder drops its
// cached blocks (a remap): a consumer's table grows with the blocks the
// decoder built.
inline constexpr uint32_t kBlockDecoderId = 1u << 30;
// kDisabled code flag, set by every backend that knows it: tracing stopped
// asynchronously (an interrupt, a fault, a signal) before the instruction
// at ip executed. A branch that ended the last block went to ip, whatever
// runs when tracing resumes (PT: FUP + TIP.PGD). Backend flags use the
// lower bits.
inline constexpr uint32_t kDisabledInterrupted = 1u << 31;
std::string_view EventKindName(EventKind kind);

enum class GapReason : uint8_t {
  kNone,
  kDecodeError,   // the decoder could not follow the trace
  kOverflow,      // the hardware dropped trace (PT OVF, ETM overflow)
  kLostData,      // the buffer lost data (ring wrap, SPE partial record)
  kMissingImage,  // no code image at ip (libipt -pte_nomap, ADDR_NACC)
  kNoSync,        // trace before the first synchronisation point
};
std::string_view GapReasonName(GapReason reason);

struct Event {
  EventKind kind = EventKind::kBlock;
  BranchKind branch = BranchKind::kNone;  // kBlock
  Isa isa = Isa::kUnknown;                // kBlock, kExecMode, kContext
  GapReason reason = GapReason::kNone;    // kGap
  uint32_t ninsn = 0;                     // kBlock
  uint64_t ip = 0;       // kBlock: first instruction; others: where (0 =
                         // unknown)
  uint64_t last_ip = 0;  // kBlock: address of the last instruction
  uint64_t next_ip = 0;  // kBlock: address after the last instruction (the
                         // return address of a call); 0 when unknown
  uint64_t offset = 0;   // trace offset (in the buffer's raw file) of the
                         // packet that produced this event. A mapping
                         // record at trace position P applies to events
                         // with offset > P (the packet at P was already
                         // written when the record was read).
  uint64_t time = 0;     // timestamp in effect (0 = no timing in the trace)
  uint64_t value = 0;    // kind specific, see EventKind
  uint32_t code = 0;     // kind specific, see EventKind
  uint32_t region = 0;   // kBlock: 1 + index into the address-space
                         // timeline's regions(), 0 = unknown
};
static_assert(sizeof(Event) == 64, "keep events one cache line");

// Receives events in batches. Within one stream events arrive in trace order;
// streams may interleave (CoreSight trace IDs in one ETR buffer).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void OnEvents(uint32_t stream, absl::Span<const Event> events) = 0;
  // Called once per stream after its last event.
  virtual void OnStreamEnd(uint32_t stream) {}
};

// One-line human description of an event (for --blocks/--calls listings and
// test failure messages), e.g. "block 0x401000-0x401010 5 insn cond-taken".
std::string DescribeEvent(const Event& event);

}  // namespace hwt

#endif  // HWT_DECODERS_EVENT_H_
