// DWARFContext queries for the symbolizer; see dwarf_frames.h.
#include "symbolizer/dwarf_frames.h"

#include <string_view>

#include "absl/strings/str_format.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDie.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFObject.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "symbolizer/demangle.h"
#include "symbolizer/dwarf_line_check.h"

namespace hwt::symbolizer {
namespace {

using FileKind = llvm::DILineInfoSpecifier::FileLineInfoKind;

std::string ValidOrEmpty(const std::string& s) {
  return s == llvm::DILineInfo::BadString ? std::string() : s;
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
  // Linked images need no relocation of their debug sections; not processing
  // relocations also keeps LLVM off its report_fatal_error paths for
  // malformed relocation sections.
  context_ = llvm::DWARFContext::create(
      source.object(), llvm::DWARFContext::ProcessDebugRelocations::Ignore,
      /*L=*/nullptr, /*DWPName=*/"", handler, handler);
}

DwarfFrames::~DwarfFrames() = default;

bool DwarfFrames::UnitIsUsable(uint64_t vaddr) {
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
    if (line_info) {
      frame.file = ValidOrEmpty(info.FileName);
      frame.line = info.Line;
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
  if (frame.file.empty() && frame.line == 0) return std::nullopt;
  return frame;
}

}  // namespace hwt::symbolizer
