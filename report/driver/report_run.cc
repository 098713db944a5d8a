// hwt-report's run: the outputs the options ask for and the checks that
// need no decoding, the choice between a capture, saved profiles and
// --diff, and a capture through the pipeline (pipeline/capture_pipeline.h)
// into the model its outputs render.
#include "report/driver/report_run.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "base/file_util.h"
#include "base/progress.h"
#include "pipeline/capture_pipeline.h"
#include "report/driver/report_internal.h"
#include "report/naming/symbolizer_symbols.h"
#include "report/naming/weight_unit.h"
#include "report/outputs/output_registry.h"
#include "report/tree/frame_matchers.h"
#include "report/tree/profile_filter.h"

namespace hwt::report::driver {

// auto is fast: the fast engine splits a buffer at PSBs across its workers
// as the libipt path does, with the same profile and less CPU
// (docs/performance.md).
DecoderEngine ChooseDecoderEngine(const ReportFlags& options) {
  const bool fast = options.fast || options.decoder != "libipt";
  return fast ? DecoderEngine::kFast : DecoderEngine::kLibipt;
}

namespace {

// The outputs asked for, with their renderers: the rows of the option
// table that request one and were given, in the table's order, then the
// outputs a caller of RunReport put in ReportFlags::outputs by name that no
// row requests (a registered renderer without an option).
absl::StatusOr<std::vector<Requested>> RequestedOutputs(
    const ReportFlags& given) {
  ReportFlags flags = given;
  std::vector<Requested> out;
  std::set<std::string_view> rows;
  for (const OptionRow<ReportFlags>& row : ReportOptionTable().rows) {
    if (row.info.requests.empty()) continue;
    rows.insert(row.info.requests);
    const OptionTarget target = row.target(flags);
    if (!OptionSet(target, row.info.default_value)) continue;
    Requested r;
    r.request.name = std::string(row.info.requests);
    if (const auto* text = std::get_if<std::string*>(&target)) {
      r.request.value = **text;
    }
    r.renderer = FindOutput(r.request.name);
    if (r.renderer == nullptr) {
      return absl::InternalError(absl::StrCat(CanonicalName(row.info),
                                              ": no renderer is registered "
                                              "for output '",
                                              r.request.name, "'"));
    }
    out.push_back(std::move(r));
  }
  for (const auto& [name, value] : given.outputs) {
    if (value.empty() || rows.contains(name)) continue;
    Renderer* renderer = FindOutput(name);
    if (renderer == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no output is called '", name, "'"));
    }
    out.push_back({{name, value}, renderer});
  }
  return out;
}

// --min-width: "0.1" pixels, or "0.5%" of a flame graph `width` pixels
// wide (less its margins). std::nullopt when the text is neither.
std::optional<double> ParseMinWidth(const std::string& text, int width) {
  std::string number = text;
  const bool percent = !number.empty() && number.back() == '%';
  if (percent) number.pop_back();
  char* end = nullptr;
  const double v = strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || v < 0) return std::nullopt;
  return percent ? v / 100.0 * (width - 20) : v;
}

// --range and --time into the event filter.
int ParseFilters(const ReportFlags& options, EventFilter* filter) {
  filter->stream = options.thread;
  if (!options.range.empty()) {
    auto range = ParseRange(options.range);
    if (!range.ok()) {
      return Usage("--range: " + std::string(range.status().message()));
    }
    filter->offsets = *range;
  }
  if (!options.time.empty()) {
    auto range = ParseRange(options.time);
    if (!range.ok()) {
      return Usage("--time: " + std::string(range.status().message()));
    }
    filter->times = *range;
  }
  return kExitOk;
}

int CheckOnlyImage(const ReportFlags& options,
                   const capture::AddressSpaceTimeline& timeline) {
  std::string known;
  bool found = false;
  for (const auto& image : timeline.images()) {
    found |= ImagePathMatches(image.recorded_path, options.image);
    absl::StrAppend(&known, known.empty() ? "" : ", ",
                    BaseName(image.recorded_path));
  }
  if (found) return kExitOk;
  return Usage("--only-image: the capture has no image '" + options.image +
               "' (it has: " + known + ")");
}

// The outputs that need exact counts refuse a sampling trace before it is
// decoded.
absl::Status RefuseSamples(const RunContext& run, bool samples) {
  if (!samples) return absl::OkStatus();
  for (const Requested& r : run.outputs) {
    if (r.renderer->Needs(r.request, run.flags).exact_counts) {
      return absl::InvalidArgumentError(SampledInputRefused(r.request.name));
    }
  }
  return absl::OkStatus();
}

// Decodes the capture into its profile (with the call timeline when an
// output shows one).
absl::StatusOr<analysis::CaptureProfile> ProfileOf(
    const RunContext& run, const EventFilter& filter,
    pipeline::CapturePipeline& pipeline, CallTimelineRecorder* recorder) {
  const ReportFlags& options = run.flags;
  Progress progress("decoding", TotalTraceBytes(pipeline.capture()));
  analysis::CaptureProfileOptions profile_options;
  profile_options.jobs = options.jobs;
  profile_options.engine = ChooseDecoderEngine(options);
  profile_options.hot_paths = run.needs.hot_paths;
  profile_options.progress = [&progress](uint64_t done, uint64_t) {
    progress.Update(done);
  };
  if (!filter.empty()) {
    profile_options.keep = [filter](uint32_t stream, const Event& e) {
      return filter.Keep(stream, e);
    };
  }
  profile_options.observer = recorder;
  profile_options.before_decode = [&run](bool samples) {
    return RefuseSamples(run, samples);
  };
  auto profiled = pipeline.Profile(std::move(profile_options));
  progress.Finish();
  return profiled;
}

void DescribeCapture(const ReportFlags& options,
                     const pipeline::CapturePipeline& pipeline,
                     const analysis::CaptureProfile& profiled,
                     ReportModel& model) {
  const capture::Manifest& manifest = pipeline.capture().manifest();
  const uint64_t hz = manifest.cpu.nominal_frequency_hz;
  model.profile = &profiled.profile;
  model.extension = profiled.extension.get();
  model.tree = profiled.profile.merged;
  model.decode = TotalStats(profiled.stats);
  model.stream_stats = profiled.stats;
  model.unit =
      ChooseWeightUnit(options.weight != "instructions", profiled.profile, hz);
  model.time_unit = TimeUnitOf(profiled.profile, hz);
  model.streams = profiled.streams;
  model.cpu_mode = manifest.mode == capture::TraceMode::kCpu;
  model.name = BaseName(options.input.input);
  model.capture = &pipeline.capture();
  model.timeline = &pipeline.timeline();
  if (options.thread) {
    model.filters.push_back(absl::StrCat("thread ", *options.thread));
  }
  if (!options.range.empty()) {
    model.filters.push_back("range " + options.range);
  }
  if (!options.time.empty()) model.filters.push_back("time " + options.time);
}

int RunCapture(const RunContext& run, const EventFilter& filter) {
  const ReportFlags& options = run.flags;
  auto input = OpenInput(options.input, kTool, options.quiet);
  if (!input.ok()) return Fail(kTool, input.status());
  pipeline::CapturePipeline pipeline(*std::move(input));
  symbolizer::SymbolizerOptions sym_options;
  sym_options.demangle = !options.no_demangle;
  sym_options.inline_frames = !options.no_inline;
  sym_options.sysroot = options.input.sysroot;
  PrintWarnings(pipeline.Symbolize(sym_options), options.quiet);
  if (!options.image.empty()) {
    const int rc = CheckOnlyImage(options, pipeline.timeline());
    if (rc != kExitOk) return rc;
  }
  // The evented timelines (speedscope, the Chrome trace) come from the
  // profile builder's own stacks.
  std::unique_ptr<CallTimelineRecorder> recorder;
  if (run.needs.call_timeline) {
    recorder = std::make_unique<CallTimelineRecorder>(options.max_events);
  }
  auto profiled = ProfileOf(run, filter, pipeline, recorder.get());
  if (!profiled.ok()) return Fail(kTool, profiled.status());
  if (options.thread && *options.thread >= profiled->streams.size()) {
    return Usage(absl::StrFormat(
        "--thread %d: the capture has %d streams (0-%d)", *options.thread,
        profiled->streams.size(), profiled->streams.size() - 1));
  }
  if (options.engine_stats) {
    std::fprintf(stderr, "%s: %s\n", kTool,
                 profiled->engine_note.empty() ? "libipt decoded everything"
                                               : profiled->engine_note.c_str());
  }
  ReportModel model;
  model.flags = &options;
  model.min_width_px = run.min_width_px;
  model.source_lines = run.needs.source_lines;
  DescribeCapture(options, pipeline, *profiled, model);
  SymbolizerProfileSymbols symbols(&pipeline.symbolizer(),
                                   &pipeline.timeline());
  model.symbols = &symbols;
  model.code = &pipeline.code();
  model.symbolizer = &pipeline.symbolizer();
  model.recorder = recorder.get();
  return Render(run, model);
}

}  // namespace
}  // namespace hwt::report::driver

