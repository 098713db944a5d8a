// The one way from a capture on disk to what the reports are made of, in
// stages, each run once per capture:
//   open       the capture (bundle, packed bundle, OpenCSD snapshot,
//              perf.data, raw file) and its address-space timeline (which
//              image is mapped where, for which buffer, from when)
//   symbolize  a symbolizer holding every image of the timeline: function
//              boundaries for the profile, names, inline frames and lines
//              for the reports
//   profile    the decoder of the capture's backend, its events into the
//              shared profile (analysis::ProfileCapture)
//   expand     the profile's blocks turned into instructions, read from the
//              same mapped image files the decoder read
// hwt-report runs them on a capture (report/driver); hwt-batch's workers,
// --save and merged inputs through AnalyseCapture (capture_analysis.h);
// hwt-decode and hwt-import open only. Options that change the result are
// the caller's (a report's --no-inline, a saved profile's fixed defaults).
#ifndef HWT_PIPELINE_CAPTURE_PIPELINE_H_
#define HWT_PIPELINE_CAPTURE_PIPELINE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/memory_image.h"
#include "pipeline/open_capture.h"
#include "symbolizer/symbolizer.h"

namespace hwt::pipeline {

// One opened capture through the later stages. Not copyable or movable:
// the stages keep references into it.
class CapturePipeline {
 public:
  explicit CapturePipeline(OpenedCapture opened);
  CapturePipeline(const CapturePipeline&) = delete;
  CapturePipeline& operator=(const CapturePipeline&) = delete;

  // Opens `path` into a new pipeline.
  static absl::StatusOr<std::unique_ptr<CapturePipeline>> Open(
      const std::string& path, const capture::InputOptions& options);

  const capture::Capture& capture() const { return *opened_.capture; }
  const capture::AddressSpaceTimeline& timeline() const {
    return opened_.timeline;
  }

  // The symbolize stage: creates the symbolizer (once; later calls return
  // no warnings). Returns its warnings: images that are not usable ELF
  // files, whose addresses then print as [image+0xoff].
  std::vector<std::string> Symbolize(
      const symbolizer::SymbolizerOptions& options);
  // After Symbolize().
  symbolizer::Symbolizer& symbolizer() { return *symbolizer_; }

  // The profile stage (after Symbolize): decodes the whole capture into its
  // profile. `options.files` is the pipeline's own file cache, which the
  // expand stage reads through too.
  absl::StatusOr<analysis::CaptureProfile> Profile(
      analysis::CaptureProfileOptions options);

  // The expand stage: the code of the profile's blocks, read through the
  // image files the decoder mapped.
  analysis::CodeReader& code() { return code_; }
  analysis::BlockExpansion Expand(const analysis::Profile& profile);

 private:
  OpenedCapture opened_;
  std::shared_ptr<ImageFileCache> files_;
  analysis::ImageCodeReader code_;
  std::unique_ptr<symbolizer::Symbolizer> symbolizer_;
};

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_CAPTURE_PIPELINE_H_
