// The call-stack rules of docs/call-stacks.md as operations on one thread's
// stack: push on calls, pop to the matching return address, synthetic roots,
// unwinding and tail-call jumps, far frames, gaps; plus what rides on the
// stack (the call-tree node of every frame and each frame's
// intra-procedural path).
//
// The same code runs in ProfileBuilder (over events) and in ProfileMerger
// (over the base operations a segment recorded), which is what makes a merged
// run equal a sequential one. A segment starts from an unknown stack: its
// bottom frame is then a "base" frame, and an operation that needs to look
// below it (a return that matches no local frame, a tail call replacing it, a
// jump into a function no local frame belongs to, a far return) is handed to
// a BaseHandler, which records it for the merge.
// Internal to analysis/.
#ifndef HWT_ANALYSIS_STACK_MACHINE_H_
#define HWT_ANALYSIS_STACK_MACHINE_H_

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/frame.h"
#include "analysis/profile_store.h"
#include "decoders/event.h"

namespace hwt::analysis::internal {

inline constexpr uint64_t kNoAddress = ~uint64_t{0};
inline constexpr uint32_t kPathPendingCont = 0xfffffffeu;

// What the last block's final instruction does to the stack; resolved when
// the next block shows where it went.
enum class PendingKind : uint8_t {
  kNone,
  kCall,
  kReturn,
  kJump,  // taken conditional or unconditional jump: maybe a tail call
  kFarReturn,
};

struct Frame {
  FrameKey key;
  uint64_t ra = kNoAddress;  // return address (absolute); none for roots
  uint64_t last_ip = 0;      // absolute last ip of the frame's last block
  uint32_t node = 0;         // call-tree node of the stack up to here
  uint32_t path = ProfileStore::kPathRoot;  // path in progress
  uint32_t last_block = kNone;              // the frame's last block
  bool far = false;                         // pushed by a far transfer
  bool base = false;  // segment mode: stands for the unknown stack below
  // Far frames: the transition the interrupted code still owed.
  PendingKind saved_kind = PendingKind::kNone;
  uint64_t saved_ra = kNoAddress;
  uint32_t saved_from_block = kNone;
};

struct Pending {
  PendingKind kind = PendingKind::kNone;
  uint64_t ra = kNoAddress;     // kCall: the address after the call
  uint32_t from_block = kNone;  // kJump: the jumping block
  // A far call or exception came after the block: if the next block is its
  // traced handler, a far frame is pushed (and the rest of this pending
  // waits in it until the far return).
  bool far_entry = false;
  uint64_t far_ra = kNoAddress;  // where it resumes if the handler is untraced
  // Tracing stopped asynchronously before the instruction at `interrupted`
  // ran (kDisabledInterrupted): the near transition went there, and what
  // runs next (a signal handler) runs on top. `interrupted.block` is an
  // entry record (a block of no instructions) for that address.
  bool is_interrupted = false;
  struct {
    uint32_t block = kNone;
    uint64_t ip = 0;
  } interrupted;

  friend bool operator==(const Pending& a, const Pending& b) {
    return a.kind == b.kind && a.ra == b.ra && a.from_block == b.from_block &&
           a.far_entry == b.far_entry && a.far_ra == b.far_ra &&
           a.is_interrupted == b.is_interrupted &&
           a.interrupted.block == b.interrupted.block &&
           a.interrupted.ip == b.interrupted.ip;
  }
};

// Events that change a pending transition, seen before a segment's first
// block (they apply to the previous segment's state at the merge).
struct PendingEdit {
  bool disabled = false;
  std::optional<PendingKind> kind;  // an exception return sets kFarReturn
  std::optional<std::pair<bool, uint64_t>> far_entry;  // (far_entry, far_ra)
  // An asynchronous disable: (entry record, ip), see Pending::interrupted.
  std::optional<std::pair<uint32_t, uint64_t>> interrupted;

  // `map_block` maps the edit's entry record into the target store.
  template <typename MapBlock>
  void ApplyTo(Pending& p, const MapBlock& map_block) const {
    if (kind) p.kind = *kind;
    if (far_entry) std::tie(p.far_entry, p.far_ra) = *far_entry;
    if (interrupted) {
      p.is_interrupted = true;
      p.interrupted.block = map_block(interrupted->first);
      p.interrupted.ip = interrupted->second;
    }
  }
};

// kJump: a jump into another function's body that found no frame of that
// function above the base: whether it unwinds into the unknown stack or is a
// tail call depends on what the base stands for.
enum class BaseOpKind : uint8_t {
  kContinue,
  kReturn,
  kReplace,
  kFarReturn,
  kJump
};

// Where control went: the block that ran next.
struct Target {
  uint32_t block = kNone;
  uint64_t ip = 0;       // absolute
  uint64_t last_ip = 0;  // absolute
};

// One operation on the unknown stack below a segment's base frame.
struct BaseOp {
  BaseOpKind kind = BaseOpKind::kContinue;
  Target target;
  // The block whose path the operation's frame continues with: `target`,
  // except when the target was an interrupted branch's entry record.
  Target appended;
  std::vector<Frame> snapshot;  // the stack (base frame first) before it
  PendingEdit lead;             // kContinue only: events before the first block
};

struct ThreadState {
  uint32_t stream = 0;
  uint64_t context = 0;
  bool inherit_context = false;  // segment mode: context of the previous one
  uint32_t root_node = kNone;
  std::vector<Frame> stack;  // empty: no stack (start, or after a gap)
  Pending pending;
  uint32_t last_block = kNone;  // for block edges
  bool disabled = false;        // tracing was disabled since last_block

