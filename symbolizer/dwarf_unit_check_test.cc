// Tests of CheckUnitDies on hand-built DWARF v4 units (each also given to
// LLVM, so an accepted unit is one LLVM really extracts) and on the file
// fuzz/elf_symbolize_fuzzer found LLVM 19 crashing on.
#include "symbolizer/dwarf_unit_check.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "symbolizer/probe.h"
#include "symbolizer/symbolizer.h"

namespace hwt::symbolizer {
namespace {

using ::testing::HasSubstr;
using Bytes = std::vector<uint8_t>;
namespace dw = llvm::dwarf;

void Append(Bytes* out, const Bytes& more) {
  out->insert(out->end(), more.begin(), more.end());
}

void AppendLE(Bytes* out, uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out->push_back((value >> (8 * i)) & 0xff);
}

// Abbreviations: 1 = compile unit with children (name string, low_pc addr,
// high_pc data8); 2 = subprogram (name string, frame_base exprloc,
// decl_line udata); 3 = variable with three data8 and a udata; 4 = variable
// with a block4; 5 = variable with form 0x7f; 6 = variable with
// DW_FORM_indirect.
Bytes Abbrevs() {
  return {1,
          dw::DW_TAG_compile_unit,
          dw::DW_CHILDREN_yes,  //
          dw::DW_AT_name,
          dw::DW_FORM_string,  //
          dw::DW_AT_low_pc,
          dw::DW_FORM_addr,  //
          dw::DW_AT_high_pc,
          dw::DW_FORM_data8,
          0,
          0,  //
          2,
          dw::DW_TAG_subprogram,
          dw::DW_CHILDREN_no,  //
          dw::DW_AT_name,
          dw::DW_FORM_string,  //
          dw::DW_AT_frame_base,
          dw::DW_FORM_exprloc,  //
          dw::DW_AT_decl_line,
          dw::DW_FORM_udata,
          0,
          0,  //
          3,
          dw::DW_TAG_variable,
          dw::DW_CHILDREN_no,  //
          dw::DW_AT_const_value,
          dw::DW_FORM_data8,  //
          dw::DW_AT_byte_size,
          dw::DW_FORM_data8,  //
          dw::DW_AT_decl_column,
          dw::DW_FORM_data8,  //
          dw::DW_AT_decl_line,
          dw::DW_FORM_udata,
          0,
          0,  //
          4,
          dw::DW_TAG_variable,
          dw::DW_CHILDREN_no,  //
          dw::DW_AT_location,
          dw::DW_FORM_block4,
          0,
          0,  //
          5,
          dw::DW_TAG_variable,
          dw::DW_CHILDREN_no,  //
          dw::DW_AT_decl_line,
          0x7f,
          0,
          0,  //
          6,
          dw::DW_TAG_variable,
          dw::DW_CHILDREN_no,  //
          dw::DW_AT_decl_line,
          dw::DW_FORM_indirect,
          0,
          0,  //
          0};
}

// The unit DIE (abbreviation 1) of the units below.
Bytes UnitDie() {
  Bytes die = {1, 'a', '.', 'c', 0};
  AppendLE(&die, 0x1000, 8);
  AppendLE(&die, 0x100, 8);
  return die;
}

// A subprogram DIE: "f", frame_base {DW_OP_call_frame_cfa}, line 5.
Bytes Subprogram() { return {2, 'f', 0, 1, dw::DW_OP_call_frame_cfa, 5}; }

// A DWARF v4 unit (32-bit format, 8-byte addresses) holding `dies`.
Bytes Unit(const Bytes& dies) {
  Bytes unit;
  AppendLE(&unit, 2 + 4 + 1 + dies.size(), 4);  // unit_length
  AppendLE(&unit, 4, 2);                        // version
  AppendLE(&unit, 0, 4);                        // debug_abbrev_offset
  unit.push_back(8);                            // address_size
  Append(&unit, dies);
  return unit;
}

// A DWARF context over `info` (.debug_info) and the abbreviations above.
class HandBuilt {
 public:
  explicit HandBuilt(const Bytes& info) : info_(info), abbrev_(Abbrevs()) {
    llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> sections;
    sections["debug_info"] = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(reinterpret_cast<const char*>(info_.data()),
                        info_.size()),
        "debug_info", /*RequiresNullTerminator=*/false);
    sections["debug_abbrev"] = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(reinterpret_cast<const char*>(abbrev_.data()),
                        abbrev_.size()),
        "debug_abbrev", /*RequiresNullTerminator=*/false);
    auto ignore = [](llvm::Error error) {
      llvm::consumeError(std::move(error));
    };
    context_ =
        llvm::DWARFContext::create(sections, /*AddrSize=*/8,
                                   /*isLittleEndian=*/true, ignore, ignore);
  }

