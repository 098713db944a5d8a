// Tests of CheckLineTableHeader on hand-built DWARF v5 line table headers:
// the entry formats LLVM 19 handles are accepted, the ones it would crash on
// (an unknown form, a non-constant form for a numeric field) are refused, and
// entries that run past the header are refused before LLVM reads them.
#include "symbolizer/dwarf_line_check.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/BinaryFormat/Dwarf.h"

namespace hwt::symbolizer {
namespace {

using ::testing::HasSubstr;
namespace dw = llvm::dwarf;

// One entry format: (content type, form) pairs.
using Formats = std::vector<std::pair<uint8_t, uint8_t>>;

// A little-endian 32-bit DWARF v5 line table header (no line program) with
// one directory entry format list and one file entry format list.
// `directories` and `files` are the encoded entries that follow each list.
std::string Header(const Formats& dir_formats, uint8_t dir_count,
                   const std::string& directories, const Formats& file_formats,
                   uint8_t file_count, const std::string& files) {
  std::string after_header_length;
  after_header_length += '\x01';  // minimum_instruction_length
  after_header_length += '\x01';  // maximum_operations_per_instruction
  after_header_length += '\x01';  // default_is_stmt
  after_header_length += '\xfb';  // line_base -5
  after_header_length += '\x0e';  // line_range 14
  after_header_length += '\x0d';  // opcode_base 13
  after_header_length +=
      std::string("\x00\x01\x01\x01\x01\x00\x00\x00\x01\x00\x00\x01", 12);
  auto add_list = [&](const Formats& formats, uint8_t count,
                      const std::string& entries) {
    after_header_length += static_cast<char>(formats.size());
    for (auto [type, form] : formats) {
      after_header_length += static_cast<char>(type);
      after_header_length += static_cast<char>(form);
    }
    after_header_length += static_cast<char>(count);
    after_header_length += entries;
  };
  add_list(dir_formats, dir_count, directories);
  add_list(file_formats, file_count, files);

  auto le32 = [](uint32_t v) {
    std::string s;
    for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  std::string after_length;
  after_length += std::string("\x05\x00", 2);  // version 5
  after_length += '\x08';                      // address_size
  after_length += '\x00';                      // segment_selector_size
  after_length += le32(after_header_length.size());
  after_length += after_header_length;
  return le32(after_length.size()) + after_length;
}

const Formats kPathString = {{dw::DW_LNCT_path, dw::DW_FORM_string}};
const Formats kPathStringAndDirectory = {
    {dw::DW_LNCT_path, dw::DW_FORM_string},
    {dw::DW_LNCT_directory_index, dw::DW_FORM_udata}};

TEST(DwarfLineCheckTest, AcceptsAWellFormedHeader) {
  const std::string line =
      Header(kPathString, 1, std::string("/src\0", 5), kPathStringAndDirectory,
             2, std::string("a.c\0\x00b.c\0\x00", 10));
  EXPECT_EQ(CheckLineTableHeader(line, 0, /*little_endian=*/true), "");
}

TEST(DwarfLineCheckTest, RefusesAFormLlvmDoesNotKnow) {
  const std::string line = Header(kPathString, 1, std::string("/src\0", 5),
                                  {{dw::DW_LNCT_path, 0x7f}}, 0, "");
  EXPECT_THAT(CheckLineTableHeader(line, 0, true),
              HasSubstr("file name entry format: content type 0x1 with form "
                        "0x7f"));
}

TEST(DwarfLineCheckTest, RefusesANonConstantFormForANumber) {
  const std::string line =
      Header(kPathString, 1, std::string("/src\0", 5),
             {{dw::DW_LNCT_path, dw::DW_FORM_string},
              {dw::DW_LNCT_directory_index, dw::DW_FORM_string}},
             0, "");
  EXPECT_THAT(CheckLineTableHeader(line, 0, true),
              HasSubstr("file name entry format"));
}

TEST(DwarfLineCheckTest, RefusesEntriesPastTheHeader) {
  // Two directories promised, one given, and its string is unterminated.
  const std::string line =
      Header(kPathString, 2, std::string("/src", 4), kPathString, 0, "");
  EXPECT_THAT(CheckLineTableHeader(line, 0, true), HasSubstr("truncated"));
}

TEST(DwarfLineCheckTest, RefusesAnOverlongLeb128) {
  // A directory index of 11 LEB128 bytes does not fit in 64 bits; LLVM's
  // decoder refuses it, so the check must not step over it either.
  const std::string line =
      Header(kPathString, 1, std::string("/src\0", 5), kPathStringAndDirectory,
             1, std::string("a.c\0", 4) + std::string(10, '\xff') + '\x01');
  EXPECT_THAT(CheckLineTableHeader(line, 0, true), HasSubstr("truncated"));
}

TEST(DwarfLineCheckTest, LeavesOtherVersionsToLlvm) {
  std::string line = Header(kPathString, 1, std::string("/src\0", 5),
                            {{dw::DW_LNCT_path, 0x7f}}, 0, "");
  line[4] = 4;  // version 4 has no entry formats
  EXPECT_EQ(CheckLineTableHeader(line, 0, true), "");
}

TEST(DwarfLineCheckTest, ChecksTheHeaderAtItsOffset) {
  const std::string good =
      Header(kPathString, 1, std::string("/src\0", 5), kPathString, 0, "");
  const std::string bad = Header(kPathString, 1, std::string("/src\0", 5),
                                 {{dw::DW_LNCT_path, 0x7f}}, 0, "");
  const std::string line = good + bad;
  EXPECT_EQ(CheckLineTableHeader(line, 0, true), "");
  EXPECT_NE(CheckLineTableHeader(line, good.size(), true), "");
}

}  // namespace
}  // namespace hwt::symbolizer
