// Implementation of InsnCache and InsnWalker; see insn_walker.h.
#include "decoders/insn_walker.h"

#include "absl/strings/str_format.h"

namespace hwt {

InsnCache::InsnCache(const MemoryImage& memory)
    : memory_(memory),
      generation_(memory.generation()),
      recent_(new Recent[kRecent]) {}

std::optional<x86::Insn> InsnCache::GetSlow(uint64_t address, int mode) {
  if (generation_ != memory_.generation()) {
    for (auto& cache : cache_) cache.clear();
    for (size_t i = 0; i < kRecent; ++i) recent_[i].mode = -1;
    generation_ = memory_.generation();
  }
  Recent& recent = recent_[(address ^ (address >> 10)) % kRecent];
  if (recent.mode == mode && recent.address == address) return recent.insn;
  std::optional<x86::Insn> insn = Lookup(address, mode);
  if (insn) {
    recent.address = address;
    recent.mode = mode;
    recent.insn = *insn;
  }
  return insn;
}

std::optional<x86::Insn> InsnCache::Lookup(uint64_t address, int mode) {
  auto [it, inserted] = cache_[mode].try_emplace(address);
  if (!inserted) return it->second;
  uint8_t bytes[15];
  const size_t size = memory_.Read(address, bytes, sizeof(bytes));
  if (size == 0) return std::nullopt;  // not cached: code may appear later
  if (!decoders_[mode]) {
    static constexpr x86::Mode kModes[3] = {x86::Mode::k64, x86::Mode::k32,
                                            x86::Mode::k16};
    decoders_[mode] = x86::InsnDecoder::Create(kModes[mode]);
  }
  it->second =
      decoders_[mode]->Decode(absl::MakeConstSpan(bytes, size), address);
  return it->second;
}

uint64_t NextInBlock(uint64_t address, const x86::Insn& insn) {
  if ((insn.cls == x86::InsnClass::kJump ||
       insn.cls == x86::InsnClass::kCall) &&
      insn.target != 0) {
    return insn.target;
  }
  return address + insn.length;
}

namespace {

// Whether libipt needs trace to know where execution goes after `insn`: such
// an instruction always ends a block.
bool NeedsTrace(const x86::Insn& insn) {
  switch (insn.cls) {
    case x86::InsnClass::kOther:
      return false;
    case x86::InsnClass::kJump:
    case x86::InsnClass::kCall:
      return insn.target == 0;
    default:
      return true;
  }
}

}  // namespace

InsnWalker::InsnWalker(const MemoryImage& memory)
    : insns_(memory), generation_(memory.generation()) {}

namespace {

// Arm blocks (CoreSight instruction ranges) are contiguous: A64/A32
// instructions are 4 bytes, T32 ones 2 or 4 (a first halfword whose top five
// bits are 0b11101, 0b11110 or 0b11111 starts a 32-bit instruction).
absl::Status ExpandArm(const Event& block, const MemoryImage& memory,
                       std::vector<uint64_t>* out) {
  uint64_t address = block.ip;
  for (uint32_t i = 0; i < block.ninsn; ++i) {
    out->push_back(address);
    uint64_t size = 4;
    if (block.isa == Isa::kT32) {
      uint8_t half[2];
      if (memory.Read(address, half, 2) != 2) {
        return absl::NotFoundError(absl::StrFormat(
            "block at 0x%x: no code mapped at 0x%x (instruction %u of %u)",
            block.ip, address, i + 1, block.ninsn));
      }
      const uint32_t top = half[1] >> 3;
      size = (top == 0x1d || top == 0x1e || top == 0x1f) ? 4 : 2;
    }
    address += size;
  }
  if (out->back() != block.last_ip) {
    return absl::DataLossError(absl::StrFormat(
        "block at 0x%x with %u instructions ends at 0x%x when walked, not at "
        "0x%x",
        block.ip, block.ninsn, out->back(), block.last_ip));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status InsnWalker::Expand(const Event& block,
                                std::vector<uint64_t>* out) {
  if (block.ninsn == 0) return absl::OkStatus();
  if (block.isa == Isa::kA64 || block.isa == Isa::kA32 ||
      block.isa == Isa::kT32) {
    return ExpandArm(block, insns_.memory(), out);
  }
  if (generation_ != insns_.memory().generation()) {
    runs_.clear();
    generation_ = insns_.memory().generation();
  }
  Run& run = runs_[block.ip];
  if (run.isa != block.isa) {
    run = Run();
    run.isa = block.isa;
  }
  // Extend the cached run until it covers the block.
  while (run.addresses.size() < block.ninsn) {
    if (run.complete) {
      return absl::DataLossError(absl::StrFormat(
          "block at 0x%x has %u instructions but execution leaves it after "
          "%u at 0x%x (a branch that needs trace)",
          block.ip, block.ninsn, run.addresses.size(), run.addresses.back()));
    }
    const uint64_t address =
        run.addresses.empty()
            ? block.ip
            : NextInBlock(run.addresses.back(),
                          *insns_.Get(run.addresses.back(), block.isa));
    auto insn = insns_.Get(address, block.isa);
    if (!insn) {
      uint8_t byte;
      const bool mapped = insns_.memory().Read(address, &byte, 1) == 1;
      return absl::NotFoundError(absl::StrFormat(
          "block at 0x%x: %s at 0x%x (instruction %u of %u)", block.ip,
          mapped ? "invalid instruction" : "no code mapped", address,
          run.addresses.size() + 1, block.ninsn));
    }
    run.addresses.push_back(address);
    run.complete = NeedsTrace(*insn);
  }
  if (run.addresses[block.ninsn - 1] != block.last_ip) {
    return absl::DataLossError(absl::StrFormat(
        "block at 0x%x with %u instructions ends at 0x%x when walked, not at "
        "0x%x",
        block.ip, block.ninsn, run.addresses[block.ninsn - 1], block.last_ip));
  }
  out->insert(out->end(), run.addresses.begin(),
              run.addresses.begin() + block.ninsn);
  return absl::OkStatus();
}

}  // namespace hwt
