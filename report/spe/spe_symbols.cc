// Symbol names for SPE reports; see spe_symbols.h.
#include "report/spe/spe_symbols.h"

#include "absl/strings/str_format.h"
#include "base/file_util.h"

namespace hwt::report {

std::string SpeNames::ImageName(uint32_t image) const {
  if (image >= profile_.images.size()) return "[unknown]";
  return BaseName(profile_.images[image].path);
}

std::string SpeNames::FunctionName(const analysis::SpeFunction& function) {
  const analysis::SpeFunctionKey& key = function.key;
  if (key.image == analysis::kNoImage) {
    return key.start == analysis::kSpeUnknownKernelCode ? "[kernel]"
                                                        : "[unknown]";
  }
  if (!key.resolved) return absl::StrFormat("[%s]", ImageName(key.image));
  std::string name;
  if (symbols_ != nullptr) name = symbols_->FunctionName(key.image, key.start);
  if (name.empty()) {
    name = absl::StrFormat("[%s+0x%x]", ImageName(key.image), key.start);
  }
  return name;
}

std::string SpeNames::InstructionName(
    const analysis::SpeInstruction& instruction) {
  const analysis::MappedAddress& a = instruction.address;
  if (a.image == analysis::kNoImage) return absl::StrFormat("0x%x", a.vaddr);
  const analysis::SpeFunction& function =
      profile_.functions[instruction.function];
  if (!function.key.resolved) {
    return absl::StrFormat("[%s+0x%x]", ImageName(a.image), a.vaddr);
  }
  return absl::StrFormat("%s+0x%x", FunctionName(function),
                         a.vaddr - function.key.start);
}

}  // namespace hwt::report
