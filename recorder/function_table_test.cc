// FunctionTable: the tie-break rules of docs/call-stacks.md on synthetic
// symbols, and real images (sizes from counted.S, size-0 symbols, PLT
// entries of a dynamic program, aliases in libc, IRELATIVE PLT entries of a
// static program).
#include "recorder/function_table.h"

#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/test_programs.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::Program;

FunctionSymbol Sym(uint64_t start, uint64_t end, std::string name) {
  FunctionSymbol s;
  s.start = start;
  s.end = end;
  s.name = name;
  s.raw_name = name;
  return s;
}

std::string NameAt(const FunctionTable& table, uint64_t vaddr) {
  int32_t index = table.Find(vaddr);
  return index == FunctionTable::kNone ? "(none)" : table.symbols()[index].name;
}

const FunctionSymbol* ByName(const FunctionTable& table,
                             const std::string& name) {
  for (const FunctionSymbol& s : table.symbols()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(FunctionTableTest, TieBreaksHighestStartThenLargestThenName) {
  FunctionTable table = FunctionTable::FromSymbols({
      Sym(0x100, 0x200, "outer"),
      Sym(0x150, 0x160, "nested"),
      Sym(0x300, 0x310, "memmove"),
      Sym(0x300, 0x310, "__memcpy"),
      Sym(0x400, 0x410, "small"),
      Sym(0x400, 0x480, "large"),
      Sym(0x500, 0x600, "early"),
      Sym(0x550, 0x700, "late"),
  });
  EXPECT_EQ(NameAt(table, 0xff), "(none)");
  EXPECT_EQ(NameAt(table, 0x100), "outer");
  EXPECT_EQ(NameAt(table, 0x155), "nested");
  EXPECT_EQ(NameAt(table, 0x160), "outer");
  EXPECT_EQ(NameAt(table, 0x1ff), "outer");
  EXPECT_EQ(NameAt(table, 0x200), "(none)");
  EXPECT_EQ(NameAt(table, 0x305), "__memcpy");  // '_' sorts before 'm'
  EXPECT_EQ(NameAt(table, 0x405), "large");
  EXPECT_EQ(NameAt(table, 0x420), "large");
  EXPECT_EQ(NameAt(table, 0x520), "early");
  EXPECT_EQ(NameAt(table, 0x580), "late");
  EXPECT_EQ(NameAt(table, 0x650), "late");
  EXPECT_EQ(NameAt(table, 0x700), "(none)");
}

TEST(FunctionTableTest, ReadsSizesAndExtendsSizeZeroSymbols) {
  std::string counted = Program("counted_static");
  auto table = FunctionTable::Load(counted);
  ASSERT_TRUE(table.ok()) << table.status();
  const FunctionSymbol* leaf = ByName(*table, "leaf");
  const FunctionSymbol* leaf2 = ByName(*table, "leaf2");
  const FunctionSymbol* nosize = ByName(*table, "nosize");
  ASSERT_TRUE(leaf && leaf2 && nosize);
  EXPECT_EQ(leaf->end - leaf->start, 8u);  // mov(5) add(2) ret(1)
  EXPECT_EQ(NameAt(*table, leaf->start + 7), "leaf");
  EXPECT_EQ(NameAt(*table, leaf->end), "leaf2");
  // nosize (nop; ret) has no .size: it runs to the end of .text.
  EXPECT_GE(nosize->end, nosize->start + 2);
  EXPECT_EQ(NameAt(*table, nosize->start + 1), "nosize");
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  EXPECT_EQ(NameAt(*table, elf->entry), "_start");
}

TEST(FunctionTableTest, PltEntriesOfADynamicProgram) {
  auto table = FunctionTable::Load(Program("maps_dynamic"));
  ASSERT_TRUE(table.ok()) << table.status();
  const FunctionSymbol* puts = ByName(*table, "puts@plt");
  ASSERT_NE(puts, nullptr);
  EXPECT_EQ(puts->raw_name, "puts@plt");
  EXPECT_GT(puts->end, puts->start);
  EXPECT_LE(puts->end - puts->start, 16u);
  EXPECT_EQ(NameAt(*table, puts->start), "puts@plt");
  EXPECT_EQ(NameAt(*table, puts->end - 1), "puts@plt");
  EXPECT_NE(ByName(*table, "main"), nullptr);
}

TEST(FunctionTableTest, StaticProgramsHaveNoNamedPltEntries) {
  auto table = FunctionTable::Load(Program("strings_static"));
  ASSERT_TRUE(table.ok()) << table.status();
  for (const FunctionSymbol& s : table->symbols()) {
    EXPECT_THAT(s.name, ::testing::Not(::testing::EndsWith("@plt")));
  }
  EXPECT_NE(ByName(*table, "__strlen_avx2"), nullptr);
}

TEST(FunctionTableTest, LibcAliasesResolveToTheFirstRawName) {
  auto elf = capture::ReadElfFile(Program("maps_dynamic"));
  ASSERT_TRUE(elf.ok());
  // The C library the dynamic test programs use (dynsym only on Debian).
  auto table = FunctionTable::Load("/lib/x86_64-linux-gnu/libc.so.6");
  if (!table.ok()) GTEST_SKIP() << table.status();
  const FunctionSymbol* puts = ByName(*table, "puts");
  const FunctionSymbol* io_puts = ByName(*table, "_IO_puts");
  if (puts == nullptr || io_puts == nullptr) {
    GTEST_SKIP() << "this libc has no puts/_IO_puts alias pair";
  }
  ASSERT_EQ(puts->start, io_puts->start);
  EXPECT_EQ(NameAt(*table, puts->start), "_IO_puts");
}

TEST(FunctionTableTest, NonElfFilesAreErrors) {
  auto table =
      FunctionTable::Load(hwt::recorder::testing::ProgramSource("fib.c"));
  EXPECT_FALSE(table.ok());
  EXPECT_THAT(std::string(table.status().message()),
              ::testing::HasSubstr("fib.c"));
}

}  // namespace
}  // namespace hwt::recorder
