// Tests of InsnCache/InsnWalker: block expansion over hand-assembled code,
// direct branches followed inside blocks, rep-prefixed string instructions,
// instructions straddling two sections, 32-bit code, and the errors.
#include "decoders/insn_walker.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

class InsnWalkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-insn-walker-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    timeline_.SetBufferCount(1);
  }

  uint32_t AddCode(uint64_t address, const std::vector<uint8_t>& bytes) {
    const std::string file =
        absl::StrFormat("%s/code-%u", dir_->path(), timeline_.images().size());
    EXPECT_TRUE(
        WriteFileAtomically(file, std::string(bytes.begin(), bytes.end()))
            .ok());
    capture::Image image;
    image.file = file;
    image.is_elf = false;
    capture::Region region;
    region.image = timeline_.AddImage(image);
    region.start = address;
    region.end = address + bytes.size();
    region.file_size = bytes.size();
    return timeline_.AddRegion(region);
  }

  static Event Block(uint64_t ip, uint64_t last_ip, uint32_t ninsn,
                     Isa isa = Isa::kX86_64) {
    Event e;
    e.kind = EventKind::kBlock;
    e.ip = ip;
    e.last_ip = last_ip;
    e.ninsn = ninsn;
    e.isa = isa;
    return e;
  }

  std::unique_ptr<TempDir> dir_;
  capture::AddressSpaceTimeline timeline_;
};

TEST_F(InsnWalkerTest, ExpandsStraightLineCodeAndFollowsDirectBranches) {
  const uint32_t region =
      AddCode(0x1000, {
                          0xb8, 0x01, 0x00, 0x00, 0x00,  // 1000 mov eax, 1
                          0xf3, 0x48, 0xa5,              // 1005 rep movsq
                          0xeb, 0x02,                    // 1008 jmp 100c
                          0xcc, 0xcc,                    // 100a
                          0xe8, 0x01, 0x00, 0x00, 0x00,  // 100c call 1012
                          0x90,                          // 1011
                          0x74, 0x00,                    // 1012 je 1014
                      });
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(region);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  ASSERT_TRUE(walker.Expand(Block(0x1000, 0x1012, 5), &out).ok());
  EXPECT_EQ(out,
            (std::vector<uint64_t>{0x1000, 0x1005, 0x1008, 0x100c, 0x1012}));
  // A shorter block from the same start reuses the cached run.
  out.clear();
  ASSERT_TRUE(walker.Expand(Block(0x1000, 0x1005, 2), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x1000, 0x1005}));
  // The same rep movsq resumed after an interrupt is one instruction again.
  out.clear();
  ASSERT_TRUE(walker.Expand(Block(0x1005, 0x1005, 1), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x1005}));
  auto insn = walker.insns().Get(0x1005, Isa::kX86_64);
  ASSERT_TRUE(insn.has_value());
  EXPECT_TRUE(insn->rep_string);
  EXPECT_EQ(NextInBlock(0x1008, *walker.insns().Get(0x1008, Isa::kX86_64)),
            0x100cu);
}

TEST_F(InsnWalkerTest, InstructionStraddlingTwoSections) {
  // mov eax, imm32 split over two regions at 0x2002.
  const uint32_t a = AddCode(0x2000, {0x90, 0x90, 0xb8, 0x11});
  const uint32_t b = AddCode(0x2004, {0x22, 0x33, 0x44, 0x90});
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(a);
  memory.Map(b);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  ASSERT_TRUE(walker.Expand(Block(0x2000, 0x2007, 4), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x2000, 0x2001, 0x2002, 0x2007}));
}

TEST_F(InsnWalkerTest, ThirtyTwoBitCode) {
  // In 32-bit mode 0x48 is "dec eax" (one byte), not a REX prefix.
  const uint32_t region = AddCode(0x3000, {0x48, 0x90, 0xc3});
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(region);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  ASSERT_TRUE(walker.Expand(Block(0x3000, 0x3002, 3, Isa::kX86_32), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x3000, 0x3001, 0x3002}));
  out.clear();
  // In 64-bit mode 48 90 is one instruction (rex.w nop).
  ASSERT_TRUE(walker.Expand(Block(0x3000, 0x3002, 2), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x3000, 0x3002}));
}

TEST_F(InsnWalkerTest, Errors) {
  const uint32_t region = AddCode(
      0x4000, {0x90, 0x74, 0x02, 0x90, 0x90, 0x06 /* invalid in 64-bit */});
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(region);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  // Past a conditional branch, libipt would have ended the block.
  absl::Status status = walker.Expand(Block(0x4000, 0x4003, 3), &out);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("needs trace"));
  status = walker.Expand(Block(0x4003, 0x4005, 3), &out);
  EXPECT_THAT(status.message(),
              ::testing::HasSubstr("invalid instruction at 0x4005"));
  status = walker.Expand(Block(0x5000, 0x5000, 1), &out);
  EXPECT_THAT(status.message(),
              ::testing::HasSubstr("no code mapped at 0x5000"));
  status = walker.Expand(Block(0x4003, 0x4003, 2), &out);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("not at 0x4003"));
}

TEST_F(InsnWalkerTest, CachesFollowTheMemoryImage) {
  const uint32_t nops = AddCode(0x6000, {0x90, 0x90, 0x90});
  const uint32_t mov = AddCode(0x6000, {0xb0, 0x01, 0x90});  // mov al, 1
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(nops);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  ASSERT_TRUE(walker.Expand(Block(0x6000, 0x6001, 2), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x6000, 0x6001}));
  memory.Unmap(nops);
  memory.Map(mov);
  out.clear();
  ASSERT_TRUE(walker.Expand(Block(0x6000, 0x6002, 2), &out).ok());
  EXPECT_EQ(out, (std::vector<uint64_t>{0x6000, 0x6002}));
}

}  // namespace
}  // namespace hwt
