// Tests of the .ini tokenizer of the OpenCSD snapshot importer: sections and
// entries with their line numbers, comments, blanks and CR line ends, the
// malformed lines it rejects (each error naming file and line), numbers as
// OpenCSD reads them, and the field reads' messages.
#include "capture/ini_file.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::capture::ini {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

TEST(IniFileTest, SectionsAndEntriesKeepTheirLines) {
  auto file = Parse("device1.ini",
                    "; a comment line\n"
                    "[device]\n"
                    "  name = cpu_0  \n"
                    "\n"
                    "class=core ; trailing comment\n"
                    "[ regs ]\r\n"
                    "PC(size:64)=0x80000000\r\n"
                    "# another comment\n"
                    "EMPTY=\n");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->name, "device1.ini");
  ASSERT_EQ(file->sections.size(), 2u);
  const Section& device = file->sections[0];
  EXPECT_EQ(device.name, "device");
  EXPECT_EQ(device.line, 2);
  EXPECT_THAT(device.entries,
              ElementsAre(Field(&Entry::line, 3), Field(&Entry::line, 5)));
  EXPECT_EQ(device.entries[0].key, "name");
  EXPECT_EQ(device.entries[0].value, "cpu_0");
  EXPECT_EQ(device.entries[1].value, "core");
  const Section* regs = file->Find("regs");
  ASSERT_NE(regs, nullptr);
  EXPECT_EQ(regs->line, 6);
  ASSERT_EQ(regs->entries.size(), 2u);
  EXPECT_EQ(regs->entries[0].key, "PC(size:64)");
  EXPECT_EQ(regs->entries[0].value, "0x80000000");
  EXPECT_EQ(regs->entries[1].line, 9);
  EXPECT_EQ(regs->entries[1].value, "");
  EXPECT_EQ(file->Find("nothing"), nullptr);
  EXPECT_EQ(device.Find("class")->value, "core");
  EXPECT_EQ(device.Find("type"), nullptr);
}

TEST(IniFileTest, CommentsCutAValueAnywhere) {
  // As in OpenCSD's parser: a ';' or '#' inside a value starts a comment.
  auto file = Parse("trace.ini", "[x]\nfile=a#b.bin\nname=c;d\n");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->sections[0].entries[0].value, "a");
  EXPECT_EQ(file->sections[0].entries[1].value, "c");
}

TEST(IniFileTest, MalformedLinesNameFileAndLine) {
  EXPECT_EQ(
      Parse("s.ini", "[snapshot]\nversion=1.0\n[trace\n").status().message(),
      "s.ini:3: section header '[trace' has no closing ']'");
  EXPECT_EQ(Parse("s.ini", "[snapshot]\n\n  just words \n").status().message(),
            "s.ini:3: expected 'key=value' or '[section]', got 'just words'");
  EXPECT_EQ(Parse("s.ini", "; header\nkey=value\n[late]\n").status().message(),
            "s.ini:2: 'key=value' comes before any [section] header");
  EXPECT_TRUE(absl::IsInvalidArgument(Parse("s.ini", "[a\n").status()));
}

TEST(IniFileTest, EmptyTextHasNoSections) {
  auto file = Parse("empty.ini", "");
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->sections.empty());
}

TEST(IniFileTest, NumbersAsStrtoulBaseZero) {
  EXPECT_EQ(ParseNumber("0x1F"), 0x1fu);
  EXPECT_EQ(ParseNumber("0X10"), 0x10u);
  EXPECT_EQ(ParseNumber("017"), 15u);
  EXPECT_EQ(ParseNumber("0"), 0u);
  EXPECT_EQ(ParseNumber("42"), 42u);
  EXPECT_EQ(ParseNumber("\"0x20\""), 0x20u);
  EXPECT_EQ(ParseNumber(" 7 "), 7u);
  EXPECT_EQ(ParseNumber("0xffffffffffffffff"), ~uint64_t{0});
  EXPECT_EQ(ParseNumber("0x1ffffffffffffffff"), std::nullopt);
  EXPECT_EQ(ParseNumber("09"), std::nullopt);
  EXPECT_EQ(ParseNumber("0x"), std::nullopt);
  EXPECT_EQ(ParseNumber("12abc"), std::nullopt);
  EXPECT_EQ(ParseNumber(""), std::nullopt);
  EXPECT_EQ(ParseNumber("-1"), std::nullopt);
}

TEST(IniFileTest, FieldReadsNameTheirPlace) {
  auto file = Parse("cpu_0.ini", "[regs]\nTRCIDR0=zz\nname=\ntrcidr0=1\n");
  ASSERT_TRUE(file.ok());
  const Section& regs = file->sections[0];
  EXPECT_EQ(RequireNumber(*file, regs, regs.entries[0]).status().message(),
            "cpu_0.ini:2: [regs] TRCIDR0: 'zz' is not a number (expected "
            "decimal or 0x-hex)");
  EXPECT_EQ(*RequireNumber(*file, regs, regs.entries[2]), 1u);
  // Present but empty counts as missing.
  EXPECT_EQ(RequireKey(*file, regs, "name").status().message(),
            "cpu_0.ini: [regs]: missing 'name' (section starts at line 1)");
  EXPECT_EQ(RequireKey(*file, regs, "file").status().message(),
            "cpu_0.ini: [regs]: missing 'file' (section starts at line 1)");
  EXPECT_EQ(RejectDuplicateKeys(*file, regs).message(),
            "cpu_0.ini:4: [regs] trcidr0: key given twice (line 4)");
  EXPECT_EQ(Where(*file, regs), "cpu_0.ini: [regs]");
}

TEST(IniFileTest, Trim) {
  EXPECT_EQ(Trim("  a b \t"), "a b");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim("\"x\"", "\""), "x");
}

}  // namespace
}  // namespace hwt::capture::ini
