// One call from a capture on disk to its saved profile: the stages of
// capture_pipeline.h with the options a saved profile always has (hot
// paths, inline frames, demangled names), then its names and code saved
// (profile_saving.h). hwt-report uses it for --save and for several inputs,
// hwt-batch's workers for every capture.
// And the other direction: a list of inputs, captures and saved profiles
// mixed, read or analysed and merged into one profile.
#ifndef HWT_PIPELINE_CAPTURE_ANALYSIS_H_
#define HWT_PIPELINE_CAPTURE_ANALYSIS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/saved/saved_profile.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "pipeline/profile_saving.h"

namespace hwt::pipeline {

struct AnalyseOptions {
  capture::InputOptions input;  // --backend, --cpu, --image, --sysroot
  int jobs = 1;                 // decoding threads (0 = all usable cores)
  // The PT flow engine; like the threads it does not change the profile.
  DecoderEngine engine = DecoderEngine::kFast;
  SaveOptions save;  // name, fingerprint, writer; `analysis` is
                     // filled in from these options
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// What the analysis options mean for the result, as text: stored in every
// saved capture and part of a batch's fingerprint. Decoding threads do not
// change a profile and are not in it, nor does the engine.
std::string AnalysisOptionsText(const AnalyseOptions& options);

struct AnalysedCapture {
  analysis::SavedProfile profile;
  uint64_t trace_bytes = 0;
  // Timeline and symbolizer warnings (missing images, unusable ELF files),
  // each once.
  std::vector<std::string> warnings;
};

// Errors: the input cannot be opened or read (as OpenCapture).
absl::StatusOr<AnalysedCapture> AnalyseCapture(const std::string& path,
                                               const AnalyseOptions& options);

// Reads every saved profile and analyses every capture among `inputs` and
// merges them. `warnings` (may be null) receives the analyses' warnings
// prefixed with their input. Errors name the input.
absl::StatusOr<analysis::SavedProfile> LoadAndMerge(
    const std::vector<std::string>& inputs, const AnalyseOptions& options,
    std::vector<std::string>* warnings);

}  // namespace hwt::pipeline

#endif  // HWT_PIPELINE_CAPTURE_ANALYSIS_H_
