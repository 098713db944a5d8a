// The call-stack rules of docs/call-stacks.md (see stack_machine.h).
#include "analysis/stack_machine.h"

namespace hwt::analysis::internal {

FrameKey StackMachine::KeyOf(const Target& target) const {
  const BlockRecord& b = store_.blocks()[target.block];
  return FrameKeyFor(b.fn, b.key.vaddr);
}

void StackMachine::Transition(ThreadState& t, const Target& target) {
  if (t.stack.empty()) {
    PushRoot(t, target);
    return;
  }
  if (t.last_block != kNone) store_.AddEdge(t.last_block, target.block, 1);
  const Pending p = t.pending;
  if (p.far_entry && !t.disabled && target.ip != p.far_ra) {
    // The trace shows the handler: it runs in a frame of its own, and the
    // interrupted code's transition waits for the far return.
    Frame& f = Push(t, target, kNoAddress, /*far=*/true, /*call=*/false);
    f.saved_kind = p.kind;
    f.saved_ra = p.ra;
    f.saved_from_block = p.from_block;
    return;
  }
  if (p.kind == PendingKind::kFarReturn) {
    FarReturn(t, target);
    return;
  }
  // A branch interrupted at its target still went there (docs/call-stacks.md);
  // the code that runs next (a handler) runs on top. A call whose return
  // address runs next had a callee that ran untraced.
  if (p.is_interrupted && target.ip != p.interrupted.ip &&
      p.kind != PendingKind::kNone &&
      !(p.kind == PendingKind::kCall && target.ip == p.ra)) {
    const Target entry{p.interrupted.block, p.interrupted.ip, p.interrupted.ip};
    ApplyNear(t, p.kind, p.ra, p.from_block, entry);
    return;
  }
  ApplyNear(t, p.kind, p.ra, p.from_block, target);
}

void StackMachine::ApplyNear(ThreadState& t, PendingKind kind, uint64_t ra,
                             uint32_t from_block, const Target& target) {
  switch (kind) {
    case PendingKind::kCall:
      // A callee that ran untraced (tracing was off until the call returned)
      // leaves no frame.
      if (t.disabled && target.ip == ra) return;
      if (IsReadOfTheInstructionPointer(from_block, ra, target)) return;
      Push(t, target, ra, /*far=*/false, /*call=*/true);
      return;
    case PendingKind::kReturn:
      Return(t, target);
      return;
    case PendingKind::kJump:
      if (from_block != kNone &&
          !store_.SameFunctionAcross(from_block, target.block)) {
        Jump(t, target);
      }
      return;
    default:
      return;
  }
}

// `call next; pop reg` inside one symbol's code reads the instruction
// pointer: no frame (nothing would ever return from it). A call to the next
// instruction that is another function's entry is a real call.
bool StackMachine::IsReadOfTheInstructionPointer(uint32_t from_block,
                                                 uint64_t ra,
                                                 const Target& target) const {
  if (target.ip != ra || from_block == kNone) return false;
  const FunctionId& caller = store_.blocks()[from_block].last_fn;
  return caller.kind == FrameKind::kFunction &&
         caller == store_.blocks()[target.block].fn;
}

void StackMachine::Return(ThreadState& t, const Target& target) {
  for (size_t i = t.stack.size(); i-- > 0;) {
    const Frame& f = t.stack[i];
    if (f.base) {
      base_handler_->OnBase(t, BaseOpKind::kReturn, target);
      return;
    }
    if (f.ra == target.ip) {
      PopFrom(t, i);
      if (t.stack.empty()) PushRoot(t, target);
      return;
    }
  }
  // No frame returns here: pop the top; a synthetic caller replaces an
  // emptied stack.
  PopFrom(t, t.stack.size() - 1);
  if (t.stack.empty()) PushRoot(t, target);
}

void StackMachine::FarReturn(ThreadState& t, const Target& target) {
  for (size_t i = t.stack.size(); i-- > 0;) {
    const Frame& f = t.stack[i];
    if (f.base) {
      base_handler_->OnBase(t, BaseOpKind::kFarReturn, target);
      return;
    }
    if (f.far) {
      const PendingKind kind = f.saved_kind;
      const uint64_t ra = f.saved_ra;
      const uint32_t from_block = f.saved_from_block;
      PopFrom(t, i);
      if (t.stack.empty()) {
        PushRoot(t, target);
        return;
      }
      ApplyNear(t, kind, ra, from_block, target);
      return;
    }
  }
}

void StackMachine::Jump(ThreadState& t, const Target& target) {
  const BlockRecord& b = store_.blocks()[target.block];
  // Only a landing inside a symbol's body can unwind (docs/call-stacks.md):
  // a jump to an entry is a tail call even into a function on the stack.
  if (b.fn.kind == FrameKind::kFunction && b.key.vaddr != b.fn.start) {
    const FrameKey key = FrameKeyFor(b.fn, b.key.vaddr);
    for (size_t i = t.stack.size(); i-- > 0;) {
      const Frame& f = t.stack[i];
      if (f.base) {
        base_handler_->OnBase(t, BaseOpKind::kJump, target);
        return;
      }
      if (f.key == key) {
        PopFrom(t, i + 1);
        return;
      }
    }
  }
  Replace(t, target);
}

void StackMachine::Replace(ThreadState& t, const Target& target) {
  Frame& top = t.stack.back();
  if (top.base) {
    base_handler_->OnBase(t, BaseOpKind::kReplace, target);
    return;
  }
  CompletePath(top);
  const uint32_t parent =
      t.stack.size() >= 2 ? t.stack[t.stack.size() - 2].node : t.root_node;
  Frame f;
  f.key = KeyOf(target);
  f.ra = top.ra;
  f.far = top.far;
  f.saved_kind = top.saved_kind;
  f.saved_ra = top.saved_ra;
  f.saved_from_block = top.saved_from_block;
  f.node = store_.Child(parent, f.key);
  top = f;
}

void StackMachine::PushRoot(ThreadState& t, const Target& target) {
  Frame f;
  f.key = KeyOf(target);
  f.node = store_.Child(t.root_node, f.key);
  t.stack.push_back(f);
}

Frame& StackMachine::Push(ThreadState& t, const Target& target, uint64_t ra,
                          bool far, bool call) {
  Frame f;
  f.key = KeyOf(target);
  f.ra = ra;
  f.far = far;
  f.node = store_.Child(t.stack.back().node, f.key);
  if (call) ++store_.nodes()[f.node].calls;
  t.stack.push_back(f);
  return t.stack.back();
}

void StackMachine::PopFrom(ThreadState& t, size_t index) {
  for (size_t i = index; i < t.stack.size(); ++i) CompletePath(t.stack[i]);
  t.stack.resize(index);
}

void StackMachine::CompletePath(const Frame& frame) {
  if (!track_paths_) return;
  if (frame.path != ProfileStore::kPathRoot && frame.path != kPathPendingCont) {
    ++store_.paths()[frame.path].completed;
  }
}

void StackMachine::AppendToPath(Frame& frame, const Target& target) {
  if (frame.path == kPathPendingCont) {
    // A new base frame: its path so far is known only at the merge, which
    // appends this block to it there.
    frame.path = store_.NewContRoot(store_.nodes()[frame.node].ref);
  } else if (track_paths_) {
    if (frame.last_block != kNone && target.ip <= frame.last_ip) {
      CompletePath(frame);
      frame.path = ProfileStore::kPathRoot;
    }
    frame.path = store_.PathChild(frame.path, target.block);
  }
  frame.last_block = target.block;
  frame.last_ip = target.last_ip;
}

void StackMachine::Gap(ThreadState& t) {
  if (!t.stack.empty()) {
    const uint32_t gap = store_.Child(t.stack.back().node, FrameKey::Gap());
    ++store_.nodes()[gap].gaps;
  }
  Reset(t);
}

void StackMachine::Reset(ThreadState& t) {
  t.stack.clear();
  t.pending = Pending{};
  t.last_block = kNone;
  t.disabled = false;
}

}  // namespace hwt::analysis::internal
