// The fast path's cache of straight-line code (issue 6): for every block
// start address it keeps what libipt's block decoder works out again each
// time it passes there (how many instructions run to the next branch, what
// kind of branch ends the block, its fall-through and direct target), and
// links each block to its successors once they are known, so that following
// a TNT bit is one pointer load. Blocks end at every branch (direct jumps and
// calls included, as hwt's libipt blocks do with end_on_call/end_on_jump), so
// each block is contiguous code. Built from a MemoryImage through InsnCache;
// dropped whole when the image's generation changes. Not thread-safe.
#ifndef HWT_DECODERS_PT_PT_BLOCK_CACHE_H_
#define HWT_DECODERS_PT_PT_BLOCK_CACHE_H_

#include <cstdint>
#include <deque>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "decoders/insn_walker.h"
#include "decoders/memory_image.h"

namespace hwt::pt {

// How a block ends: what the flow needs from the trace to go on.
enum class FastBlockEnd : uint8_t {
  kCondJump,      // one TNT bit: taken -> target, not taken -> fall
  kJump,          // direct jump: no trace, -> target
  kCall,          // direct call: no trace, pushes fall, -> target
  kJumpIndirect,  // a TIP
  kCallIndirect,  // a TIP; pushes fall
  kReturn,        // a TNT bit (compressed) or a TIP
  kFar,           // far transfer (syscall, iret, ...): a TIP or TIP.PGD
  kBad,           // the next instruction is not mapped or not decodable
};

struct FastBlock {
  uint64_t start = 0;
  uint64_t last = 0;    // address of the block's last instruction
  uint64_t fall = 0;    // address after the last instruction
  uint64_t target = 0;  // direct target (kCondJump, kJump, kCall)
  uint32_t ninsn = 0;   // instructions, the last (branch) one included;
                        // for kBad the good ones before the bad address
  FastBlockEnd end = FastBlockEnd::kBad;
  // The event model's kind of the last instruction's branch (kCondJump:
  // kCondTaken, the outcome comes from the trace; kBad: kNone).
  BranchKind branch = BranchKind::kNone;
  // 1 + the timeline region that holds the block (0: none, or the block
  // runs into another region, which libipt's blocks never do).
  uint32_t region = 0;
  // The block's id in events (kBlockDecoderId): dense from 1 in the order
  // blocks are built, never reused by this cache, not even after Revalidate()
  // dropped the block (0: the ids ran out).
  uint32_t id = 0;
  // Successors once looked up: [0] fall-through (kCondJump) or target
  // (kJump, kCall); [1] the taken target of a kCondJump.
  FastBlock* next[2] = {nullptr, nullptr};
};

class FastBlockCache {
 public:
  explicit FastBlockCache(const MemoryImage& memory);

  // The block starting at `ip` in `isa`, built on first use. Never null: a
  // block whose first instruction cannot be decoded is a kBad block with no
  // instructions.
  FastBlock* At(uint64_t ip, Isa isa);

  // The successor `which` of `block` (see FastBlock::next).
  FastBlock* Next(FastBlock* block, int which, Isa isa) {
    FastBlock* next = block->next[which];
    if (next == nullptr) {
      next =
          At(which == 1 || block->end != FastBlockEnd::kCondJump ? block->target
                                                                 : block->fall,
             isa);
      block->next[which] = next;
    }
    return next;
  }

  // Instructions of `block` that run before `ip`, or nullopt when `ip` is not
  // the address of one of its instructions. `previous` (optional) gets the
  // address of the last of them.
  std::optional<uint32_t> InsnsBefore(const FastBlock& block, uint64_t ip,
                                      Isa isa, uint64_t* previous = nullptr);

  // Whether the instruction at `ip` is VMLAUNCH or VMRESUME.
  bool IsVmEntry(uint64_t ip);

  // Drops every block if the memory image changed since they were built.
  void Revalidate();

  size_t size() const { return blocks_.size(); }

 private:
  static int ModeIndex(Isa isa) {
    return isa == Isa::kX86_32 ? 1 : isa == Isa::kX86_16 ? 2 : 0;
  }
  void Build(FastBlock* block, Isa isa);

  const MemoryImage& memory_;
  InsnCache insns_;
  uint64_t generation_;
  uint32_t next_id_ = 1;          // see FastBlock::id
  std::deque<FastBlock> blocks_;  // stable addresses for the links
  absl::flat_hash_map<uint64_t, FastBlock*> by_start_[3];
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_BLOCK_CACHE_H_
