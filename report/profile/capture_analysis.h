// One call from a capture on disk to its saved profile (profile_saving.h):
// open it, build its timeline, symbolize its images, profile it with hot
// paths, expand its blocks and save names and code. hwt-report uses it for
// --save and for several inputs, hwt-batch's workers for every capture.
// And the other direction: a list of inputs, captures and saved profiles
// mixed, read or analysed and merged into one profile.
#ifndef HWT_REPORT_PROFILE_CAPTURE_ANALYSIS_H_
#define HWT_REPORT_PROFILE_CAPTURE_ANALYSIS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/saved/saved_profile.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "report/profile/profile_saving.h"

namespace hwt::report {

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

// Errors: the input cannot be opened or read (as OpenCapture), or it is an
// SPE capture (Unimplemented: saved profiles hold control flow; SPE
// samples have their own reports).
absl::StatusOr<AnalysedCapture> AnalyseCapture(const std::string& path,
                                               const AnalyseOptions& options);

// Reads every saved profile and analyses every capture among `inputs` and
// merges them. `warnings` (may be null) receives the analyses' warnings
// prefixed with their input. Errors name the input.
absl::StatusOr<analysis::SavedProfile> LoadAndMerge(
    const std::vector<std::string>& inputs, const AnalyseOptions& options,
    std::vector<std::string>* warnings);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_CAPTURE_ANALYSIS_H_
