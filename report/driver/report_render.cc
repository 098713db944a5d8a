// hwt-report's outputs of a model (a capture's profile, a saved one, an SPE
// capture's samples): the --only-image and --function filters on its tree,
// then every requested renderer (report/outputs/), or the model's default
// one, into the files the options name.
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "report/driver/report_internal.h"
#include "report/outputs/output_registry.h"
#include "report/tree/frame_matchers.h"
#include "report/tree/profile_filter.h"

namespace hwt::report::driver {
namespace {

// --only-image and --function: the stacks through / the subtrees under.
int ApplyFrameFilters(const ReportFlags& options, ReportModel& model) {
  if (!options.image.empty()) {
    model.image_match = ImageMatcher(options.image, model.names());
    model.tree = StacksThrough(model.tree, model.image_match);
    model.filters.push_back("through " + options.image);
  }
  if (!options.function.empty()) {
    auto matcher = FunctionNameMatcher(options.function, model.names());
    if (!matcher.ok()) {
      return Usage("--function: " + std::string(matcher.status().message()));
    }
    model.function_match = *matcher;
    model.tree = SubtreesAt(model.tree, model.function_match);
    model.filters.push_back("under /" + options.function + "/");
    if (model.tree.nodes.size() <= 1 && !options.quiet) {
      fprintf(stderr, "%s: warning: --function: no frame matches '%s'\n", kTool,
              options.function.c_str());
    }
  }
  return kExitOk;
}

// No output asked for: the registered renderer the model prefers (the
// flame graph; an SPE capture's own report).
Requested DefaultOutput(const ReportModel& model) {
  Requested best;
  int best_priority = 0;
  for (const std::string& name : RegisteredOutputs()) {
    Renderer* renderer = FindOutput(name);
    const int priority = renderer->DefaultPriority(model);
    if (priority > best_priority) {
      best_priority = priority;
      best = {{name, "-"}, renderer};
    }
  }
  return best;
}

}  // namespace

std::string SampledInputRefused(const std::string& output) {
  return absl::StrCat(
      "--", output,
      " needs exact branch and instruction counts, which a sampled profile "
      "(SPE) does not have; --pprof, --chrome-trace and the other outputs "
      "work from samples");
}

int Render(const RunContext& run, ReportModel& model) {
  const ReportFlags& options = run.flags;
  if (options.weight == "time" && !model.profile->has_time && !options.quiet) {
    fprintf(stderr,
            "%s: warning: --weight time: the trace has no timing; "
            "counting %s\n",
            kTool, model.sampled() ? "samples" : "instructions");
  }
  int rc = ApplyFrameFilters(options, model);
  if (rc != kExitOk) return rc;
  std::vector<Requested> outputs = run.outputs;
  if (outputs.empty()) {
    const Requested chosen = DefaultOutput(model);
    if (chosen.renderer == nullptr) return Usage("no output to write");
    outputs.push_back(chosen);
  }
  OutputCollector sink;
  for (const Requested& r : outputs) {
    if (model.sampled() && r.renderer->Needs(r.request, options).exact_counts) {
      return Usage(SampledInputRefused(r.request.name));
    }
    const absl::Status status = r.renderer->Render(model, r.request, sink);
    if (!status.ok()) return Fail(kTool, status);
  }
  PrintWarnings(model.warnings, options.quiet);
  rc = WriteOutputs(sink.files, run);
  if (rc != kExitOk) return rc;
  // Import problems (perf.data data loss, missing images) make it exit 1
  // like decode errors.
  const int code = DecodeExit(model.stream_stats, options.quiet);
  if (model.capture == nullptr) return code;
  return ImportExitCode(*model.capture, code);
}

}  // namespace hwt::report::driver