namespace hwt::report {

int RunReport(const ReportFlags& flags, const ReportEnvironment& env) {
  using namespace driver;  // NOLINT: the run's parts
  ReportFlags options = flags;
  if (!options.inputs.empty()) options.input.input = options.inputs[0];
  // Checks that need no decoding first.
  auto outputs = RequestedOutputs(options);
  if (!outputs.ok()) return Fail(kTool, outputs.status());
  OutputNeeds needs;
  for (const Requested& r : *outputs) {
    if (absl::Status ok = r.renderer->Check(r.request, options); !ok.ok()) {
      return Fail(kTool, ok);
    }
    const OutputNeeds n = r.renderer->Needs(r.request, options);
    needs.call_timeline |= n.call_timeline;
    needs.requires_call_timeline |= n.requires_call_timeline;
    needs.hot_paths |= n.hot_paths;
    needs.source_lines |= n.source_lines;
    needs.exact_counts |= n.exact_counts;
  }
  EventFilter filter;
  const int rc = ParseFilters(options, &filter);
  if (rc != kExitOk) return rc;
  const std::optional<double> min_width_px =
      ParseMinWidth(options.min_width, FlameOptions().width);
  if (!min_width_px) {
    return Usage("--min-width: expected PIXELS or PERCENT%, got '" +
                 options.min_width + "'");
  }
  const RunContext run{options, env, *min_width_px, *std::move(outputs), needs};
  if (!options.diff.empty()) return RunDiff(run);
  if (options.inputs.empty()) return Usage("INPUT is required");
  bool any_profile = false;
  for (const std::string& in : options.inputs) {
    // A batch directory stands for its merged profile.
    any_profile |= analysis::IsProfileFile(in) ||
                   analysis::IsProfileFile(in + "/merged.hwtprof");
  }
  if (options.inputs.size() > 1 || any_profile || !options.save.empty()) {
    return RunProfiles(run);
  }
  return RunCapture(run, filter);
}

}  // namespace hwt::report