  std::vector<llvm::DWARFUnit*> Units() {
    std::vector<llvm::DWARFUnit*> units;
    for (const auto& unit : context_->info_section_units()) {
      units.push_back(unit.get());
    }
    return units;
  }

  // CheckUnitDies on the only unit.
  std::string Check() {
    const std::vector<llvm::DWARFUnit*> units = Units();
    if (units.size() != 1) return "expected one unit";
    return CheckUnitDies(*units[0]);
  }

 private:
  Bytes info_;
  Bytes abbrev_;
  std::unique_ptr<llvm::DWARFContext> context_;
};

Bytes Dies(std::initializer_list<Bytes> parts) {
  Bytes dies;
  for (const Bytes& part : parts) Append(&dies, part);
  return dies;
}

TEST(DwarfUnitCheckTest, AcceptsValidUnitThatLlvmExtracts) {
  Bytes var3 = {3};
  AppendLE(&var3, 7, 8);
  AppendLE(&var3, 8, 8);
  AppendLE(&var3, 9, 8);
  var3.push_back(0x85);  // udata 0x105 in two bytes
  var3.push_back(0x02);
  Bytes var4 = {4};
  AppendLE(&var4, 2, 4);
  Append(&var4, {dw::DW_OP_lit0, dw::DW_OP_stack_value});
  const Bytes var6 = {6, dw::DW_FORM_data2, 0x34, 0x12};
  HandBuilt dwarf(Unit(Dies({UnitDie(), Subprogram(), var3, var4, var6, {0}})));
  EXPECT_EQ(dwarf.Check(), "");

  llvm::DWARFUnit* unit = dwarf.Units().at(0);
  const llvm::DWARFDie die = unit->getUnitDIE(/*ExtractUnitDIEOnly=*/false);
  ASSERT_TRUE(die.isValid());
  std::vector<llvm::dwarf::Tag> children;
  for (const llvm::DWARFDie& child : die.children()) {
    children.push_back(child.getTag());
  }
  EXPECT_THAT(children,
              ::testing::ElementsAre(dw::DW_TAG_subprogram, dw::DW_TAG_variable,
                                     dw::DW_TAG_variable, dw::DW_TAG_variable));
  EXPECT_EQ(
      llvm::dwarf::toUnsigned(die.getFirstChild().find(dw::DW_AT_decl_line)),
      5u);
}

TEST(DwarfUnitCheckTest, AcceptsUnitDieWithoutChildrenTerminator) {
  // LLVM stops at the unit's end when the children's null entry is missing.
  HandBuilt dwarf(Unit(Dies({UnitDie(), Subprogram()})));
  EXPECT_EQ(dwarf.Check(), "");
}

TEST(DwarfUnitCheckTest, RejectsFixedSizeAttributesPastTheEnd) {
  // Three data8 values and a udata with only 4 bytes left: LLVM would step
  // 24 bytes past the section and decode the udata from there.
  HandBuilt dwarf(Unit(Dies({UnitDie(), {3, 1, 2, 3, 4}})));
  EXPECT_THAT(dwarf.Check(), HasSubstr("runs past the unit's end"));
}

TEST(DwarfUnitCheckTest, RejectsFixedSizeAttributesPastTheUnitNotSection) {
  // The same overrun into a following (valid) unit is refused too.
  Bytes info = Unit(Dies({UnitDie(), {3, 1, 2, 3, 4}}));
  Append(&info, Unit(Dies({UnitDie(), {0}})));
  HandBuilt dwarf(info);
  ASSERT_EQ(dwarf.Units().size(), 2u);
  EXPECT_THAT(CheckUnitDies(*dwarf.Units()[0]),
              HasSubstr("DW_FORM_data8): runs past the unit's end"));
  EXPECT_EQ(CheckUnitDies(*dwarf.Units()[1]), "");
}

