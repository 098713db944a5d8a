// The fast path's block cache; see pt_block_cache.h.
#include "decoders/pt/pt_block_cache.h"

namespace hwt::pt {
namespace {

// No real block is this long; past it the code is taken to be garbage (a
// run of zero bytes decodes as `add %al,(%rax)` forever).
constexpr uint32_t kMaxBlockInsns = 1 << 16;

}  // namespace

FastBlockCache::FastBlockCache(const MemoryImage& memory)
    : memory_(memory), insns_(memory), generation_(memory.generation()) {}

void FastBlockCache::Revalidate() {
  if (generation_ == memory_.generation()) return;
  generation_ = memory_.generation();
  for (auto& map : by_start_) map.clear();
  blocks_.clear();
}

FastBlock* FastBlockCache::At(uint64_t ip, Isa isa) {
  auto [it, inserted] = by_start_[ModeIndex(isa)].try_emplace(ip, nullptr);
  if (inserted) {
    FastBlock& block = blocks_.emplace_back();
    block.start = ip;
    block.id = next_id_;
    if (next_id_ != 0) ++next_id_;  // 0 after the last id: none from then on
    Build(&block, isa);
    it->second = &block;
  }
  return it->second;
}

void FastBlockCache::Build(FastBlock* block, Isa isa) {
  uint64_t ip = block->start;
  for (;;) {
    const std::optional<x86::Insn> insn = insns_.Get(ip, isa);
    if (!insn || block->ninsn == kMaxBlockInsns) {
      block->end = FastBlockEnd::kBad;
      block->fall = ip;
      break;
    }
    ++block->ninsn;
    block->last = ip;
    block->fall = ip + insn->length;
    block->target = insn->target;
    switch (insn->cls) {
      case x86::InsnClass::kOther:
        ip = block->fall;
        continue;
      case x86::InsnClass::kCall:
        if (insn->target == block->fall) {
          // `call next` reads the instruction pointer: the flow goes on and
          // nothing is pushed for return compression (like libipt and the
          // hardware), but libipt's block ends there, as at every call.
          block->end = FastBlockEnd::kJump;
          block->branch = BranchKind::kCall;
          break;
        }
        block->end = FastBlockEnd::kCall;
        block->branch = BranchKind::kCall;
        break;
      case x86::InsnClass::kCondJump:
        block->end = FastBlockEnd::kCondJump;
        block->branch = BranchKind::kCondTaken;
        break;
      case x86::InsnClass::kJump:
        block->end = FastBlockEnd::kJump;
        block->branch = BranchKind::kJump;
        break;
      case x86::InsnClass::kJumpIndirect:
        block->end = FastBlockEnd::kJumpIndirect;
        block->branch = BranchKind::kJumpIndirect;
        break;
      case x86::InsnClass::kCallIndirect:
        block->end = FastBlockEnd::kCallIndirect;
        block->branch = BranchKind::kCallIndirect;
        break;
      case x86::InsnClass::kReturn:
        block->end = FastBlockEnd::kReturn;
        block->branch = BranchKind::kReturn;
        break;
      case x86::InsnClass::kFarCall:
        block->end = FastBlockEnd::kFar;
        block->branch = BranchKind::kFarCall;
        break;
      case x86::InsnClass::kFarReturn:
        block->end = FastBlockEnd::kFar;
        block->branch = BranchKind::kFarReturn;
        break;
      case x86::InsnClass::kFarJump:
        block->end = FastBlockEnd::kFar;
        block->branch = BranchKind::kFarJump;
        break;
    }
    break;
  }
  if (block->ninsn == 0) return;
  const std::optional<uint32_t> first = memory_.RegionAt(block->start);
  if (first && memory_.RegionAt(block->last) == first) {
    block->region = *first + 1;
  }
}

bool FastBlockCache::IsVmEntry(uint64_t ip) {
  // 0f 01 c2 / 0f 01 c3 (no prefixes are defined for them).
  uint8_t bytes[3] = {};
  if (memory_.Read(ip, bytes, sizeof(bytes)) != sizeof(bytes)) return false;
  return bytes[0] == 0x0f && bytes[1] == 0x01 &&
         (bytes[2] == 0xc2 || bytes[2] == 0xc3);
}

std::optional<uint32_t> FastBlockCache::InsnsBefore(const FastBlock& block,
                                                    uint64_t ip, Isa isa,
                                                    uint64_t* previous) {
  if (ip < block.start || ip > block.last) return std::nullopt;
  uint64_t at = block.start;
  for (uint32_t n = 0; n < block.ninsn; ++n) {
    if (at == ip) return n;
    if (previous != nullptr) *previous = at;
    const std::optional<x86::Insn> insn = insns_.Get(at, isa);
    if (!insn) return std::nullopt;
    at += insn->length;
  }
  return std::nullopt;
}

}  // namespace hwt::pt
