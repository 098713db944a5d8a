// hwt-report's run: the checks that need no decoding, the choice between
// a capture, saved profiles and --diff, and a capture decoded into its
// profile (the SPE captures go to report_spe.cc).
#include "report/driver/report_run.h"

#include <cstdio>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/capture_profile.h"
#include "analysis/saved/profile_file.h"
#include "base/file_util.h"
#include "base/progress.h"
#include "base/threads.h"
#include "report/common/symbol_names.h"
#include "report/common/symbolizer_resolver.h"
#include "report/driver/report_internal.h"
#include "report/profile/profile_filter.h"
#include "report/profile/symbolizer_symbols.h"

namespace hwt::report::driver {

// auto is fast: the fast engine splits a buffer at PSBs across its workers
// as the libipt path does, with the same profile and less CPU
// (docs/performance.md).
DecoderEngine ChooseDecoderEngine(const ReportFlags& options) {
  const bool fast = options.fast || options.decoder != "libipt";
  return fast ? DecoderEngine::kFast : DecoderEngine::kLibipt;
}

namespace {

// --range and --time into the event filter, --callgraph's value.
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
  if (!options.callgraph.empty() && options.callgraph != "text" &&
      options.callgraph != "dot") {
    return Usage("--callgraph: expected text or dot, got '" +
                 options.callgraph + "'");
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

std::unique_ptr<symbolizer::Symbolizer> CaptureSymbolizer(
    const ReportFlags& options, const OpenedInput& input) {
  symbolizer::SymbolizerOptions sym_options;
  sym_options.demangle = !options.no_demangle;
  sym_options.inline_frames = !options.no_inline;
  sym_options.sysroot = options.input.sysroot;
  auto symbolizer = symbolizer::Symbolizer::Create(sym_options);
  PrintWarnings(RegisterTimelineImages(input.timeline, *symbolizer),
                options.quiet);
  return symbolizer;
}

// Decodes the capture into its profile (with the call timeline when an
// output shows one).
absl::StatusOr<analysis::CaptureProfile> DecodeCapture(
    const ReportFlags& options, const EventFilter& filter,
    const OpenedInput& input, symbolizer::Symbolizer& symbolizer,
    CallTimelineRecorder* recorder) {
  Progress progress("decoding", TotalTraceBytes(*input.capture));
  analysis::CaptureProfileOptions profile_options;
  profile_options.jobs = options.jobs;
  profile_options.engine = ChooseDecoderEngine(options);
  // --hot and the HTML report show the hot paths.
  profile_options.hot_paths = options.hot || !options.html.empty();
  profile_options.progress = [&progress](uint64_t done, uint64_t) {
    progress.Update(done);
  };
  if (!filter.empty()) {
    profile_options.keep = [filter](uint32_t stream, const Event& e) {
      return filter.Keep(stream, e);
    };
  }
  profile_options.observer = recorder;
  SymbolizerResolver resolver(symbolizer);
  auto profiled = analysis::ProfileCapture(*input.capture, input.timeline,
                                           resolver, profile_options);
  progress.Finish();
  return profiled;
}

void DescribeSubject(const ReportFlags& options, const OpenedInput& input,
                     const analysis::CaptureProfile& profiled,
                     Subject& subject) {
  const capture::Manifest& manifest = input.capture->manifest();
  subject.profile = &profiled.profile;
  subject.tree = profiled.profile.merged;
  subject.decode = TotalStats(profiled.stats);
  subject.stream_stats = profiled.stats;
  subject.unit = ChooseWeightUnit(options.weight != "instructions",
                                  profiled.profile.has_time, manifest);
  subject.streams = profiled.streams;
  subject.cpu_mode = manifest.mode == capture::TraceMode::kCpu;
  subject.name = BaseName(options.input.input);
  subject.capture = input.capture.get();
  subject.timeline = &input.timeline;
  if (options.thread) {
    subject.filters.push_back(absl::StrCat("thread ", *options.thread));
  }
  if (!options.range.empty()) {
    subject.filters.push_back("range " + options.range);
  }
  if (!options.time.empty()) subject.filters.push_back("time " + options.time);
}

int RunCapture(const RunContext& run, const EventFilter& filter) {
  const ReportFlags& options = run.flags;
  auto input = OpenInput(options.input, kTool, options.quiet);
  if (!input.ok()) return Fail(kTool, input.status());
  auto symbolizer = CaptureSymbolizer(options, *input);
  if (input->capture->manifest().backend == capture::Backend::kSpe) {
    return ImportExitCode(*input->capture, RunSpe(run, *input, *symbolizer));
  }
  if (!options.image.empty()) {
    const int rc = CheckOnlyImage(options, input->timeline);
    if (rc != kExitOk) return rc;
  }
  // The evented timelines (speedscope) come from the builder's own stacks.
  std::unique_ptr<CallTimelineRecorder> recorder;
  if (!options.speedscope.empty() || !options.exports.chrome_trace.empty()) {
    recorder = std::make_unique<CallTimelineRecorder>(options.max_events);
  }
  auto profiled =
      DecodeCapture(options, filter, *input, *symbolizer, recorder.get());
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
  Subject subject;
  DescribeSubject(options, *input, *profiled, subject);
  SymbolizerProfileSymbols symbols(symbolizer.get(), &input->timeline);
  subject.symbols = &symbols;
  analysis::ImageCodeReader reader(input->timeline);
  subject.code = &reader;
  subject.symbolizer = symbolizer.get();
  subject.recorder = recorder.get();
  return Render(run, subject);
}

}  // namespace
}  // namespace hwt::report::driver

namespace hwt::report {

int RunReport(const ReportFlags& flags, const ReportEnvironment& env) {
  using namespace driver;  // NOLINT: the run's parts
  ReportFlags options = flags;
  if (!options.inputs.empty()) options.input.input = options.inputs[0];
  // Checks that need no decoding first.
  EventFilter filter;
  const int rc = ParseFilters(options, &filter);
  if (rc != kExitOk) return rc;
  const std::optional<double> min_width_px =
      ParseMinWidth(options.min_width, FlameOptions().width);
  if (!min_width_px) {
    return Usage("--min-width: expected PIXELS or PERCENT%, got '" +
                 options.min_width + "'");
  }
  const RunContext run{options, env, *min_width_px};
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
