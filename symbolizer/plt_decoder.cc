// PLT stub pattern matching per architecture; see plt_decoder.h.
#include "symbolizer/plt_decoder.h"

#include <cstddef>

#include "llvm/BinaryFormat/ELF.h"

namespace hwt::symbolizer {
namespace {

uint32_t Read32(absl::Span<const uint8_t> b, size_t at, bool big_endian) {
  if (big_endian) {
    return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 |
           uint32_t{b[at + 2]} << 8 | uint32_t{b[at + 3]};
  }
  return uint32_t{b[at]} | uint32_t{b[at + 1]} << 8 |
         uint32_t{b[at + 2]} << 16 | uint32_t{b[at + 3]} << 24;
}

int64_t SignExtend(uint64_t value, int bits) {
  uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

// x86-64 and i386. A stub is "[endbr64|endbr32] [bnd] jmp *GOT" starting at
// an 8-byte boundary (all GNU ld and lld layouts: .plt/.plt.sec entries are
// 16 bytes, .plt.got 8 or 16). The lazy-binding tail (push; jmp .plt) and
// the IBT .plt entries (endbr; push; bnd jmp .plt) have no GOT jump.
std::vector<PltStub> DecodeX86(const PltSectionBytes& s) {
  const bool is64 = s.machine == llvm::ELF::EM_X86_64;
  const absl::Span<const uint8_t> b = s.bytes;
  std::vector<PltStub> stubs;
  size_t off = 0;
  while (off + 6 <= b.size()) {
    size_t p = off;
    if (p + 4 <= b.size() && b[p] == 0xf3 && b[p + 1] == 0x0f &&
        b[p + 2] == 0x1e && (b[p + 3] == 0xfa || b[p + 3] == 0xfb)) {
      p += 4;
    }
    if (p < b.size() && b[p] == 0xf2) ++p;  // bnd prefix (MPX-era PLTs)
    if (p + 6 <= b.size() && b[p] == 0xff &&
        (b[p + 1] == 0x25 || (!is64 && b[p + 1] == 0xa3))) {
      const int64_t disp = SignExtend(Read32(b, p + 2, false), 32);
      const size_t next = p + 6;
      uint64_t slot;
      if (is64) {
        slot = s.address + next + disp;  // jmp *disp(%rip)
      } else if (b[p + 1] == 0x25) {
        slot = static_cast<uint32_t>(disp);  // jmp *abs32
      } else {
        slot = static_cast<uint32_t>(s.got_plt_address + disp);  // *d(%ebx)
      }
      stubs.push_back({s.address + off, slot});
      off = (next + 7) & ~size_t{7};
    } else {
      off += 8;
    }
  }
  return stubs;
}

// AArch64: "[bti c] adrp xN, page; ldr xM, [xN, #off]" (then add, br).
std::vector<PltStub> DecodeAArch64(const PltSectionBytes& s) {
  const absl::Span<const uint8_t> b = s.bytes;
  std::vector<PltStub> stubs;
  size_t off = 0;
  while (off + 8 <= b.size()) {
    size_t p = off;
    if (Read32(b, p, false) == 0xd503245f && p + 12 <= b.size()) p += 4;
    const uint32_t adrp = Read32(b, p, false);
    const uint32_t ldr = Read32(b, p + 4, false);
    const uint32_t rd = adrp & 0x1f;
    if ((adrp & 0x9f000000) == 0x90000000 && (ldr & 0xffc00000) == 0xf9400000 &&
        ((ldr >> 5) & 0x1f) == rd) {
      const uint64_t immlo = (adrp >> 29) & 0x3;
      const uint64_t immhi = (adrp >> 5) & 0x7ffff;
      const int64_t pages = SignExtend(immhi << 2 | immlo, 21);
      const uint64_t page = ((s.address + p) & ~uint64_t{0xfff}) +
                            static_cast<uint64_t>(pages) * 4096;
      const uint64_t slot = page + ((ldr >> 10) & 0xfff) * 8;
      stubs.push_back({s.address + off, slot});
      off = p + 8;
    } else {
      off += 4;
    }
  }
  return stubs;
}

// ARM data-processing immediate: imm8 rotated right by 2 * rot.
uint32_t ArmImmediate(uint32_t insn) {
  const uint32_t imm8 = insn & 0xff;
  const uint32_t rot = ((insn >> 8) & 0xf) * 2;
  return rot == 0 ? imm8 : (imm8 >> rot) | (imm8 << (32 - rot));
}

// "ldr pc, [rN, #+-imm]{!}" (pre-indexed): returns true and the signed
// offset when insn is one with base register rn.
bool ArmLdrPc(uint32_t insn, uint32_t rn, int64_t* offset) {
  if ((insn & 0xff50f000) != 0xe510f000 || ((insn >> 16) & 0xf) != rn) {
    return false;
  }
  const int64_t imm = insn & 0xfff;
  *offset = (insn & (1u << 23)) ? imm : -imm;
  return true;
}

// ARM (A32) stubs, GNU ld and lld:
//   add ip, pc, #a [; add ip, ip, #b]... ; ldr pc, [ip, #d]!
//   movw ip, #lo; movt ip, #hi; add ip, ip, pc; ldr pc, [ip]
std::vector<PltStub> DecodeArm(const PltSectionBytes& s) {
  const absl::Span<const uint8_t> b = s.bytes;
  const bool be = s.big_endian_code;
  std::vector<PltStub> stubs;
  auto word = [&](size_t at) { return Read32(b, at, be); };
  size_t off = 0;
  while (off + 8 <= b.size()) {
    const uint32_t first = word(off);
    bool matched = false;
    if ((first & 0xffff0000) == 0xe28f0000) {  // add rX, pc, #imm
      const uint32_t rx = (first >> 12) & 0xf;
      uint64_t target = s.address + off + 8 + ArmImmediate(first);
      size_t p = off + 4;
      for (int adds = 0; adds < 3 && p + 4 <= b.size(); ++adds) {
        const uint32_t insn = word(p);
        if ((insn & 0xfff00000) != 0xe2800000 || ((insn >> 16) & 0xf) != rx ||
            ((insn >> 12) & 0xf) != rx) {
          break;
        }
        target += ArmImmediate(insn);
        p += 4;
      }
      int64_t disp = 0;
      if (p + 4 <= b.size() && ArmLdrPc(word(p), rx, &disp)) {
        stubs.push_back(
            {s.address + off, static_cast<uint32_t>(target + disp)});
        off = p + 4;
        matched = true;
      }
    } else if ((first & 0xfff00000) == 0xe3000000 && off + 16 <= b.size()) {
      const uint32_t rd = (first >> 12) & 0xf;  // movw rd, #lo
      const uint32_t movt = word(off + 4);
      const uint32_t add = word(off + 8);
      int64_t disp = 0;
      if ((movt & 0xfff00000) == 0xe3400000 && ((movt >> 12) & 0xf) == rd &&
          add == (0xe080000fu | rd << 16 | rd << 12) &&
          ArmLdrPc(word(off + 12), rd, &disp)) {
        const uint32_t lo = ((first >> 4) & 0xf000) | (first & 0xfff);
        const uint32_t hi = ((movt >> 4) & 0xf000) | (movt & 0xfff);
        const uint64_t target = s.address + off + 8 + 8 + (hi << 16 | lo);
        stubs.push_back(
            {s.address + off, static_cast<uint32_t>(target + disp)});
        off += 16;
        matched = true;
      }
    }
    if (!matched) off += 4;
  }
  return stubs;
}

}  // namespace

std::vector<PltStub> DecodePltStubs(const PltSectionBytes& section) {
  switch (section.machine) {
    case llvm::ELF::EM_X86_64:
    case llvm::ELF::EM_386:
      return DecodeX86(section);
    case llvm::ELF::EM_AARCH64:
      return DecodeAArch64(section);
    case llvm::ELF::EM_ARM:
      return DecodeArm(section);
    default:
      return {};
  }
}

}  // namespace hwt::symbolizer