  // Segment mode.
  uint32_t index = 0;          // in the owner's thread list
  bool unknown_start = false;  // nothing seen yet: state of the previous one
  bool lead_gap = false;       // a gap came before the first block
  bool lead_reset = false;     // an exec came before the first block
  PendingEdit lead;            // events before the first block (no gap)
  std::vector<uint32_t> base_ids;  // base operations, in order
};

class BaseHandler {
 public:
  virtual ~BaseHandler() = default;
  // `t.stack` holds a base frame that `kind` must look below. Record the
  // operation and leave `t.stack` as a single new base frame.
  virtual void OnBase(ThreadState& t, BaseOpKind kind,
                      const Target& target) = 0;
};

class StackMachine {
 public:
  // `base_handler` may be null when no stack has a base frame (sequential
  // builder, merger). Without `track_paths` no path is extended or completed
  // (ProfileOptions::hot_paths).
  StackMachine(ProfileStore& store, BaseHandler* base_handler,
               bool track_paths = true)
      : store_(store), base_handler_(base_handler), track_paths_(track_paths) {}

  // Applies t.pending given that `target` ran next, records the block edge.
  void Transition(ThreadState& t, const Target& target);
  // The individual rules (used by Transition and by the merger).
  bool IsReadOfTheInstructionPointer(uint32_t from_block, uint64_t ra,
                                     const Target& target) const;
  void Return(ThreadState& t, const Target& target);
  void FarReturn(ThreadState& t, const Target& target);
  // A jump into another function: unwinds to that function's newest frame
  // when it lands in its body and the stack has one, else Replace.
  void Jump(ThreadState& t, const Target& target);
  void Replace(ThreadState& t, const Target& target);
  void PushRoot(ThreadState& t, const Target& target);

  void set_track_paths(bool track_paths) { track_paths_ = track_paths; }

  // Appends the block to the frame's path; a block that does not lie after
  // the frame's previous one ends the path and starts a new one.
  void AppendToPath(Frame& frame, const Target& target);
  void CompletePath(const Frame& frame);

  // A gap: a [gap] leaf on the current stack, then no stack.
  void Gap(ThreadState& t);
  // An exec: no stack, without a [gap] leaf (the next block is a new root).
  static void Reset(ThreadState& t);

  // Sets `p` to the state change of a block ending with `end`. In place and
  // inline, field by field: a Pending returned by value and copied was read
  // back in 16-byte pieces over the smaller stores that had just written it,
  // which the CPU cannot forward (a stall on every block).
  static void SetPendingAfter(Pending& p, BranchKind end, uint64_t next_ip,
                              uint32_t block) {
    const uint64_t after = next_ip != 0 ? next_ip : kNoAddress;
    p = Pending{};
    switch (end) {
      case BranchKind::kCall:
      case BranchKind::kCallIndirect:
        p.kind = PendingKind::kCall;
        p.ra = after;
        p.from_block = block;
        break;
      case BranchKind::kReturn:
        p.kind = PendingKind::kReturn;
        break;
      case BranchKind::kCondTaken:
      case BranchKind::kJump:
      case BranchKind::kJumpIndirect:
        p.kind = PendingKind::kJump;
        p.from_block = block;
        break;
      case BranchKind::kFarCall:
        p.far_entry = true;
        p.far_ra = after;
        break;
      case BranchKind::kFarReturn:
        p.kind = PendingKind::kFarReturn;
        break;
      default:
        break;
    }
  }

 private:
  // The near part of a pending transition (call, return, jump).
  void ApplyNear(ThreadState& t, PendingKind kind, uint64_t ra,
                 uint32_t from_block, const Target& target);
  Frame& Push(ThreadState& t, const Target& target, uint64_t ra, bool far,
              bool call);
  void PopFrom(ThreadState& t, size_t index);
  FrameKey KeyOf(const Target& target) const;

  ProfileStore& store_;
  BaseHandler* base_handler_;
  bool track_paths_;
};

}  // namespace hwt::analysis::internal

#endif  // HWT_ANALYSIS_STACK_MACHINE_H_
