// PLT stub decoding on hand-assembled stubs (x86-64 lazy and IBT, i386 PIC
// and absolute) and on stubs copied from lld's AArch64 and ARM output, whose
// GOT slots were checked against the linker's .rel(a).plt relocations.
#include "symbolizer/plt_decoder.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/BinaryFormat/ELF.h"

namespace hwt::symbolizer {
namespace {

using ::testing::ElementsAre;

MATCHER_P2(Stub, address, slot, "") {
  return arg.address == static_cast<uint64_t>(address) &&
         arg.got_slot == static_cast<uint64_t>(slot);
}

std::vector<uint8_t> Words(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<uint8_t>(w >> (8 * i)));
  }
  return out;
}

std::vector<PltStub> Decode(uint16_t machine, uint64_t address,
                            const std::vector<uint8_t>& bytes,
                            uint64_t got_plt = 0) {
  PltSectionBytes s;
  s.machine = machine;
  s.address = address;
  s.bytes = bytes;
  s.got_plt_address = got_plt;
  // Every prefix must decode without reading past it.
  for (size_t n = 0; n < bytes.size(); ++n) {
    PltSectionBytes prefix = s;
    prefix.bytes = absl::MakeConstSpan(bytes.data(), n);
    DecodePltStubs(prefix);
  }
  return DecodePltStubs(s);
}

TEST(PltDecoderTest, X86_64LazyPlt) {
  const std::vector<uint8_t> plt = {
      // PLT0: push GOT+8(%rip); jmp *GOT+16(%rip); nopl
      0xff, 0x35, 0xca, 0x2f, 0x00, 0x00, 0xff, 0x25, 0xcc, 0x2f, 0x00, 0x00,
      0x0f, 0x1f, 0x40, 0x00,
      // jmp *0x2fca(%rip); push $0; jmp PLT0
      0xff, 0x25, 0xca, 0x2f, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00, 0xe9,
      0xe0, 0xff, 0xff, 0xff,
      // jmp *0x2fc2(%rip); push $1; jmp PLT0
      0xff, 0x25, 0xc2, 0x2f, 0x00, 0x00, 0x68, 0x01, 0x00, 0x00, 0x00, 0xe9,
      0xd0, 0xff, 0xff, 0xff};
  EXPECT_THAT(Decode(llvm::ELF::EM_X86_64, 0x1020, plt),
              ElementsAre(Stub(0x1030, 0x1036 + 0x2fca),
                          Stub(0x1040, 0x1046 + 0x2fc2)));
}

TEST(PltDecoderTest, X86_64IbtPltSecAndPltGot) {
  const std::vector<uint8_t> plt_sec = {
      // endbr64; bnd jmp *0x2f9d(%rip); nopl 0(%rax,%rax)
      0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0x9d, 0x2f, 0x00, 0x00,
      0x0f, 0x1f, 0x44, 0x00, 0x00, 0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff,
      0x25, 0x95, 0x2f, 0x00, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00};
  EXPECT_THAT(Decode(llvm::ELF::EM_X86_64, 0x1070, plt_sec),
              ElementsAre(Stub(0x1070, 0x107b + 0x2f9d),
                          Stub(0x1080, 0x108b + 0x2f95)));
  // Non-IBT .plt.got: 8-byte "jmp *x(%rip); xchg %ax,%ax" entries.
  const std::vector<uint8_t> plt_got = {0xff, 0x25, 0x72, 0x2f, 0x00, 0x00,
                                        0x66, 0x90, 0xff, 0x25, 0x6a, 0x2f,
                                        0x00, 0x00, 0x66, 0x90};
  EXPECT_THAT(Decode(llvm::ELF::EM_X86_64, 0x1060, plt_got),
              ElementsAre(Stub(0x1060, 0x1066 + 0x2f72),
                          Stub(0x1068, 0x106e + 0x2f6a)));
  // IBT .plt entries (endbr64; push; bnd jmp .plt) jump through no GOT slot.
  const std::vector<uint8_t> ibt_lazy = {0xf3, 0x0f, 0x1e, 0xfa, 0x68, 0x00,
                                         0x00, 0x00, 0x00, 0xf2, 0xe9, 0xe1,
                                         0xff, 0xff, 0xff, 0x90};
  EXPECT_TRUE(Decode(llvm::ELF::EM_X86_64, 0x1030, ibt_lazy).empty());
}

