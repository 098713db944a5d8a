// DWARF v5 line table header walker; see dwarf_line_check.h.
#include "symbolizer/dwarf_line_check.h"

#include <vector>

#include "absl/strings/str_format.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "symbolizer/dwarf_reader.h"

namespace hwt::symbolizer {
namespace {

bool IsStringForm(uint64_t form) {
  using namespace llvm::dwarf;
  switch (form) {
    case DW_FORM_string:
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_strx:
    case DW_FORM_strx1:
    case DW_FORM_strx2:
    case DW_FORM_strx3:
    case DW_FORM_strx4:
      return true;
    default:
      return false;
  }
}

bool IsConstantForm(uint64_t form) {
  using namespace llvm::dwarf;
  switch (form) {
    case DW_FORM_data1:
    case DW_FORM_data2:
    case DW_FORM_data4:
    case DW_FORM_data8:
    case DW_FORM_udata:
      return true;
    default:
      return false;
  }
}

bool FormAllowed(uint64_t type, uint64_t form) {
  using namespace llvm::dwarf;
  switch (type) {
    case DW_LNCT_path:
    case DW_LNCT_LLVM_source:
      return IsStringForm(form);
    case DW_LNCT_directory_index:
    case DW_LNCT_timestamp:
    case DW_LNCT_size:
      return IsConstantForm(form);
    case DW_LNCT_MD5:
      return form == DW_FORM_data16;
    default:  // vendor content: skipped, any sized form will do
      return IsStringForm(form) || IsConstantForm(form) ||
             form == DW_FORM_data16 || form == DW_FORM_block ||
             form == DW_FORM_block1 || form == DW_FORM_block2 ||
             form == DW_FORM_block4 || form == DW_FORM_sdata;
  }
}

void SkipForm(DwarfReader* r, uint64_t form, int offset_size) {
  using namespace llvm::dwarf;
  switch (form) {
    case DW_FORM_string:
      r->SkipCString();
      break;
    case DW_FORM_strp:
    case DW_FORM_line_strp:
      r->Skip(offset_size);
      break;
    case DW_FORM_strx:
    case DW_FORM_udata:
    case DW_FORM_sdata:
      r->Uleb();
      break;
    case DW_FORM_strx1:
    case DW_FORM_data1:
      r->Skip(1);
      break;
    case DW_FORM_strx2:
    case DW_FORM_data2:
      r->Skip(2);
      break;
    case DW_FORM_strx3:
      r->Skip(3);
      break;
    case DW_FORM_strx4:
    case DW_FORM_data4:
      r->Skip(4);
      break;
    case DW_FORM_data8:
      r->Skip(8);
      break;
    case DW_FORM_data16:
      r->Skip(16);
      break;
    case DW_FORM_block:
      r->Skip(r->Uleb());
      break;
    case DW_FORM_block1:
      r->Skip(r->Fixed(1));
      break;
    case DW_FORM_block2:
      r->Skip(r->Fixed(2));
      break;
    case DW_FORM_block4:
      r->Skip(r->Fixed(4));
      break;
  }
}

// Reads an entry format list and then the entries it describes.
std::string CheckEntries(DwarfReader* r, int offset_size, const char* what) {
  std::vector<std::pair<uint64_t, uint64_t>> formats;
  const uint64_t format_count = r->Fixed(1);
  for (uint64_t i = 0; i < format_count && r->ok(); ++i) {
    const uint64_t type = r->Uleb();
    const uint64_t form = r->Uleb();
    if (!FormAllowed(type, form)) {
      return absl::StrFormat(
          "%s entry format: content type 0x%x with form 0x%x", what, type,
          form);
    }
    formats.push_back({type, form});
  }
  const uint64_t count = r->Uleb();
  if (!r->ok()) return absl::StrFormat("%s entry formats truncated", what);
  if (formats.empty()) {
    // LLVM rejects a table without a path format before reading entries.
    return "";
  }
  for (uint64_t i = 0; i < count && r->ok(); ++i) {
    for (const auto& [type, form] : formats) SkipForm(r, form, offset_size);
  }
  if (!r->ok()) return absl::StrFormat("%s entries truncated", what);
  return "";
}

}  // namespace

std::string CheckLineTableHeader(std::string_view debug_line, uint64_t offset,
                                 bool little_endian) {
  DwarfReader r(debug_line, offset, little_endian);
  uint64_t length = r.Fixed(4);
  int offset_size = 4;
  if (length == 0xffffffff) {
    length = r.Fixed(8);
    offset_size = 8;
  } else if (length >= 0xfffffff0) {
    return "";  // reserved: LLVM refuses it cleanly
  }
  const uint64_t version = r.Fixed(2);
  if (!r.ok()) return "";  // LLVM reports the truncation itself
  if (version != 5) return "";
  r.Limit(r.pos() - 2 + length);
  r.Fixed(1);  // address_size
  r.Fixed(1);  // segment_selector_size
  const uint64_t header_length = r.Fixed(offset_size);
  r.Limit(r.pos() + header_length);
  r.Skip(5);  // min_inst_length, max_ops, default_is_stmt, line_base/range
  const uint64_t opcode_base = r.Fixed(1);
  if (opcode_base > 0) r.Skip(opcode_base - 1);
  if (!r.ok()) return "";  // LLVM stops before the entry tables
  if (std::string why = CheckEntries(&r, offset_size, "directory");
      !why.empty()) {
    return why;
  }
  return CheckEntries(&r, offset_size, "file name");
}

}  // namespace hwt::symbolizer
