// Instruction-level views of decoded blocks. InsnCache decodes x86
// instructions from a MemoryImage (LLVM MC, ~1 us each) and caches them per
// address; InsnWalker expands a kBlock event into the addresses of its
// instructions (for `hwt-decode --insn` and the conformance tests), cached
// per block start. Both drop their caches when the memory image's
// generation changes (code was unmapped or replaced).
#ifndef HWT_DECODERS_INSN_WALKER_H_
#define HWT_DECODERS_INSN_WALKER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "decoders/event.h"
#include "decoders/memory_image.h"
#include "decoders/x86/x86_insn.h"

namespace hwt {

// Decoded instructions by address. Not thread-safe.
class InsnCache {
 public:
  explicit InsnCache(const MemoryImage& memory);

  // The instruction at `address` decoded in `isa` (64-bit when unknown);
  // nullopt when no code is mapped there or the bytes are not a valid
  // instruction.
  std::optional<x86::Insn> Get(uint64_t address, Isa isa) {
    const int mode = ModeIndex(isa);
    const Recent& recent = recent_[(address ^ (address >> 10)) % kRecent];
    if (recent.mode == mode && recent.address == address &&
        generation_ == memory_.generation()) {
      return recent.insn;
    }
    return GetSlow(address, mode);
  }

  const MemoryImage& memory() const { return memory_; }

 private:
  static int ModeIndex(Isa isa) {
    return isa == Isa::kX86_32 ? 1 : isa == Isa::kX86_16 ? 2 : 0;
  }
  std::optional<x86::Insn> GetSlow(uint64_t address, int mode);

  std::optional<x86::Insn> Lookup(uint64_t address, int mode);

  // A small direct-mapped cache in front of the hash maps: decoders ask for
  // the same few block ends over and over.
  struct Recent {
    uint64_t address = 0;
    int mode = -1;  // -1 = empty
    x86::Insn insn;
  };
  static constexpr size_t kRecent = 1024;

  const MemoryImage& memory_;
  uint64_t generation_;
  std::unique_ptr<Recent[]> recent_;
  absl::flat_hash_map<uint64_t, std::optional<x86::Insn>> cache_[3];
  std::unique_ptr<x86::InsnDecoder> decoders_[3];
};

// The address after the instruction `insn` at `address` when it does not
// branch; for direct jumps and calls, which libipt blocks follow, the target.
uint64_t NextInBlock(uint64_t address, const x86::Insn& insn);

// Expands blocks into instruction addresses. Not thread-safe.
class InsnWalker {
 public:
  explicit InsnWalker(const MemoryImage& memory);

  // Appends the addresses of `block`'s ninsn instructions to `out`, first
  // to last. libipt blocks are straight-line code that may follow direct
  // jumps and calls (without end-on-jump/end-on-call), so the addresses need
  // not be contiguous. A rep-prefixed string instruction is one instruction
  // (PT does not trace iterations); its last bytes may straddle into the next
  // mapped section. Errors name the address: no code mapped, an invalid
  // instruction, a branch that needs trace inside the block, or a walk that
  // does not end at block.last_ip.
  absl::Status Expand(const Event& block, std::vector<uint64_t>* out);

  InsnCache& insns() { return insns_; }

 private:
  struct Run {
    Isa isa = Isa::kUnknown;
    std::vector<uint64_t> addresses;
    bool complete = false;  // ends at a branch that needs trace
  };

  InsnCache insns_;
  uint64_t generation_;
  absl::flat_hash_map<uint64_t, Run> runs_;
};

}  // namespace hwt

#endif  // HWT_DECODERS_INSN_WALKER_H_
