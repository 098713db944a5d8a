// A capture analysed into its saved profile, and inputs merged; see
// capture_analysis.h.
#include "pipeline/capture_analysis.h"

#include <stdlib.h>

#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_merge.h"
#include "base/status_macros.h"
#include "pipeline/capture_pipeline.h"

namespace hwt::pipeline {

std::string AnalysisOptionsText(const AnalyseOptions& options) {
  const capture::InputOptions& in = options.input;
  std::string text = absl::StrCat("profile=", analysis::kProfileMajorVersion,
                                  " hot_paths=1 inline=1 demangle=1");
  if (in.backend) {
    absl::StrAppend(
        &text, " backend=", std::string(capture::BackendName(*in.backend)));
  }
  if (in.cpu) {
    absl::StrAppend(&text, " cpu=", in.cpu->family, "/", in.cpu->model, "/",
                    in.cpu->stepping);
  }
  for (const capture::ImageSpec& image : in.images) {
    absl::StrAppend(&text,
                    absl::StrFormat(" image=%s@0x%x", image.path, image.bias));
  }
  if (!in.sysroot.empty()) absl::StrAppend(&text, " sysroot=", in.sysroot);
  return text;
}

absl::StatusOr<AnalysedCapture> AnalyseCapture(const std::string& path,
                                               const AnalyseOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<CapturePipeline> pipeline,
                       CapturePipeline::Open(path, options.input));
  AnalysedCapture out;
  std::set<std::string> seen;
  auto warn = [&](const std::string& w) {
    if (seen.insert(w).second) out.warnings.push_back(w);
  };
  for (const std::string& w : pipeline->timeline().warnings()) warn(w);
  symbolizer::SymbolizerOptions sym_options;
  sym_options.sysroot = options.input.sysroot;
  for (const std::string& w : pipeline->Symbolize(sym_options)) warn(w);

  analysis::CaptureProfileOptions profile_options;
  profile_options.jobs = options.jobs;
  profile_options.engine = options.engine;
  profile_options.hot_paths = true;
  profile_options.progress = options.progress;
  HWT_ASSIGN_OR_RETURN(analysis::CaptureProfile profiled,
                       pipeline->Profile(std::move(profile_options)));
  const analysis::BlockExpansion expansion = pipeline->Expand(profiled.profile);
  SaveOptions save = options.save;
  save.analysis = AnalysisOptionsText(options);
  HWT_ASSIGN_OR_RETURN(
      out.profile,
      SaveCaptureProfile(profiled, pipeline->capture(), pipeline->timeline(),
                         pipeline->symbolizer(), expansion, save));
  for (const auto& buffer : pipeline->capture().manifest().buffers) {
    out.trace_bytes += buffer.size;
  }
  return out;
}

absl::StatusOr<analysis::SavedProfile> LoadAndMerge(
    const std::vector<std::string>& inputs, const AnalyseOptions& options,
    std::vector<std::string>* warnings) {
  analysis::ProfileAccumulator merged;
  std::set<std::string> real_paths;
  for (const std::string& input : inputs) {
    char* real = realpath(input.c_str(), nullptr);
    if (real != nullptr) {
      const bool fresh = real_paths.insert(real).second;
      free(real);
      if (!fresh) {
        return absl::InvalidArgumentError(
            absl::StrCat(input, ": given twice (it would be counted twice)"));
      }
    }
    if (analysis::IsProfileFile(input)) {
      HWT_ASSIGN_OR_RETURN(analysis::SavedProfile profile,
                           analysis::ReadProfileFile(input));
      HWT_RETURN_IF_ERROR(merged.Add(profile, input));
      continue;
    }
    HWT_ASSIGN_OR_RETURN(AnalysedCapture analysed,
                         AnalyseCapture(input, options));
    if (warnings != nullptr) {
      for (const std::string& w : analysed.warnings) {
        warnings->push_back(absl::StrCat(input, ": ", w));
      }
    }
    HWT_RETURN_IF_ERROR(merged.Add(analysed.profile, input));
  }
  return merged.Finish(options.save.writer);
}

}  // namespace hwt::pipeline
