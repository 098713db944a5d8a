// Implementation of the capture symbol naming helpers; see symbol_names.h.
#include "report/symbol_names.h"

#include "absl/strings/str_format.h"

namespace hwt::report {
namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<symbolizer::Symbolizer>>
CreateSymbolizerForTimeline(const capture::AddressSpaceTimeline& timeline,
                            const symbolizer::SymbolizerOptions& options,
                            std::vector<std::string>* warnings) {
  std::unique_ptr<symbolizer::Symbolizer> symbols =
      symbolizer::Symbolizer::Create(options);
  for (uint32_t i = 0; i < timeline.images().size(); ++i) {
    const capture::Image& image = timeline.images()[i];
    // Raw memory dumps have no symbols; they still print as [dump+0xoff].
    const std::string file = image.is_elf ? image.file : std::string();
    absl::Status status = symbols->AddImage(i, file, image.recorded_path);
    if (!status.ok() && warnings != nullptr) {
      warnings->push_back(std::string(status.message()));
    }
  }
  return symbols;
}

std::string FunctionOffsetName(symbolizer::Symbolizer* symbols,
                               const capture::AddressSpaceTimeline& timeline,
                               uint32_t image, uint64_t vaddr) {
  if (symbols != nullptr) {
    if (const symbolizer::FunctionSymbol* fn =
            symbols->FunctionFor(image, vaddr)) {
      if (vaddr == fn->start) return fn->name;
      return absl::StrFormat("%s+0x%x", fn->name, vaddr - fn->start);
    }
  }
  if (image < timeline.images().size()) {
    return absl::StrFormat(
        "[%s+0x%x]", BaseName(timeline.images()[image].recorded_path), vaddr);
  }
  return "[unknown]";
}

}  // namespace hwt::report
