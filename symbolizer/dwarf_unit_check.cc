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

namespace hwt::symbolizer {
namespace {

// Bounds-checked reads over [0, end) of the section; any overrun, or an
// LEB128 that LLVM's decoder refuses (and would then not step over), makes
// ok false.
class Reader {
 public:
  Reader(std::string_view data, uint64_t pos, bool little_endian)
      : data_(data), pos_(pos), le_(little_endian) {}

  bool ok() const { return ok_; }
  bool leb_too_big() const { return leb_too_big_; }
  uint64_t pos() const { return pos_; }

  uint64_t Fixed(int bytes) {
    if (!Have(bytes)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      const uint64_t b = static_cast<uint8_t>(data_[pos_ + i]);
      v |= le_ ? b << (8 * i) : b << (8 * (bytes - 1 - i));
    }
    pos_ += bytes;
    return v;
  }
  // llvm::decodeULEB128's rules: bits past 64 must be zero.
  uint64_t Uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!Have(1)) return 0;
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      const uint64_t slice = byte & 0x7f;
      if ((shift == 63 && slice > 1) || (shift > 63 && slice != 0)) {
        ok_ = false;
        leb_too_big_ = true;
        return 0;
      }
      if (shift < 64) v |= slice << shift;
      if (!(byte & 0x80)) return v;
    }
  }
  // llvm::decodeSLEB128's rules: bits past 64 must repeat the sign.
  void SkipSleb() {
    int64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!Have(1)) return;
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      const uint64_t slice = byte & 0x7f;
      if ((shift >= 64 && slice != (v < 0 ? 0x7fu : 0u)) ||
          (shift == 63 && slice != 0 && slice != 0x7f)) {
        ok_ = false;
        leb_too_big_ = true;
        return;
      }
      if (shift < 64) v |= static_cast<int64_t>(slice << shift);
      if (!(byte & 0x80)) return;
    }
  }
  void Skip(uint64_t n) {
    if (Have(n)) pos_ += n;
  }
  void SkipCString() {
    while (Have(1)) {
      if (data_[pos_++] == '\0') return;
    }
  }

 private:
  bool Have(uint64_t n) {
    if (!ok_ || pos_ > data_.size() || n > data_.size() - pos_) ok_ = false;
    return ok_;
  }

  std::string_view data_;
  uint64_t pos_;
  bool le_;
  bool ok_ = true;
  bool leb_too_big_ = false;
};

const char* Overrun(const Reader& r) {
  return r.leb_too_big() ? "LEB128 too big for 64 bits"
                         : "runs past the unit's end";
}

std::string FormName(uint64_t form) {
  const llvm::StringRef name = llvm::dwarf::FormEncodingString(form);
  return name.empty() ? absl::StrFormat("form 0x%x", form) : name.str();
}

// Steps over one attribute value as DWARFFormValue::skipValue does. Returns
// "" or why the form cannot be skipped; overruns show in r->ok().
std::string SkipValue(Reader* r, uint64_t form,
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
  Reader r(std::string_view(section.data(), end),
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