TEST(PltDecoderTest, I386PicAndAbsolute) {
  // PIC: jmp *0xc(%ebx), %ebx = .got.plt.
  const std::vector<uint8_t> pic = {0xff, 0xa3, 0x0c, 0x00, 0x00, 0x00,
                                    0x68, 0x00, 0x00, 0x00, 0x00, 0xe9,
                                    0xe0, 0xff, 0xff, 0xff};
  EXPECT_THAT(Decode(llvm::ELF::EM_386, 0x1010, pic, 0x3000),
              ElementsAre(Stub(0x1010, 0x300c)));
  // Position-dependent: jmp *0x804a00c.
  const std::vector<uint8_t> abs = {0xff, 0x25, 0x0c, 0xa0, 0x04, 0x08,
                                    0x68, 0x00, 0x00, 0x00, 0x00, 0xe9,
                                    0xe0, 0xff, 0xff, 0xff};
  EXPECT_THAT(Decode(llvm::ELF::EM_386, 0x8049030, abs),
              ElementsAre(Stub(0x8049030, 0x804a00c)));
  // x86-64 has no %ebx-relative form.
  EXPECT_TRUE(Decode(llvm::ELF::EM_X86_64, 0x1010, pic).empty());
}

TEST(PltDecoderTest, AArch64FromLld) {
  const std::vector<uint8_t> plt = Words({
      0xa9bf7bf0, 0x90000110, 0xf9429211, 0x91148210,  // PLT0
      0xd61f0220, 0xd503201f, 0xd503201f, 0xd503201f, 0x90000110, 0xf9429611,
      0x9114a210, 0xd61f0220,                          // ext1@plt
      0x90000110, 0xf9429a11, 0x9114c210, 0xd61f0220,  // ext2@plt
  });
  // PLT0 matches the pattern too (its slot has no relocation: dropped by the
  // caller); the entries' slots are .rela.plt's r_offsets.
  EXPECT_THAT(Decode(llvm::ELF::EM_AARCH64, 0x10430, plt),
              ElementsAre(Stub(0x10434, 0x30520), Stub(0x10450, 0x30528),
                          Stub(0x10460, 0x30530)));
}

TEST(PltDecoderTest, AArch64WithBti) {
  const std::vector<uint8_t> plt = Words({
      0xd503245f,
      0x90000110,
      0xf9429611,
      0x9114a210,
      0xd61f0220,
      0xd503201f,
  });
  EXPECT_THAT(Decode(llvm::ELF::EM_AARCH64, 0x10450, plt),
              ElementsAre(Stub(0x10450, 0x30528)));
}

TEST(PltDecoderTest, ArmFromLld) {
  const std::vector<uint8_t> plt = Words({
      0xe52de004, 0xe28fe600, 0xe28eea20, 0xe5bef08c,  // PLT0
      0xd4d4d4d4, 0xd4d4d4d4, 0xd4d4d4d4, 0xd4d4d4d4, 0xe28fc600, 0xe28cca20,
      0xe5bcf074, 0xd4d4d4d4,                          // ext1@plt
      0xe28fc600, 0xe28cca20, 0xe5bcf068, 0xd4d4d4d4,  // ext2@plt
  });
  EXPECT_THAT(Decode(llvm::ELF::EM_ARM, 0x10270, plt),
              ElementsAre(Stub(0x10274, 0x30308), Stub(0x10290, 0x3030c),
                          Stub(0x102a0, 0x30310)));
}

TEST(PltDecoderTest, ArmLongForm) {
  // movw ip, #0x1234; movt ip, #0x2; add ip, ip, pc; ldr pc, [ip]
  const std::vector<uint8_t> plt =
      Words({0xe301c234, 0xe340c002, 0xe08cc00f, 0xe59cf000});
  EXPECT_THAT(Decode(llvm::ELF::EM_ARM, 0x10000, plt),
              ElementsAre(Stub(0x10000, 0x10000 + 16 + 0x21234)));
}

TEST(PltDecoderTest, OtherMachinesGiveNothing) {
  EXPECT_TRUE(
      Decode(llvm::ELF::EM_RISCV, 0x1000, {0xff, 0x25, 0, 0, 0, 0, 0, 0})
          .empty());
}

}  // namespace
}  // namespace hwt::symbolizer
