// SavedExportInput: the export input of a saved profile (.hwtprof), so that
// every export but the timeline can be written on a machine that has none
// of the traced images: segments, function symbols and source frames come
// from the profile's images, as the capture's run saved them. A profile
// saved by this version exports byte for byte what its capture exports.
#ifndef HWT_REPORT_EXPORT_SAVED_EXPORT_INPUT_H_
#define HWT_REPORT_EXPORT_SAVED_EXPORT_INPUT_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "analysis/saved/saved_profile.h"
#include "report/export/export_input.h"

namespace hwt::report {

// FailedPrecondition when `saved` was read from a file of a format that
// does not keep what the exports need (1.0: no linkage names, no function
// start lines).
absl::Status CheckExportable(const analysis::SavedProfile& saved);

class SavedExportInput : public ExportInput {
 public:
  // `expansion`: the block expansion of `saved.profile` over the saved
  // code; `symbols`: the saved names (SavedProfileSymbols).
  SavedExportInput(const analysis::SavedProfile& saved,
                   const analysis::BlockExpansion& expansion,
                   ProfileSymbols& symbols);

  const analysis::Profile& profile() const override { return saved_.profile; }
  const analysis::BlockExpansion& expansion() const override {
    return expansion_;
  }
  ProfileSymbols& symbols() override { return symbols_; }
  uint32_t image_count() const override {
    return static_cast<uint32_t>(images_.size());
  }
  const ExportImage& image(uint32_t image) const override {
    return images_[image];
  }
  std::optional<ExportFunction> Function(uint32_t image,
                                         uint64_t start) override;
  std::vector<std::vector<ExportFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) override;

 private:
  // The saved frames at an address; null when the profile has none.
  const analysis::SavedAddress* AddressAt(uint32_t image, uint64_t vaddr) const;

  const analysis::SavedProfile& saved_;
  const analysis::BlockExpansion& expansion_;
  ProfileSymbols& symbols_;
  std::vector<ExportImage> images_;
};

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_SAVED_EXPORT_INPUT_H_
