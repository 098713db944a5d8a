// Implementation of the capture symbol naming helpers; see symbol_names.h.
#include "report/common/symbol_names.h"

#include "absl/strings/str_format.h"

namespace hwt::report {
std::vector<std::string> RegisterTimelineImages(
    const capture::AddressSpaceTimeline& timeline,
    symbolizer::Symbolizer& symbolizer) {
  std::vector<std::string> warnings;
  const auto& images = timeline.images();
  for (uint32_t i = 0; i < images.size(); ++i) {
    const capture::Image& image = images[i];
    // Raw memory dumps (OpenCSD snapshots) have no symbols: registered as
    // missing so that their code prints as [dump+0xoff].
    const std::string file = image.is_elf ? image.file : std::string();
    absl::Status status = symbolizer.AddImage(i, file, image.recorded_path);
    if (!status.ok()) warnings.push_back(std::string(status.message()));
  }
  return warnings;
}

absl::StatusOr<std::unique_ptr<symbolizer::Symbolizer>>
CreateSymbolizerForTimeline(const capture::AddressSpaceTimeline& timeline,
                            const symbolizer::SymbolizerOptions& options,
                            std::vector<std::string>* warnings) {
  std::unique_ptr<symbolizer::Symbolizer> symbols =
      symbolizer::Symbolizer::Create(options);
  std::vector<std::string> problems =
      RegisterTimelineImages(timeline, *symbols);
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), problems.begin(), problems.end());
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
    return symbolizer::UnknownFunctionName(
        timeline.images()[image].recorded_path, vaddr);
  }
  return "[unknown]";
}

}  // namespace hwt::report
