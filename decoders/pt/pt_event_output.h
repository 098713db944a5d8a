// Delivers one PT stream's events to an EventSink in batches and decides
// the outcome of blocks that end in a conditional branch: such a block is
// held back until an event says where execution went (the next block's ip,
// a disable's ip or `at`, an interrupt's from, an asynchronous paging
// event's ip): equal to the block's next_ip -> kCondNotTaken, equal to the
// branch target -> kCondTaken; when a gap or a restart (kSync) comes first,
// or the stream ends, the outcome is unknown: kNone.
//
// Blocks are made canonical: libipt sometimes ends a block after an
// instruction that is not a branch, depending on what its block cache (shared
// by all decoders of a run) holds at the time; the next block then starts at
// that instruction's successor with nothing in between. Such a block is held
// and joined with the next one when that one continues it (same region, mode
// and speculation state), so that every block ends at a branch, an event, a
// gap or a region boundary, whatever the cache held. The joined block has
// the time of its last part: the time libipt gives a block that ends at that
// branch when its cache does not split it (the time of the query there). The
// sequential and the parallel decoder both produce these blocks.
#ifndef HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_
#define HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "decoders/event.h"

namespace hwt::pt {

class EventOutput {
 public:
  EventOutput(EventSink* sink, uint32_t stream, size_t batch_size);

  // Starts over as a new EventOutput(sink, stream, batch_size) would, but
  // keeps the batch's storage: a decoder that runs segment after segment
  // reuses it rather than freeing and allocating a batch (256 KiB by
  // default) per segment, churn the allocator does not give back.
  void Reset(EventSink* sink, uint32_t stream, size_t batch_size);

  // Any event but a block.
  void Add(const Event& event) {
    if (held_) FlushHeld();
    Put(event);
  }
  // A block whose branch kind is known (kNone: it ended without a branch).
  void AddBlock(const Event& block) {
    if (held_ && !Join(block)) FlushHeld();
    if (held_) {
      if (held_block_.branch == BranchKind::kNone) return;
      held_ = false;
      Put(held_block_);
      return;
    }
    if (MayContinue(block)) {
      held_block_ = block;
      held_ = true;
      return;
    }
    Put(block);
  }
  // A block whose last instruction is a conditional branch to `target`
  // (0 = unknown).
  void AddCondBlock(const Event& block, uint64_t target) {
    if (held_ && !Join(block)) FlushHeld();
    if (held_) {
      held_ = false;
      PutCondBlock(held_block_, target);
      return;
    }
    PutCondBlock(block, target);
  }
  // Events whose blocks' branch kinds are known, as AddBlock() (blocks) and
  // Add() (the rest) one by one would deliver them; but what needs neither
  // joining nor a decision goes to the sink straight from `events`, in
  // pieces of up to a batch, instead of through the batch: a copy of every
  // event saved, and the fast path's walks are thousands of events long.
  // The sink's batches are then not those of one-by-one calls (a sink sees
  // the same events in the same order). With a batch size of 1 (events as
  // they come) it is the calls one by one.
  void AddRun(absl::Span<const Event> events);
  // Delivers everything (a held-back branch is unknown), without
  // OnStreamEnd().
  void Drain();
  // Events per OnEvents call from now on (1: every event as it comes).
  void set_batch_size(size_t batch_size) {
    batch_size_ = batch_size > 0 ? batch_size : 1;
  }

 private:
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();

  void Put(const Event& event) {
    if (pending_ == kNone && events_.size() + 1 < batch_size_) {
      events_.push_back(event);  // the common case
      return;
    }
    AddSlow(event);
  }
  void PutCondBlock(const Event& block, uint64_t target);
  // Appends `block` to the held block if it continues it.
  bool Join(const Event& block) {
    Event& held = held_block_;
    if (block.ip != held.next_ip || block.region != held.region ||
        block.isa != held.isa ||
        (block.code & ~kBlockDecoderId) != (held.code & ~kBlockDecoderId)) {
      return false;
    }
    // The joined block is no block the decoder numbered.
    held.code &= ~kBlockDecoderId;
    held.value = 0;
    held.time = block.time;
    held.ninsn += block.ninsn;
    held.last_ip = block.last_ip;
    held.next_ip = block.next_ip;
    held.branch = block.branch;
    return true;
  }
  void FlushHeld() {
    held_ = false;
    Put(held_block_);
  }

  // Whether a block ended without a branch where the next one may continue
  // it: such a block is held for joining.
  static bool MayContinue(const Event& block) {
    return block.branch == BranchKind::kNone && block.next_ip != 0;
  }
  // AddBlock() for a block, Add() for anything else.
  void AddEvent(const Event& event) {
    if (event.kind == EventKind::kBlock) {
      AddBlock(event);
    } else {
      Add(event);
    }
  }
  void AddSlow(const Event& event);
  // Delivers the batch, then `events` as they are, a batch's worth at a
  // time (nothing pending).
  void PassThrough(absl::Span<const Event> events);
  static std::optional<uint64_t> LocationOf(const Event& event);
  void Resolve(std::optional<uint64_t> location);
  void MaybeFlush();
  void Flush(size_t count);

  EventSink* sink_ = nullptr;
  uint32_t stream_ = 0;
  size_t batch_size_ = 1;
  // Events held behind an undecided branch before it is given up as
  // unknown: fixed at construction and Reset, so that the outcome does not
  // depend on set_batch_size().
  size_t hold_limit_ = 4;
  std::vector<Event> events_;
  size_t pending_ = kNone;  // index of the undecided block in events_
  uint64_t pending_target_ = 0;
  bool held_ = false;  // held_block_ may still be continued
  Event held_block_;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_
