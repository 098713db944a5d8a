// DWARFContext queries for the symbolizer; see dwarf_frames.h.
#include "symbolizer/dwarf_frames.h"

#include <string_view>

#include "absl/strings/str_format.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFObject.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "symbolizer/demangle.h"
#include "symbolizer/dwarf_line_check.h"
#include "symbolizer/dwarf_unit_check.h"

namespace hwt::symbolizer {
namespace {

using FileKind = llvm::DILineInfoSpecifier::FileLineInfoKind;

std::string ValidOrEmpty(const std::string& s) {
  return s == llvm::DILineInfo::BadString ? std::string() : s;
}

// LLVM allocates a compressed section's declared size (ch_size) before it
// decompresses it: a header claiming gigabytes exhausts memory (found by
// fuzz/elf_symbolize_fuzzer: 24 GiB declared for 36 bytes). Real debug
// sections compress a few times, never a thousandfold: such a section
// makes the image's DWARF unusable. Returns the problem, or "".
std::string ImplausibleCompressedSection(const llvm::object::ObjectFile& obj) {
  if (!llvm::isa<llvm::object::ELFObjectFileBase>(&obj)) return "";
  for (const llvm::object::SectionRef& section : obj.sections()) {
    const llvm::object::ELFSectionRef elf_section(section);
    if (!(elf_section.getFlags() & llvm::ELF::SHF_COMPRESSED)) continue;
    llvm::Expected<llvm::StringRef> contents = section.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    // Elf64_Chdr: type, reserved, size (8 bytes at 8); Elf32_Chdr: type,
    // size (4 bytes at 4).
    const size_t at = obj.is64Bit() ? 8 : 4;
    const size_t width = obj.is64Bit() ? 8 : 4;
    if (contents->size() < at + width) continue;
    uint64_t declared = 0;
    for (size_t i = 0; i < width; ++i) {
      const uint64_t byte = static_cast<uint8_t>((*contents)[at + i]);
      declared |= obj.isLittleEndian() ? byte << (8 * i)
                                       : byte << (8 * (width - 1 - i));
    }
    constexpr uint64_t kMaxRatio = 1024;
    constexpr uint64_t kSlack = uint64_t{1} << 20;
    if (declared > contents->size() * kMaxRatio + kSlack) {
      llvm::Expected<llvm::StringRef> name = section.getName();
      std::string shown = name ? name->str() : std::string("?");
      if (!name) llvm::consumeError(name.takeError());
      return absl::StrFormat(
          "compressed section %s (index %u) declares %u bytes for %u: DWARF "
          "not read",
          shown, section.getIndex(), declared, contents->size());
    }
  }
  return "";
}

}  // namespace

DwarfFrames::DwarfFrames(const ElfImage& source)
    : state_(std::make_unique<ErrorState>()) {
  ErrorState* state = state_.get();
  auto handler = [state](llvm::Error error) {
    ++state->errors;
    if (state->first_error.empty()) {
      state->first_error = llvm::toString(std::move(error));
    } else {
      llvm::consumeError(std::move(error));
    }
  };
  if (std::string problem = ImplausibleCompressedSection(source.object());
      !problem.empty()) {
    ++state->errors;
    state->first_error = std::move(problem);
    return;
  }
  // Linked images need no relocation of their debug sections; not processing
  // relocations also keeps LLVM off its report_fatal_error paths for
  // malformed relocation sections.
  context_ = llvm::DWARFContext::create(
      source.object(), llvm::DWARFContext::ProcessDebugRelocations::Ignore,
      /*L=*/nullptr, /*DWPName=*/"", handler, handler);
}

DwarfFrames::~DwarfFrames() = default;

// LLVM extracts the DIEs of more units than the one asked about: the unit
// DIE of every compile unit that .debug_aranges leaves out (to map its
// addresses) and any unit a DW_FORM_ref_addr or ref_sig8 points into. So all
// units are checked before the first query, and a single unit LLVM would
// crash on keeps the image's DWARF from being read at all.
bool DwarfFrames::AllUnitsChecked() {
  if (units_checked_ || context_ == nullptr) return context_ != nullptr;
  units_checked_ = true;
  const auto check = [this](llvm::DWARFContext::unit_iterator_range units,
                            const char* section) {
    for (const std::unique_ptr<llvm::DWARFUnit>& unit : units) {
      std::string problem = CheckUnitDies(*unit);
      if (problem.empty()) continue;
      ++state_->errors;
      if (state_->first_error.empty()) {
        state_->first_error =
            absl::StrFormat("unit at %s offset 0x%x: %s; DWARF not read",
                            section, unit->getOffset(), problem);
      }
      return false;
    }
    return true;
  };
  if (!check(context_->info_section_units(), ".debug_info") ||
      !check(context_->types_section_units(), ".debug_types")) {
    context_.reset();
    return false;
  }
  return true;
}

bool DwarfFrames::UnitIsUsable(uint64_t vaddr) {
  if (!AllUnitsChecked()) return false;  // DWARF not read, or unsafe
  llvm::DWARFCompileUnit* unit = context_->getCompileUnitForCodeAddress(vaddr);
  if (unit == nullptr) return false;
  auto [it, inserted] = usable_units_.try_emplace(unit->getOffset(), false);
  if (!inserted) return it->second;
  std::string problem;
  // LLVM 19 dereferences a null DIE (DWARFUnit::getSubroutineForAddress)
  // when the unit has no parsable unit DIE, e.g. after corrupt abbreviations.
  const llvm::DWARFDie die = unit->getUnitDIE(/*ExtractUnitDIEOnly=*/false);
  if (!die.isValid()) {
    problem = "no unit DIE";
  } else if (std::optional<uint64_t> stmt = llvm::dwarf::toSectionOffset(
                 die.find(llvm::dwarf::DW_AT_stmt_list))) {
    const llvm::StringRef line = context_->getDWARFObj().getLineSection().Data;
    problem = CheckLineTableHeader(std::string_view(line.data(), line.size()),
                                   *stmt + unit->getLineTableOffset(),
                                   context_->isLittleEndian());
    if (!problem.empty()) problem = "line table: " + problem;
  }
  if (!problem.empty()) {
    ++state_->errors;
    if (state_->first_error.empty()) {
      state_->first_error =
          absl::StrFormat("unit at .debug_info offset 0x%x skipped: %s",
                          unit->getOffset(), problem);
    }
    return false;
  }
  it->second = true;
  return true;
}

std::vector<Frame> DwarfFrames::InlineFrames(uint64_t vaddr, bool line_info,
                                             bool demangle) {
  if (!UnitIsUsable(vaddr)) return {};
  const llvm::DILineInfoSpecifier spec(
      line_info ? FileKind::AbsoluteFilePath : FileKind::None,
      llvm::DINameKind::LinkageName);
  const llvm::DIInliningInfo chain = context_->getInliningInfoForAddress(
      {vaddr, llvm::object::SectionedAddress::UndefSection}, spec);
  std::vector<Frame> frames;
  const uint32_t n = chain.getNumberOfFrames();
  frames.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const llvm::DILineInfo& info = chain.getFrame(i);
    Frame frame;
    const std::string name = ValidOrEmpty(info.FunctionName);
    frame.function = name.empty() ? "??" : DisplayName(name, demangle);
    frame.linkage_name = name;
    if (line_info) {
      frame.file = ValidOrEmpty(info.FileName);
      frame.line = info.Line;
      frame.discriminator = info.Discriminator;
      frame.start_line = info.StartLine;
    }
    frame.inlined = i + 1 < n;
    frames.push_back(std::move(frame));
  }
  return frames;
}

std::optional<Frame> DwarfFrames::LineAt(uint64_t vaddr) {
  if (!UnitIsUsable(vaddr)) return std::nullopt;
  const llvm::DILineInfoSpecifier spec(FileKind::AbsoluteFilePath,
                                       llvm::DINameKind::None);
  const llvm::DILineInfo info = context_->getLineInfoForAddress(
      {vaddr, llvm::object::SectionedAddress::UndefSection}, spec);
  Frame frame;
  frame.file = ValidOrEmpty(info.FileName);
  frame.line = info.Line;
  frame.discriminator = info.Discriminator;
  if (frame.file.empty() && frame.line == 0) return std::nullopt;
  return frame;
}

}  // namespace hwt::symbolizer
