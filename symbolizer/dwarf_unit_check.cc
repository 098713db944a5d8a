// DWARF DIE walker; see dwarf_unit_check.h.
#include "symbolizer/dwarf_unit_check.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/strings/str_format.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/DebugInfo/DWARF/DWARFAbbreviationDeclaration.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "symbolizer/dwarf_reader.h"

namespace hwt::symbolizer {
namespace {

const char* Overrun(const DwarfReader& r) {
  return r.leb_too_big() ? "LEB128 too big for 64 bits"
                         : "runs past the unit's end";
}

std::string FormName(uint64_t form) {
  const llvm::StringRef name = llvm::dwarf::FormEncodingString(form);
  return name.empty() ? absl::StrFormat("form 0x%x", form) : name.str();
}

// Steps over one attribute value as DWARFFormValue::skipValue does. Returns
// "" or why the form cannot be skipped; overruns show in r->ok().
std::string SkipValue(DwarfReader* r, uint64_t form,
                      const llvm::dwarf::FormParams& params) {
  using namespace llvm::dwarf;
  for (;;) {
    switch (form) {
      case DW_FORM_exprloc:
      case DW_FORM_block:
        r->Skip(r->Uleb());
        return "";
      case DW_FORM_block1:
        r->Skip(r->Fixed(1));
        return "";
      case DW_FORM_block2:
        r->Skip(r->Fixed(2));
        return "";
      case DW_FORM_block4:
        r->Skip(r->Fixed(4));
        return "";
      case DW_FORM_string:
        r->SkipCString();
        return "";
      case DW_FORM_addr:
      case DW_FORM_ref_addr:
      case DW_FORM_flag_present:
      case DW_FORM_data1:
      case DW_FORM_data2:
      case DW_FORM_data4:
      case DW_FORM_data8:
      case DW_FORM_data16:
      case DW_FORM_flag:
      case DW_FORM_ref1:
      case DW_FORM_ref2:
      case DW_FORM_ref4:
      case DW_FORM_ref8:
      case DW_FORM_ref_sig8:
      case DW_FORM_ref_sup4:
      case DW_FORM_ref_sup8:
      case DW_FORM_strx1:
      case DW_FORM_strx2:
      case DW_FORM_strx3:
      case DW_FORM_strx4:
      case DW_FORM_addrx1:
      case DW_FORM_addrx2:
      case DW_FORM_addrx3:
      case DW_FORM_addrx4:
      case DW_FORM_sec_offset:
      case DW_FORM_strp:
      case DW_FORM_strp_sup:
      case DW_FORM_line_strp:
      case DW_FORM_GNU_ref_alt:
      case DW_FORM_GNU_strp_alt:
      case DW_FORM_implicit_const: {
        const std::optional<uint8_t> size =
            getFixedFormByteSize(static_cast<Form>(form), params);
        if (!size) return FormName(form) + " has no size in this unit";
        r->Skip(*size);
        return "";
      }
      case DW_FORM_sdata:
        r->SkipSleb();
        return "";
      case DW_FORM_udata:
      case DW_FORM_ref_udata:
      case DW_FORM_strx:
      case DW_FORM_addrx:
      case DW_FORM_loclistx:
      case DW_FORM_rnglistx:
      case DW_FORM_GNU_addr_index:
      case DW_FORM_GNU_str_index:
        r->Uleb();
        return "";
      case DW_FORM_LLVM_addrx_offset:
        r->Uleb();
        r->Skip(4);
        return "";
      case DW_FORM_indirect:
        form = r->Uleb();
        if (!r->ok()) return "";
        break;  // and skip a value of the form just read
      default:
        return "unknown " + FormName(form);
    }
  }
}

}  // namespace

std::string CheckUnitDies(const llvm::DWARFUnit& unit) {
  const llvm::StringRef section = unit.getInfoSection().Data;
  const uint64_t end = unit.getNextUnitOffset();
  if (end > section.size()) {
    return absl::StrFormat("unit ends at 0x%x, past the section's end 0x%x",
                           end, section.size());
  }
  const llvm::DWARFAbbreviationDeclarationSet* abbrevs =
      unit.getAbbreviations();
  if (abbrevs == nullptr) {
    return absl::StrFormat("no abbreviations at .debug_abbrev offset 0x%x",
                           unit.getAbbreviationsOffset());
  }
  const llvm::dwarf::FormParams params = unit.getFormParams();
  // Only the unit's bytes: anything reaching past them is refused.
  DwarfReader r(std::string_view(section.data(), end),
                unit.getOffset() + unit.getHeaderSize(), unit.isLittleEndian());
  // As in extractDIEsToVector: the unit DIE, then (if it has children) DIEs
  // until the null entry that closes the unit DIE's children.
  uint64_t depth = 0;
  for (bool unit_die = true;; unit_die = false) {
    // LLVM stops (with a warning) at the unit's end.
    if (r.pos() >= end) return "";
    const uint64_t die_offset = r.pos();
    const uint64_t code = r.Uleb();
    if (!r.ok()) {
      return absl::StrFormat("abbreviation code of the DIE at 0x%x: %s (0x%x)",
                             die_offset, Overrun(r), end);
    }
    if (code == 0) {  // a null entry closes the current children
      if (unit_die || --depth == 0) return "";
      continue;
    }
    // extractFast looks the code up truncated to 32 bits.
    const llvm::DWARFAbbreviationDeclaration* decl =
        abbrevs->getAbbreviationDeclaration(static_cast<uint32_t>(code));
    if (decl == nullptr) {
      return absl::StrFormat("DIE at 0x%x: unknown abbreviation code %u",
                             die_offset, code);
    }
    // Most DIEs have only fixed-size attributes: one step, as in LLVM.
    if (const std::optional<size_t> fixed =
            decl->getFixedAttributesByteSize(unit)) {
      r.Skip(*fixed);
      if (!r.ok()) {
        return absl::StrFormat(
            "DIE at 0x%x: %u bytes of fixed-size attributes: %s (0x%x)",
            die_offset, *fixed, Overrun(r), end);
      }
    } else {
      for (const llvm::DWARFAbbreviationDeclaration::AttributeSpec& spec :
           decl->attributes()) {
        if (spec.isImplicitConst()) continue;  // the value is in the abbrev
        const uint64_t attr_offset = r.pos();
        if (std::string why = SkipValue(&r, spec.Form, params); !why.empty()) {
          return absl::StrFormat("DIE at 0x%x: attribute at 0x%x: %s",
                                 die_offset, attr_offset, why);
        }
        if (!r.ok()) {
          return absl::StrFormat(
              "DIE at 0x%x: attribute at 0x%x (%s): %s (0x%x)", die_offset,
              attr_offset, FormName(spec.Form), Overrun(r), end);
        }
      }
    }
    if (decl->hasChildren()) {
      ++depth;
    } else if (unit_die) {
      return "";  // a unit DIE without children is the whole unit
    }
  }
}

}  // namespace hwt::symbolizer
