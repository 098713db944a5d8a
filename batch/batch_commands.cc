// hwt-batch merge and hwt-batch diff; see batch_run.h.
#include <sys/stat.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_merge.h"
#include "base/json_text.h"
#include "batch/batch_run.h"
#include "batch/tool_error.h"
#include "batch/worker_pool.h"
#include "pipeline/profile_saving.h"
#include "report/tree/profile_diff.h"

namespace hwt::batch {
namespace {

// A profile, or a batch directory's merged profile.
std::string ProfileOf(const std::string& input) {
  struct stat st;
  if (stat(input.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return input + "/merged.hwtprof";
  }
  return input;
}

absl::StatusOr<analysis::SavedProfile> Load(const std::string& input) {
  const std::string path = ProfileOf(input);
  if (!analysis::IsProfileFile(path)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a saved profile (expected a .hwtprof file or a batch "
        "directory holding merged.hwtprof)"));
  }
  return analysis::ReadProfileFile(path);
}

}  // namespace

int MergeCommand(const MergeOptions& options) {
  if (options.inputs.empty()) return ReportError(2, "no INPUT given");
  SignalGuard guard;
  analysis::ProfileAccumulator merged;
  for (const std::string& input : options.inputs) {
    if (guard.Pending()) return kExitInterrupted;
    auto profile = Load(input);
    if (!profile.ok()) return ReportError(2, profile.status().message());
    absl::Status added = merged.Add(*profile, ProfileOf(input));
    if (!added.ok()) return ReportError(2, added.message());
  }
  const size_t captures = merged.captures();
  absl::Status written = analysis::WriteProfileFile(
      options.output,
      merged.Finish(
          absl::StrCat("hwt ", pipeline::ToolVersion(), " (hwt-batch merge)")));
  if (!written.ok()) return ReportError(3, written.message());
  if (!options.quiet) {
    fprintf(stderr, "%s: merged %zu profiles (%zu captures) into %s\n",
            kBatchTool, options.inputs.size(), captures,
            options.output.c_str());
  }
  return 0;
}

int DiffCommand(const DiffCommandOptions& options) {
  auto base = Load(options.base);
  if (!base.ok()) return ReportError(2, base.status().message());
  auto now = Load(options.now);
  if (!now.ok()) return ReportError(2, now.status().message());
  report::DiffOptions diff_options;
  diff_options.absolute = options.absolute;
  diff_options.rows = options.rows;
  const report::ProfileDiff diff =
      report::DiffProfiles(*base, *now, diff_options);
  std::vector<report::FunctionDiff> regressions;
  if (options.fail_above) {
    auto found =
        report::Regressions(diff, *options.fail_above, options.function);
    if (!found.ok())
      return ReportError(
          2, "--function: " + std::string(found.status().message()));
    regressions = *std::move(found);
  }
  if (options.json) {
    nlohmann::json out = report::DiffJson(diff, diff_options);
    if (options.fail_above) {
      nlohmann::json list = nlohmann::json::array();
      for (const report::FunctionDiff& f : regressions) {
        list.push_back(
            {{"function", f.name}, {"image", f.image}, {"change", f.change}});
      }
      out["fail_above"] = *options.fail_above;
      out["regressions"] = std::move(list);
    }
    fputs(JsonText(out, JsonLayout::kIndented).c_str(), stdout);
  } else {
    fputs(report::RenderDiffText(diff, diff_options).c_str(), stdout);
  }
  fflush(stdout);
  for (const report::FunctionDiff& f : regressions) {
    fprintf(
        stderr, "%s: regression: %s%s grew by %s (more than %g%s)\n",
        kBatchTool, f.name.c_str(),
        f.image.empty() ? "" : absl::StrCat(" (", f.image, ")").c_str(),
        options.absolute
            ? absl::StrFormat("%d to %d instructions", f.base_self, f.new_self)
                  .c_str()
            : absl::StrFormat("%.2f percentage points (%.2f%% -> %.2f%%)",
                              f.change, f.base_share, f.new_share)
                  .c_str(),
        *options.fail_above, options.absolute ? "%" : " points");
  }
  return regressions.empty() ? 0 : 1;
}

}  // namespace hwt::batch
