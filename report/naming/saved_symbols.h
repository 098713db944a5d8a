// What the report renderers need from a saved profile (analysis/saved/):
// the names (ProfileSymbols over the saved function symbols and source
// frames, so no image need be present), the code bytes of the executed
// blocks (a CodeReader, for the block expansion behind inline frames and
// --hot), the summed decode statistics and the weight unit.
#ifndef HWT_REPORT_NAMING_SAVED_SYMBOLS_H_
#define HWT_REPORT_NAMING_SAVED_SYMBOLS_H_

#include <memory>
#include <string>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/saved/saved_profile.h"
#include "decoders/decoder.h"
#include "report/naming/profile_symbols.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

class SavedProfileSymbols : public ProfileSymbols {
 public:
  // `inline_frames` false: only the containing function's frame at an
  // address (as --no-inline); `demangle` false: symbol-table names.
  explicit SavedProfileSymbols(const analysis::SavedProfile& profile,
                               bool inline_frames = true, bool demangle = true)
      : profile_(profile), inline_frames_(inline_frames), demangle_(demangle) {}

  std::string FunctionName(uint32_t image, uint64_t start) override;
  std::string ImagePath(uint32_t image) override;
  bool IsKernelImage(uint32_t image) override;
  std::vector<std::vector<SourceFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) override;

 private:
  const analysis::SavedProfile& profile_;
  bool inline_frames_;
  bool demangle_;
};

// Code bytes from the profile's saved code, by the block's image.
class SavedCodeReader : public analysis::CodeReader {
 public:
  explicit SavedCodeReader(const analysis::SavedProfile& profile)
      : profile_(profile) {}
  absl::StatusOr<absl::Span<const uint8_t>> Read(uint32_t region,
                                                 uint64_t vaddr,
                                                 size_t size) override;
  absl::StatusOr<absl::Span<const uint8_t>> ReadBlock(
      const analysis::BlockStats& block, size_t size) override;

 private:
  const analysis::SavedProfile& profile_;
};

// A symbolizer over the profile's images that are on this machine (at
// their recorded path, under `sysroot` first, with the same build-id), each
// under its profile index; what --annotate needs (it disassembles whole
// functions). `missing` receives the images that are not here.
std::unique_ptr<symbolizer::Symbolizer> SymbolizerForSavedImages(
    const analysis::SavedProfile& profile,
    const symbolizer::SymbolizerOptions& options,
    std::vector<std::string>* missing);

// The decode statistics of every capture of the profile, summed.
StreamStats TotalDecodeStats(const analysis::SavedProfile& profile);

// The frequency the timestamps of every capture of the profile count at
// (weight_unit.h), when they all know the same one; 0 otherwise.
uint64_t SavedTimestampHz(const analysis::SavedProfile& profile);

}  // namespace hwt::report

#endif  // HWT_REPORT_NAMING_SAVED_SYMBOLS_H_