TEST(DwarfUnitCheckTest, RejectsBlockLengthPastTheEnd) {
  // exprloc of 0x7f bytes with 3 left.
  HandBuilt exprloc(Unit(Dies({UnitDie(), {2, 'f', 0, 0x7f, 1, 2, 0}})));
  EXPECT_THAT(exprloc.Check(), HasSubstr("(DW_FORM_exprloc): runs past"));
  // block4 of 4 GiB - 1.
  HandBuilt block4(
      Unit(Dies({UnitDie(), {4, 0xff, 0xff, 0xff, 0xff, 1, 0}, {0}})));
  EXPECT_THAT(block4.Check(), HasSubstr("(DW_FORM_block4): runs past"));
  // A block length that itself is cut.
  HandBuilt cut(Unit(Dies({UnitDie(), {4, 0x01, 0x00}})));
  EXPECT_THAT(cut.Check(), HasSubstr("runs past"));
}

TEST(DwarfUnitCheckTest, RejectsUnknownForms) {
  HandBuilt direct(Unit(Dies({UnitDie(), {5, 1, 2, 3}, {0}})));
  EXPECT_THAT(direct.Check(), HasSubstr("unknown form 0x7f"));
  // Also when named through DW_FORM_indirect.
  HandBuilt indirect(Unit(Dies({UnitDie(), {6, 0x7e, 1}, {0}})));
  EXPECT_THAT(indirect.Check(), HasSubstr("unknown form 0x7e"));
}

TEST(DwarfUnitCheckTest, RejectsOtherOverruns) {
  // A string without its terminator in the unit.
  HandBuilt string(Unit(Dies({UnitDie(), {2, 'f', 'g', 'h'}})));
  EXPECT_THAT(string.Check(), HasSubstr("(DW_FORM_string): runs past"));
  // A udata whose last byte is missing.
  HandBuilt uleb(Unit(Dies({UnitDie(), Subprogram(), {2, 'f', 0, 0, 0x80}})));
  EXPECT_THAT(uleb.Check(), HasSubstr("(DW_FORM_udata): runs past"));
  // A ULEB128 too big for 64 bits (LLVM refuses it and stays put).
  HandBuilt big(Unit(Dies({UnitDie(),
                           {2, 'f', 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                            0xff, 0xff, 0xff, 0x7f},
                           {0}})));
  EXPECT_THAT(big.Check(), HasSubstr("(DW_FORM_udata): LEB128 too big"));
  // An abbreviation code that is not in the table.
  HandBuilt code(Unit(Dies({UnitDie(), {9}, {0}})));
  EXPECT_THAT(code.Check(), HasSubstr("unknown abbreviation code 9"));
}

// Found by fuzz/elf_symbolize_fuzzer: LLVM 19 crashed (SEGV in
// DataExtractor::getULEB128) extracting this file's DIEs. Its DWARF is now
// refused as a counted problem; symbols still work.
TEST(DwarfUnitCheckTest, FuzzerFoundFileIsRefusedNotCrashed) {
  const std::string path = hwt::testing::SourceDir() +
                           "/fuzz/regressions/elf_symbolize/"
                           "dwarf-uleb128-segv.elf";
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(ProbeElf(absl::MakeConstSpan(
                           reinterpret_cast<const uint8_t*>(bytes->data()),
                           bytes->size()),
                       /*with_dwarf=*/true)
                  .ok());
  auto symbolizer = Symbolizer::Create(SymbolizerOptions());
  ASSERT_TRUE(symbolizer->AddImage(1, path, "/bin/fuzzed").ok());
  // Its .text (section 15) is at 0x5f0..0x734.
  for (uint64_t vaddr = 0x5f0; vaddr < 0x734; vaddr += 4) {
    EXPECT_FALSE(symbolizer->Symbolize(1, vaddr).empty());
  }
  const ImageInfo* info = symbolizer->GetImageInfo(1);
  ASSERT_NE(info, nullptr);
  EXPECT_GT(info->dwarf_errors, 0u);
  EXPECT_THAT(info->first_dwarf_error, HasSubstr("DWARF not read"));
  EXPECT_THAT(info->first_dwarf_error, HasSubstr("runs past the unit's end"));
}

}  // namespace
}  // namespace hwt::symbolizer
