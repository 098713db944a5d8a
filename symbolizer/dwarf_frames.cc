// DWARFContext queries for the symbolizer; see dwarf_frames.h.
#include "symbolizer/dwarf_frames.h"

#include <string_view>

#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "symbolizer/demangle.h"

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

std::vector<Frame> DwarfFrames::InlineFrames(uint64_t vaddr, bool line_info,
                                             bool demangle) {
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
