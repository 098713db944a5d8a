// The stages from a capture on disk to its profile; see capture_pipeline.h.
#include "pipeline/capture_pipeline.h"

#include <utility>

#include "base/status_macros.h"
#include "pipeline/symbolizer_resolver.h"
#include "pipeline/timeline_symbolizer.h"

namespace hwt::pipeline {

CapturePipeline::CapturePipeline(OpenedCapture opened)
    : opened_(std::move(opened)),
      files_(std::make_shared<ImageFileCache>()),
      code_(opened_.timeline, files_) {}

absl::StatusOr<std::unique_ptr<CapturePipeline>> CapturePipeline::Open(
    const std::string& path, const capture::InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(OpenedCapture opened, OpenCaptureInput(path, options));
  return std::make_unique<CapturePipeline>(std::move(opened));
}

std::vector<std::string> CapturePipeline::Symbolize(
    const symbolizer::SymbolizerOptions& options) {
  if (symbolizer_ != nullptr) return {};
  symbolizer_ = symbolizer::Symbolizer::Create(options);
  return RegisterTimelineImages(opened_.timeline, *symbolizer_);
}

absl::StatusOr<analysis::CaptureProfile> CapturePipeline::Profile(
    analysis::CaptureProfileOptions options) {
  if (symbolizer_ == nullptr) {
    return absl::InternalError("the capture was profiled before symbolized");
  }
  options.files = files_;
  SymbolizerResolver resolver(*symbolizer_);
  return analysis::ProfileCapture(*opened_.capture, opened_.timeline, resolver,
                                  options);
}

analysis::BlockExpansion CapturePipeline::Expand(
    const analysis::Profile& profile) {
  return analysis::ExpandBlocks(profile, code_);
}

}  // namespace hwt::pipeline
