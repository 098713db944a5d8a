// The symbolizer of a capture's timeline; see timeline_symbolizer.h.
#include "pipeline/timeline_symbolizer.h"

namespace hwt::pipeline {

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

}  // namespace hwt::pipeline
