// Checks instruction lengths and classes against hand-assembled encodings
// (bytes and expectations from the Intel SDM opcode tables).
#include "decoders/x86/x86_insn.h"

#include <vector>

#include "gtest/gtest.h"

namespace hwt::x86 {
namespace {

struct Case {
  std::vector<uint8_t> bytes;
  uint8_t length;
  InsnClass cls;
  uint64_t target;  // for ip 0x1000
  bool rep;
  bool syscall;
};

class X86InsnTest : public ::testing::TestWithParam<Case> {};

TEST_P(X86InsnTest, Decodes) {
  static auto decoder = InsnDecoder::Create(Mode::k64);
  const Case& c = GetParam();
  std::vector<uint8_t> bytes = c.bytes;
  bytes.resize(15, 0x90);  // trailing bytes must not change the result
  auto insn = decoder->Decode(bytes, 0x1000);
  ASSERT_TRUE(insn.has_value());
  EXPECT_EQ(insn->length, c.length);
  EXPECT_EQ(insn->cls, c.cls);
  EXPECT_EQ(insn->target, c.target);
  EXPECT_EQ(insn->rep_string, c.rep);
  EXPECT_EQ(insn->is_syscall, c.syscall);
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, X86InsnTest,
    ::testing::Values(
        Case{{0x90}, 1, InsnClass::kOther, 0, false, false},  // nop
        Case{{0xe8, 0x10, 0, 0, 0}, 5, InsnClass::kCall, 0x1015, false, false},
        Case{{0xff, 0xd0},
             2,
             InsnClass::kCallIndirect,
             0,
             false,
             false},  // call *%rax
        Case{{0xff, 0x14, 0xc5, 0, 0, 0, 0},
             7,
             InsnClass::kCallIndirect,
             0,
             false,
             false},  // call *0(,%rax,8)
        Case{{0x41, 0xff, 0x55, 0x08},
             4,
             InsnClass::kCallIndirect,
             0,
             false,
             false},  // call *8(%r13)
        Case{{0xc3}, 1, InsnClass::kReturn, 0, false, false},
        // lock cmpxchg %edx,0(%rbp): LLVM returns the LOCK prefix alone.
        Case{{0xf0, 0x0f, 0xb1, 0x55, 0x00},
             5,
             InsnClass::kOther,
             0,
             false,
             false},
        // xacquire lock add $1,(%rax)
        Case{{0xf2, 0xf0, 0x83, 0x00, 0x01},
             5,
             InsnClass::kOther,
             0,
             false,
             false},
        Case{
            {0xc2, 0x08, 0x00}, 3, InsnClass::kReturn, 0, false, false},  // ret
                                                                          // $8
        Case{{0xf3, 0xc3}, 2, InsnClass::kReturn, 0, false, false},  // rep ret
        Case{{0x74, 0x05}, 2, InsnClass::kCondJump, 0x1007, false, false},
        Case{{0x0f, 0x85, 0x00, 0x01, 0, 0},
             6,
             InsnClass::kCondJump,
             0x1106,
             false,
             false},
        Case{{0xe2, 0xfe},
             2,
             InsnClass::kCondJump,
             0x1000,
             false,
             false},  // loop
        Case{{0xe3, 0x02},
             2,
             InsnClass::kCondJump,
             0x1004,
             false,
             false},  // jrcxz
        Case{{0xeb, 0xfe}, 2, InsnClass::kJump, 0x1000, false, false},
        Case{{0xe9, 0, 1, 0, 0}, 5, InsnClass::kJump, 0x1105, false, false},
        Case{{0xff, 0xe0},
             2,
             InsnClass::kJumpIndirect,
             0,
             false,
             false},  // jmp *%rax
        Case{{0x3e, 0xff, 0xe0}, 3, InsnClass::kJumpIndirect, 0, false, false},
        Case{{0x0f, 0x05}, 2, InsnClass::kFarCall, 0, false, true},  // syscall
        Case{
            {0xcd, 0x80}, 2, InsnClass::kFarCall, 0, false, true},  // int $0x80
        Case{{0xcc}, 1, InsnClass::kFarCall, 0, false, false},      // int3
        Case{{0x48, 0x0f, 0x07},
             3,
             InsnClass::kFarReturn,
             0,
             false,
             false},  // sysretq
        Case{{0x48, 0xcf}, 2, InsnClass::kFarReturn, 0, false, false},  // iretq
        Case{{0xf3, 0xa4}, 2, InsnClass::kOther, 0, true, false},  // rep movsb
        Case{
            {0xf3, 0x48, 0xab}, 3, InsnClass::kOther, 0, true, false},  // rep
                                                                        // stosq
        Case{{0xa4}, 1, InsnClass::kOther, 0, false, false},            // movsb
        Case{{0xf3, 0x0f, 0x1e, 0xfa},
             4,
             InsnClass::kOther,
             0,
             false,
             false},                                                // endbr64
        Case{{0xf3, 0x90}, 2, InsnClass::kOther, 0, false, false},  // pause
        Case{{0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8},
             10,
             InsnClass::kOther,
             0,
             false,
             false},  // movabs
        Case{{0xc5, 0xfd, 0x6f, 0x06}, 4, InsnClass::kOther, 0, false, false}
        // vmovdqa (%rsi),%ymm0
        ));

TEST(X86InsnTest, TruncatedInstructionIsRejected) {
  auto decoder = InsnDecoder::Create(Mode::k64);
  std::vector<uint8_t> bytes = {0xe8, 0x10, 0x00};
  EXPECT_FALSE(decoder->Decode(bytes, 0x1000).has_value());
}

TEST(X86InsnTest, DisassemblyShowsAbsoluteBranchTargets) {
  auto decoder = InsnDecoder::Create(Mode::k64);
  std::vector<uint8_t> call = {0xe8, 0x10, 0x00, 0x00, 0x00};
  EXPECT_EQ(decoder->Disassemble(call, 0x1000), "callq\t0x1015");
  std::vector<uint8_t> jcc = {0x74, 0xfe};
  EXPECT_EQ(decoder->Disassemble(jcc, 0x2000), "je\t0x2000");
}

TEST(X86InsnTest, DisassemblesForListings) {
  auto decoder = InsnDecoder::Create(Mode::k64);
  std::vector<uint8_t> bytes = {0xff, 0xd0};
  EXPECT_EQ(decoder->Disassemble(bytes, 0), "callq\t*%rax");
}

}  // namespace
}  // namespace hwt::x86
