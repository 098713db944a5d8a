// hwt-report: profiles of a capture (flame graph, folded stacks, speedscope,
// call graphs, top functions, hot blocks/branches/paths/loops, annotated
// disassembly), with thread, image, function, trace-position and time
// filters; on SPE captures the SPE sample reports. A thin front end: the
// work is in analysis/ (profiles) and report/ (filters and renderers).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/block_expansion.h"
#include "analysis/capture_profile.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_merge.h"
#include "analysis/spe_profile.h"
#include "base/file_util.h"
#include "base/output.h"
#include "base/progress.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "report/common/symbol_names.h"
#include "report/common/symbolizer_resolver.h"
#include "report/common/text_util.h"
#include "report/export/export_input.h"
#include "report/export/export_outputs.h"
#include "report/html/profile_model.h"
#include "report/html/spe_model.h"
#include "report/listing/decode_stats.h"
#include "report/profile/annotate.h"
#include "report/profile/call_timeline.h"
#include "report/profile/callgraph_dot.h"
#include "report/profile/callgraph_text.h"
#include "report/profile/capture_analysis.h"
#include "report/profile/flame_svg.h"
#include "report/profile/folded.h"
#include "report/profile/hot_report.h"
#include "report/profile/profile_diff.h"
#include "report/profile/profile_filter.h"
#include "report/profile/report_support.h"
#include "report/profile/saved_symbols.h"
#include "report/profile/speedscope.h"
#include "report/profile/symbolized_profile.h"
#include "report/profile/symbolizer_symbols.h"
#include "report/profile/top_table.h"
#include "report/spe/spe_report.h"
#include "report/spe/spe_symbolizer_source.h"
#include "symbolizer/symbolizer.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-report";

using hwt::tools::kExitDecodeErrors;
using hwt::tools::kExitInternal;
using hwt::tools::kExitOk;
using hwt::tools::kExitUsage;
namespace report = hwt::report;
namespace analysis = hwt::analysis;

struct Options {
  hwt::tools::InputFlags input;
  // Every INPUT: captures and saved profiles (.hwtprof), merged.
  std::vector<std::string> inputs;
  std::string save;               // --save FILE.hwtprof
  std::vector<std::string> diff;  // --diff BASE NEW
  bool absolute = false;          // --diff: raw counts, not shares
  // Outputs: a flag given = requested; the value is its file ("-" = the
  // shared destination: -o or stdout).
  std::string flame, folded, speedscope, callgraph, html;
  report::ExportFlags exports;  // --pprof, --bolt, ... (report/export)
  bool icicle = false;
  std::string title;
  std::string count_name;
  std::string min_width = "0.1";
  size_t top = 0;
  bool hot = false;
  std::string annotate;
  std::string format = "text";
  std::string output;
  size_t rows = 20;
  double min_percent = -1;  // callgraph: default per format
  // Filters.
  std::optional<uint32_t> thread;
  std::string image;
  std::string function;
  std::string range;
  std::string time;
  std::string weight = "instructions";
  bool no_inline = false;
  bool no_demangle = false;
  int jobs = 1;
  std::string decoder = "auto";  // --decoder
  bool fast = false;             // --fast: --decoder fast
  bool engine_stats = false;     // --stats
  size_t max_events = 5'000'000;
  bool quiet = false;
};

// One requested output and where it goes.
struct OutputSpec {
  std::string what;     // "flame", "folded", ...
  std::string file;     // "" = stdout
  bool binary = false;  // SVG or JSON: not for a terminal
  std::string suffix;   // default file name suffix (NAME.SUFFIX)
  std::string content;
};

int Usage(const std::string& message) {
  hwt::tools::PrintError(kTool, message);
  return kExitUsage;
}

// As hwt-decode: exit 1 when the trace had decode errors or a stream of
// which no byte could be decoded; bytes skipped before a stream's first
// sync point are only a note.
int DecodeExit(const std::vector<hwt::StreamStats>& streams, bool quiet) {
  if (report::DecodeFailed(streams)) {
    hwt::tools::PrintError(kTool, report::DecodeFailureMessage(streams));
    return kExitDecodeErrors;
  }
  const std::string message =
      report::DecodeErrorMessage(hwt::TotalStats(streams));
  if (!message.empty() && !quiet) {
    fprintf(stderr, "%s: note: %s\n", kTool, message.c_str());
  }
  return kExitOk;
}

// Every decode stream of every capture of a saved profile.
std::vector<hwt::StreamStats> StreamStatsOf(const analysis::SavedProfile& p) {
  std::vector<hwt::StreamStats> out;
  for (const analysis::CaptureSource& s : p.sources) {
    for (const analysis::SavedStream& stream : s.streams) {
      out.push_back(stream.stats);
    }
  }
  return out;
}

// Resolves where each output goes (-o, =FILE, stdout, or a file next to the
// input's name when stdout is a terminal) and writes them all atomically.
int WriteOutputs(std::vector<OutputSpec>& outputs, const Options& options) {
  std::vector<OutputSpec*> shared;
  for (OutputSpec& o : outputs) {
    if (o.file == "-" || o.file.empty()) shared.push_back(&o);
  }
  if (!options.output.empty()) {
    if (shared.size() > 1) {
      return Usage(
          "-o FILE with several outputs: give each its own file "
          "(--flame=FILE, --speedscope=FILE, ...)");
    }
    if (shared.size() == 1) shared[0]->file = options.output;
  } else {
    const bool terminal = isatty(STDOUT_FILENO) != 0;
    for (OutputSpec* o : shared) {
      if (terminal && o->binary) {
        o->file = report::DefaultOutputName(options.input.input, o->suffix);
      } else {
        o->file = "";
      }
    }
  }
  bool first_stdout = true;
  for (OutputSpec& o : outputs) {
    auto out = hwt::Output::Open(o.file);
    if (!out.ok()) {
      hwt::tools::PrintError(kTool, std::string(out.status().message()));
      return kExitInternal;
    }
    if (out->is_stdout() && !first_stdout) out->Write("\n");
    if (out->is_stdout()) first_stdout = false;
    out->Write(o.content);
    absl::Status status = out->Commit();
    if (!status.ok()) {
      hwt::tools::PrintError(kTool, std::string(status.message()));
      return kExitInternal;
    }
    if (!out->is_stdout() && !options.quiet) {
      fprintf(stderr, "%s: wrote %s (%s)\n", kTool, o.file.c_str(),
              o.what.c_str());
    }
  }
  return kExitOk;
}

// The flame graph options every backend sets the same way from the flags.
report::FlameOptions FlameFromFlags(const Options& options, double min_width_px,
                                    const std::string& title,
                                    const std::string& icicle_title,
                                    const std::string& count_name) {
  report::FlameOptions flame;
  flame.title = !options.title.empty() ? options.title
                : options.icicle       ? icicle_title
                                       : title;
  flame.count_name =
      options.count_name.empty() ? count_name : options.count_name;
  flame.inverted = options.icicle;
  flame.min_width = min_width_px;
  return flame;
}

// The SPE reports.
int RunSpe(const Options& options, double min_width_px,
           const hwt::tools::OpenedInput& input,
           hwt::symbolizer::Symbolizer& symbolizer) {
  if (!options.speedscope.empty() || !options.callgraph.empty() ||
      options.hot || !options.annotate.empty() || options.thread ||
      !options.range.empty() || !options.time.empty() ||
      !options.function.empty() || !options.image.empty() ||
      options.exports.any()) {
    return Usage(
        "SPE captures have samples, not control flow: only the SPE report "
        "(text or --format json), --folded, --flame, --html and --top N "
        "apply; the exports are for PT and CoreSight");
  }
  report::SymbolizerResolver resolver(symbolizer);
  auto result =
      analysis::ProfileSpeCapture(*input.capture, input.timeline, &resolver);
  if (!result.ok()) return hwt::tools::Fail(kTool, result.status());
  report::SymbolizerSymbolSource symbols(&symbolizer);
  report::SpeReportOptions spe_options;
  if (options.top != 0) spe_options.top = options.top;
  std::vector<OutputSpec> outputs;
  const std::string folded =
      options.folded.empty() && options.flame.empty()
          ? std::string()
          : report::FormatSpeFolded(result->profile, &symbols);
  if (!options.folded.empty()) {
    outputs.push_back(
        {"folded stacks", options.folded, false, "folded", folded});
  }
  if (!options.flame.empty()) {
    report::FrameTable frames;
    const report::NamedTree tree =
        report::NamedTreeFromFolded(folded, frames, [](std::string_view root) {
          return report::CategoryOfImage(root, root == "[kernel]");
        });
    report::FlameOptions flame =
        FlameFromFlags(options, min_width_px, "SPE Flame Graph",
                       "SPE Icicle Graph", "samples");
    flame.subtitle = absl::StrCat(hwt::BaseName(options.input.input), ": ",
                                  report::Thousands(result->profile.samples),
                                  " samples by image and function");
    outputs.push_back({"flame graph", options.flame, true, "flame.svg",
                       report::RenderFlameSvg(tree, frames, flame)});
  }
  if (!options.html.empty()) {
    report::html::SpeModelInputs html;
    html.capture = input.capture.get();
    html.title = hwt::BaseName(options.input.input);
    html.result = &*result;
    html.symbols = &symbols;
    report::html::HtmlOptions html_options;
    html_options.prune_fraction = min_width_px / report::FlameOptions().width;
    outputs.push_back({"HTML report", options.html, true, "report.html",
                       report::html::RenderSpeReport(html, html_options)});
  }
  if (outputs.empty() || options.top != 0) {
    const bool json = options.format == "json";
    outputs.push_back({"SPE report", "-", json, json ? "spe.json" : "spe.txt",
                       json ? report::FormatSpeReportJson(result->profile,
                                                          &symbols, spe_options)
                            : report::FormatSpeReportText(
                                  result->profile, &symbols, spe_options)});
  }
  const int rc = WriteOutputs(outputs, options);
  if (rc != kExitOk) return rc;
  const hwt::spe::SpeStats& total = result->stats.total;
  if (total.skipped_ranges != 0) {
    hwt::tools::PrintError(
        kTool, absl::StrCat(report::Thousands(total.skipped_ranges),
                            " undecodable runs, ",
                            report::Thousands(total.bytes_skipped),
                            " bytes skipped: see hwt-decode --stats"));
    return kExitDecodeErrors;
  }
  return kExitOk;
}

// What the outputs are made from: a capture's profile with the symbolizer,
// or a saved (merged) profile with its saved names and code.
struct Subject {
  const analysis::Profile* profile = nullptr;
  analysis::CallTree tree;  // before --only-image / --function
  hwt::StreamStats decode;
  std::vector<hwt::StreamStats> stream_stats;  // for the exit status
  report::WeightUnit unit;
  report::ProfileSymbols* symbols = nullptr;
  analysis::CodeReader* code = nullptr;  // for the block expansion
  // --annotate disassembles the images; null when none is here (then
  // `annotate_problem` says why).
  hwt::symbolizer::Symbolizer* symbolizer = nullptr;
  std::string annotate_problem;
  report::CallTimelineRecorder* recorder = nullptr;  // --speedscope
  std::vector<hwt::StreamInfo> streams;
  bool cpu_mode = false;
  std::string name;                  // of the input, in titles
  std::vector<std::string> filters;  // thread, range, time
  // The capture and its address-space timeline (--html, the exports); null
  // for saved profiles.
  const hwt::capture::Capture* capture = nullptr;
  const hwt::capture::AddressSpaceTimeline* timeline = nullptr;
};

int Render(const Options& options, double min_width_px, Subject& subject);

constexpr char kNeedsCapture[] =
    ": it selects trace bytes or timestamps, which a saved profile does not "
    "keep; report the capture itself";

void PrintWarnings(const std::vector<std::string>& warnings, bool quiet) {
  if (quiet) return;
  for (const std::string& w : warnings) {
    fprintf(stderr, "%s: warning: %s\n", kTool, w.c_str());
  }
}

// Saved profiles and captures, merged (several INPUTs, a .hwtprof, --save).
absl::StatusOr<analysis::SavedProfile> LoadInputs(
    const Options& options, const std::vector<std::string>& inputs) {
  HWT_ASSIGN_OR_RETURN(hwt::capture::InputOptions input,
                       hwt::tools::InputOptionsFromFlags(options.input));
  report::AnalyseOptions analyse;
  analyse.input = input;
  analyse.jobs = options.jobs;
  analyse.save.writer =
      absl::StrCat("hwt ", report::ToolVersion(), " (hwt-report)");
  std::vector<std::string> resolved;
  for (const std::string& in : inputs) {
    // A batch directory stands for its merged profile.
    const std::string merged = in + "/merged.hwtprof";
    resolved.push_back(analysis::IsProfileFile(merged) ? merged : in);
  }
  std::vector<std::string> warnings;
  auto saved = report::LoadAndMerge(resolved, analyse, &warnings);
  PrintWarnings(warnings, options.quiet);
  return saved;
}

int RunProfiles(const Options& options, double min_width_px) {
  if (!options.range.empty() || !options.time.empty()) {
    return Usage(std::string(options.range.empty() ? "--time" : "--range") +
                 kNeedsCapture);
  }
  auto saved = LoadInputs(options, options.inputs);
  if (!saved.ok()) return hwt::tools::Fail(kTool, saved.status());
  if (!options.save.empty()) {
    absl::Status written = analysis::WriteProfileFile(options.save, *saved);
    if (!written.ok()) {
      hwt::tools::PrintError(kTool, std::string(written.message()));
      return kExitInternal;
    }
    if (!options.quiet) {
      fprintf(stderr, "%s: wrote %s (saved profile)\n", kTool,
              options.save.c_str());
    }
    const bool outputs = !options.flame.empty() || !options.folded.empty() ||
                         !options.speedscope.empty() ||
                         !options.callgraph.empty() || options.top != 0 ||
                         options.hot || !options.annotate.empty();
    if (!outputs) return DecodeExit(StreamStatsOf(*saved), options.quiet);
  }
  if (!options.html.empty() || options.exports.any()) {
    return Usage(
        "--html and the exports (--pprof, --bolt, ...) are made from a "
        "capture, not yet from a saved profile; report the capture itself");
  }
  Subject subject;
  subject.profile = &saved->profile;
  subject.tree = saved->profile.merged;
  if (options.thread) {
    std::vector<const analysis::CallTree*> trees;
    for (const analysis::ThreadProfile& t : saved->profile.threads) {
      if (t.stream == *options.thread) trees.push_back(&t.tree);
    }
    if (trees.empty()) {
      return Usage(absl::StrFormat("--thread %d: no capture has stream %d",
                                   *options.thread, *options.thread));
    }
    if (options.hot) {
      return Usage(
          "--hot with --thread: a saved profile counts blocks, edges and "
          "paths over all threads; report the capture itself");
    }
    subject.tree = analysis::MergeCallTrees(trees);
    subject.filters.push_back(absl::StrCat("thread ", *options.thread));
  }
  if (!options.image.empty()) {
    std::string known;
    bool found = false;
    for (const analysis::SavedImage& image : saved->images) {
      found |= report::ImagePathMatches(image.path, options.image);
      absl::StrAppend(&known, known.empty() ? "" : ", ",
                      hwt::BaseName(image.path));
    }
    if (!found) {
      return Usage("--only-image: the profile has no image '" + options.image +
                   "' (it has: " + known + ")");
    }
  }
  subject.decode = report::TotalDecodeStats(*saved);
  subject.stream_stats = StreamStatsOf(*saved);
  subject.unit =
      report::ChooseProfileWeightUnit(options.weight != "instructions", *saved);
  report::SavedProfileSymbols symbols(*saved, !options.no_inline,
                                      !options.no_demangle);
  subject.symbols = &symbols;
  report::SavedCodeReader code(*saved);
  subject.code = &code;
  std::unique_ptr<hwt::symbolizer::Symbolizer> symbolizer;
  if (!options.annotate.empty()) {
    hwt::symbolizer::SymbolizerOptions sym_options;
    sym_options.demangle = !options.no_demangle;
    sym_options.inline_frames = !options.no_inline;
    sym_options.sysroot = options.input.sysroot;
    std::vector<std::string> missing;
    symbolizer =
        report::SymbolizerForSavedImages(*saved, sym_options, &missing);
    if (missing.size() == saved->images.size()) {
      subject.annotate_problem =
          "it disassembles whole functions from the image files, and none of "
          "the profile's images is on this machine (with its build-id; "
          "--sysroot names where they are): " +
          absl::StrJoin(missing, ", ");
    } else {
      if (!missing.empty()) {
        PrintWarnings({"--annotate: images not on this machine: " +
                       absl::StrJoin(missing, ", ")},
                      options.quiet);
      }
      subject.symbolizer = symbolizer.get();
    }
  }
  subject.name = options.inputs.size() == 1
                     ? hwt::BaseName(options.inputs[0])
                     : absl::StrCat(saved->sources.size(), " captures");
  return Render(options, min_width_px, subject);
}

// --diff BASE NEW: the differential flame graph (default), difffolded
// stacks (--folded) or the functions that changed most (--top N).
int RunDiff(const Options& given, double min_width_px) {
  Options options = given;
  options.input.input = options.diff[1];  // names the default output file
  if (!options.inputs.empty()) {
    return Usage("--diff BASE NEW takes its two inputs itself (no INPUT)");
  }
  if (!options.speedscope.empty() || !options.callgraph.empty() ||
      options.hot || !options.annotate.empty() || options.thread ||
      !options.range.empty() || !options.time.empty() ||
      !options.function.empty() || !options.image.empty()) {
    return Usage(
        "--diff draws a differential flame graph (--flame, the default), "
        "difffolded stacks (--folded) or a table of changes (--top N); "
        "filters do not apply");
  }
  auto base = LoadInputs(options, {options.diff[0]});
  if (!base.ok()) return hwt::tools::Fail(kTool, base.status());
  auto now = LoadInputs(options, {options.diff[1]});
  if (!now.ok()) return hwt::tools::Fail(kTool, now.status());
  report::SavedProfileSymbols base_symbols(*base, !options.no_inline,
                                           !options.no_demangle);
  report::SavedProfileSymbols now_symbols(*now, !options.no_inline,
                                          !options.no_demangle);
  report::ProfileNames base_names(base_symbols), now_names(now_symbols);
  auto named = [&](const analysis::SavedProfile& p,
                   report::ProfileNames& names) {
    report::SavedCodeReader code(p);
    const analysis::BlockExpansion x = analysis::ExpandBlocks(p.profile, code);
    report::NamedTreeOptions tree_options;
    tree_options.inline_frames = !options.no_inline;
    tree_options.profile = &p.profile;
    tree_options.expansion = &x;
    return report::BuildNamedTree(p.profile.merged, names, tree_options);
  };
  const report::NamedTree base_tree = named(*base, base_names);
  const report::NamedTree now_tree = named(*now, now_names);
  std::vector<OutputSpec> outputs;
  const std::string title = absl::StrCat(hwt::BaseName(options.diff[0]), " -> ",
                                         hwt::BaseName(options.diff[1]));
  if (!options.folded.empty()) {
    outputs.push_back({"difffolded stacks", options.folded, false,
                       "diff.folded",
                       report::DiffFolded(base_tree, base_names.frames(),
                                          now_tree, now_names.frames())});
  }
  if (options.top != 0) {
    report::DiffOptions diff_options;
    diff_options.absolute = options.absolute;
    diff_options.rows = options.top;
    const report::ProfileDiff diff =
        report::DiffProfiles(*base, *now, diff_options);
    const bool json = options.format == "json";
    outputs.push_back(
        {"changed functions", "-", json, json ? "diff.json" : "diff.txt",
         json ? report::DiffJson(diff, diff_options).dump(2) + "\n"
              : report::RenderDiffText(diff, diff_options)});
  }
  if (!options.flame.empty() || outputs.empty()) {
    report::FlameOptions flame =
        FlameFromFlags(options, min_width_px, "Differential Flame Graph",
                       "Differential Icicle Graph", "instructions");
    flame.subtitle = absl::StrCat(
        title, ": widths are the new profile, red grew and blue shrank ",
        options.absolute ? "(counts)" : "(shares of each total)");
    flame.node_delta =
        report::StackDeltas(now_tree, now_names.frames(), base_tree,
                            base_names.frames(), options.absolute);
    outputs.push_back(
        {"differential flame graph",
         options.flame.empty() ? "-" : options.flame, true, "diff.svg",
         report::RenderFlameSvg(now_tree, now_names.frames(), flame)});
  }
  return WriteOutputs(outputs, options);
}

int Run(const Options& options) {
  // Checks that need no decoding first.
  report::EventFilter filter;
  filter.stream = options.thread;
  if (!options.range.empty()) {
    auto range = report::ParseRange(options.range);
    if (!range.ok())
      return Usage("--range: " + std::string(range.status().message()));
    filter.offsets = *range;
  }
  if (!options.time.empty()) {
    auto range = report::ParseRange(options.time);
    if (!range.ok())
      return Usage("--time: " + std::string(range.status().message()));
    filter.times = *range;
  }
  if (!options.callgraph.empty() && options.callgraph != "text" &&
      options.callgraph != "dot") {
    return Usage("--callgraph: expected text or dot, got '" +
                 options.callgraph + "'");
  }
  const std::optional<double> min_width_px =
      report::ParseMinWidth(options.min_width, report::FlameOptions().width);
  if (!min_width_px) {
    return Usage("--min-width: expected PIXELS or PERCENT%, got '" +
                 options.min_width + "'");
  }

  if (!options.diff.empty()) return RunDiff(options, *min_width_px);
  if (options.inputs.empty()) return Usage("INPUT is required");
  bool any_profile = false;
  for (const std::string& in : options.inputs) {
    any_profile |= analysis::IsProfileFile(in);
  }
  if (options.inputs.size() > 1 || any_profile || !options.save.empty()) {
    return RunProfiles(options, *min_width_px);
  }

  auto input = hwt::tools::OpenInput(options.input, kTool, options.quiet);
  if (!input.ok()) return hwt::tools::Fail(kTool, input.status());
  const hwt::capture::Manifest& manifest = input->capture->manifest();

  hwt::symbolizer::SymbolizerOptions sym_options;
  sym_options.demangle = !options.no_demangle;
  sym_options.inline_frames = !options.no_inline;
  sym_options.sysroot = options.input.sysroot;
  auto symbolizer = hwt::symbolizer::Symbolizer::Create(sym_options);
  for (const std::string& warning :
       report::RegisterTimelineImages(input->timeline, *symbolizer)) {
    if (!options.quiet) {
      fprintf(stderr, "%s: warning: %s\n", kTool, warning.c_str());
    }
  }
  if (manifest.backend == hwt::capture::Backend::kSpe) {
    return hwt::tools::ImportExitCode(
        *input->capture, RunSpe(options, *min_width_px, *input, *symbolizer));
  }
  if (!options.image.empty()) {
    bool found = false;
    for (const auto& image : input->timeline.images()) {
      found |= report::ImagePathMatches(image.recorded_path, options.image);
    }
    if (!found) {
      std::string known;
      for (const auto& image : input->timeline.images()) {
        absl::StrAppend(&known, known.empty() ? "" : ", ",
                        hwt::BaseName(image.recorded_path));
      }
      return Usage("--only-image: the capture has no image '" + options.image +
                   "' (it has: " + known + ")");
    }
  }

  // Decode and profile.
  const bool want_flame = !options.flame.empty();
  const bool want_speedscope = !options.speedscope.empty();
  const bool want_html = !options.html.empty();
  hwt::Progress progress("decoding",
                         hwt::tools::TotalTraceBytes(*input->capture));
  analysis::CaptureProfileOptions profile_options;
  profile_options.jobs = options.jobs;
  // auto: the fast engine when one worker decodes; with several the libipt
  // path decodes segments in parallel, which the fast engine does not yet.
  const bool fast_engine =
      options.fast || options.decoder == "fast" ||
      (options.decoder == "auto" && hwt::ResolveJobs(options.jobs) == 1);
  profile_options.engine =
      fast_engine ? hwt::DecoderEngine::kFast : hwt::DecoderEngine::kLibipt;
  profile_options.hot_paths = options.hot || want_html;  // they show them
  profile_options.progress = [&progress](uint64_t done, uint64_t) {
    progress.Update(done);
  };
  if (!filter.empty()) {
    profile_options.keep = [filter](uint32_t stream, const hwt::Event& e) {
      return filter.Keep(stream, e);
    };
  }
  // The evented timelines (speedscope) come from the builder's own stacks.
  std::unique_ptr<report::CallTimelineRecorder> recorder;
  if (want_speedscope || !options.exports.chrome_trace.empty()) {
    recorder =
        std::make_unique<report::CallTimelineRecorder>(options.max_events);
    profile_options.observer = recorder.get();
  }
  report::SymbolizerResolver resolver(*symbolizer);
  auto profiled = analysis::ProfileCapture(*input->capture, input->timeline,
                                           resolver, profile_options);
  progress.Finish();
  if (!profiled.ok()) return hwt::tools::Fail(kTool, profiled.status());
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
  subject.profile = &profiled->profile;
  subject.tree = profiled->profile.merged;
  subject.decode = hwt::TotalStats(profiled->stats);
  subject.stream_stats = profiled->stats;
  subject.unit = report::ChooseWeightUnit(options.weight != "instructions",
                                          profiled->profile.has_time, manifest);
  report::SymbolizerProfileSymbols symbols(symbolizer.get(), &input->timeline);
  subject.symbols = &symbols;
  analysis::ImageCodeReader reader(input->timeline);
  subject.code = &reader;
  subject.symbolizer = symbolizer.get();
  subject.recorder = recorder.get();
  subject.streams = profiled->streams;
  subject.cpu_mode = manifest.mode == hwt::capture::TraceMode::kCpu;
  subject.name = hwt::BaseName(options.input.input);
  subject.capture = input->capture.get();
  subject.timeline = &input->timeline;
  if (options.thread) {
    subject.filters.push_back(absl::StrCat("thread ", *options.thread));
  }
  if (!options.range.empty())
    subject.filters.push_back("range " + options.range);
  if (!options.time.empty()) subject.filters.push_back("time " + options.time);
  return Render(options, *min_width_px, subject);
}

int Render(const Options& options, double min_width_px, Subject& subject) {
  const analysis::Profile& profile = *subject.profile;
  const hwt::StreamStats& decode = subject.decode;
  const report::WeightUnit& unit = subject.unit;
  const bool want_flame = !options.flame.empty();
  const bool want_speedscope = !options.speedscope.empty();
  const bool want_html = !options.html.empty();
  if (options.weight == "time" && !profile.has_time && !options.quiet) {
    fprintf(stderr,
            "%s: warning: --weight time: the trace has no timing; "
            "counting instructions\n",
            kTool);
  }

  // Names and the tree the reports show (after --image / --function).
  report::ProfileNames names(*subject.symbols,
                             /*source_lines=*/want_speedscope || want_html);
  analysis::CallTree tree = subject.tree;
  std::vector<std::string> filters = subject.filters;
  report::FrameMatcher image_match, function_match;
  if (!options.image.empty()) {
    image_match = report::ImageMatcher(options.image, names);
    tree = report::StacksThrough(tree, image_match);
    filters.push_back("through " + options.image);
  }
  if (!options.function.empty()) {
    auto matcher = report::FunctionNameMatcher(options.function, names);
    if (!matcher.ok())
      return Usage("--function: " + std::string(matcher.status().message()));
    function_match = *matcher;
    tree = report::SubtreesAt(tree, function_match);
    filters.push_back("under /" + options.function + "/");
    if (tree.nodes.size() <= 1 && !options.quiet) {
      fprintf(stderr, "%s: warning: --function: no frame matches '%s'\n", kTool,
              options.function.c_str());
    }
  }

  // Per-instruction counts, for inline frames, --hot and --annotate.
  const bool inline_frames =
      !options.no_inline && unit.weight == report::Weight::kInstructions;
  const bool tree_outputs =
      want_flame || want_speedscope || options.callgraph == "text";
  std::optional<analysis::BlockExpansion> expansion;
  if ((inline_frames && tree_outputs) || options.hot || want_html ||
      !options.annotate.empty() || (!options.folded.empty() && inline_frames) ||
      options.exports.needs_expansion()) {
    expansion = analysis::ExpandBlocks(profile, *subject.code);
  }
  report::NamedTreeOptions tree_options;
  tree_options.weight = unit.weight;
  tree_options.inline_frames = inline_frames && expansion.has_value();
  tree_options.profile = &profile;
  tree_options.expansion = expansion ? &*expansion : nullptr;
  std::optional<report::NamedTree> named;
  auto named_tree = [&]() -> const report::NamedTree& {
    if (!named) named = report::BuildNamedTree(tree, names, tree_options);
    return *named;
  };

  const std::string& input_name = subject.name;
  std::string subtitle =
      absl::StrCat(input_name, ": ",
                   report::ScaledCount(unit.weight == report::Weight::kTime
                                           ? profile.stats.time
                                           : profile.stats.instructions,
                                       unit.scale),
                   " ", unit.name, ", ", profile.threads.size(),
                   profile.threads.size() == 1 ? " thread" : " threads");
  if (!filters.empty()) {
    absl::StrAppend(&subtitle, " (", absl::StrJoin(filters, ", "), ")");
  }

  std::vector<OutputSpec> outputs;
  const bool no_mode = options.flame.empty() && options.folded.empty() &&
                       options.speedscope.empty() && !want_html &&
                       options.callgraph.empty() && options.top == 0 &&
                       !options.hot && options.annotate.empty() &&
                       !options.exports.any();
  if (want_flame || no_mode) {
    report::FlameOptions flame = FlameFromFlags(
        options, min_width_px, "Flame Graph", "Icicle Graph", unit.name);
    flame.subtitle = subtitle;
    flame.scale = unit.scale;
    if (profile.stats.gaps != 0) {
      flame.notes = absl::StrCat(
          report::Thousands(profile.stats.gaps),
          profile.stats.gaps == 1 ? " trace gap" : " trace gaps",
          " cut stacks (the frames say where); the code after a gap starts a "
          "new stack. ",
          report::DecodeErrorMessage(decode));
    }
    outputs.push_back(
        {"flame graph", want_flame ? options.flame : "-", true, "flame.svg",
         report::RenderFlameSvg(named_tree(), names.frames(), flame)});
  }
  if (!options.folded.empty()) {
    // From the named tree: its inline frames were looked up in one batch.
    outputs.push_back({"folded stacks", options.folded, false, "folded",
                       report::FoldedStacks(named_tree(), names.frames())});
  }
  // The call timeline of --speedscope and --chrome-trace. From a saved
  // profile there is none: only the sampled profile (the merged tree).
  std::optional<report::CallTimeline> timeline;
  if (subject.recorder != nullptr) {
    timeline = subject.recorder->Finish(unit.weight == report::Weight::kTime);
  }
  const std::vector<std::string> thread_names = report::SpeedscopeThreadNames(
      timeline ? *timeline : report::CallTimeline(), subject.streams,
      subject.cpu_mode);
  if (timeline && timeline->truncated && !options.quiet) {
    fprintf(stderr,
            "%s: warning: the call timeline stops after %zu events "
            "(--max-events); the sampled profile is complete\n",
            kTool, options.max_events);
  }
  if (want_speedscope) {
    report::SpeedscopeOptions speedscope;
    speedscope.name = input_name;
    speedscope.unit = unit.speedscope_unit;
    speedscope.scale = unit.scale;
    outputs.push_back(
        {"speedscope profile", options.speedscope, true, "speedscope.json",
         report::RenderSpeedscope(named_tree(), timeline ? &*timeline : nullptr,
                                  thread_names, names, speedscope)});
  }
  if (!options.callgraph.empty()) {
    if (options.callgraph == "dot") {
      report::CallGraphDotOptions dot;
      dot.title = subtitle;
      dot.count_name = unit.name;
      dot.weight = unit.weight;
      dot.scale = unit.scale;
      dot.node_percent = options.min_percent >= 0 ? options.min_percent : 0.5;
      dot.edge_percent = options.min_percent >= 0 ? options.min_percent : 0.1;
      outputs.push_back({"call graph", "-", false, "dot",
                         report::RenderCallGraphDot(
                             report::FunctionsOfTree(tree), names, dot)});
    } else {
      report::CallGraphTextOptions text;
      text.count_name = unit.name;
      text.scale = unit.scale;
      text.min_percent = options.min_percent >= 0 ? options.min_percent : 0.1;
      const report::NamedTree& t = named_tree();
      outputs.push_back(
          {"call trees", "-", false, "callgraph.txt",
           absl::StrCat(report::RenderTopDownText(t, names.frames(), text),
                        "\n",
                        report::RenderBottomUpText(t, names.frames(), text))});
    }
  }
  const bool json = options.format == "json";
  if (options.top != 0) {
    report::TopOptions top;
    top.rows = options.top;
    top.count_name = unit.name;
    top.weight = unit.weight;
    top.scale = unit.scale;
    const report::TreeFunctions functions = report::FunctionsOfTree(tree);
    outputs.push_back(
        {"top functions", "-", json, json ? "top.json" : "top.txt",
         json ? report::TopTableJson(functions, names, top).dump(2) + "\n"
              : report::RenderTopTable(functions, names, top)});
  }
  // --hot (and the HTML report's hot spots) follow --function / --image.
  report::HotOptions hot;
  hot.rows = options.rows;
  if (image_match || function_match) {
    hot.keep_function = [&](const analysis::FunctionId& fn) {
      if (fn.kind != analysis::FrameKind::kFunction &&
          fn.kind != analysis::FrameKind::kUnknownCode) {
        return false;
      }
      const analysis::FrameKey key{fn.kind, fn.image, fn.start};
      if (image_match && !image_match(key)) return false;
      if (function_match &&
          (fn.kind != analysis::FrameKind::kFunction || !function_match(key))) {
        return false;
      }
      return true;
    };
  }
  if (options.hot) {
    const nlohmann::json report_json =
        report::HotReportJson(profile, *expansion, tree, names, hot);
    outputs.push_back({"hot spots", "-", json, json ? "hot.json" : "hot.txt",
                       json ? report_json.dump(2) + "\n"
                            : report::RenderHotReportText(report_json)});
  }
  if (want_html) {
    report::html::ProfileModelInputs html;
    html.capture = subject.capture;
    html.title = input_name;
    html.profile = &profile;
    html.tree = &tree;
    html.expansion = &*expansion;
    html.names = &names;
    html.symbolizer = subject.symbolizer;
    html.unit = unit;
    html.tree_options = tree_options;
    html.hot = hot;
    html.streams = subject.streams;
    html.stats = subject.stream_stats;
    html.filters = filters;
    // --min-width prunes the page's tree as it does the SVG's frames.
    report::html::HtmlOptions html_options;
    html_options.prune_fraction = min_width_px / report::FlameOptions().width;
    outputs.push_back({"HTML report", options.html, true, "report.html",
                       report::html::RenderProfileReport(html, html_options)});
  }
  if (!options.annotate.empty()) {
    if (subject.symbolizer == nullptr) {
      return Usage("--annotate: " + subject.annotate_problem);
    }
    auto text = report::AnnotateFunctions(options.annotate, *subject.symbolizer,
                                          profile, *expansion, names);
    if (!text.ok()) return hwt::tools::Fail(kTool, text.status());
    outputs.push_back({"annotated code", "-", false, "annotate.txt", *text});
  }

  if (options.exports.any()) {
    report::LiveExportInput export_input(profile, *expansion, *subject.timeline,
                                         *subject.symbolizer, *subject.symbols);
    auto exports = report::RenderExportOutputs(
        options.exports, {&export_input, &tree, timeline ? &*timeline : nullptr,
                          thread_names, &subject.capture->manifest(),
                          options.image, input_name, options.max_events});
    if (!exports.ok()) return hwt::tools::Fail(kTool, exports.status());
    for (report::ExportOutput& e : *exports) {
      outputs.push_back({e.what, e.file, true, e.suffix, std::move(e.content)});
    }
  }

  const int rc = WriteOutputs(outputs, options);
  if (rc != kExitOk) return rc;
  // Import problems (perf.data data loss, missing images) make it exit 1
  // like decode errors.
  const int code = DecodeExit(subject.stream_stats, options.quiet);
  if (subject.capture == nullptr) return code;
  return hwt::tools::ImportExitCode(*subject.capture, code);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Profiles a capture: an interactive flame graph (the default), folded "
      "stacks, speedscope JSON, call graphs, top functions, hot blocks, "
      "branches, paths and loops, annotated disassembly. SPE captures give "
      "the SPE sample reports.\n\n"
      "Examples:\n"
      "  hwt-report fib.hwt                      # fib.flame.svg\n"
      "  hwt-report --html fib.hwt               # fib.report.html\n"
      "  hwt-report --top 20 --function '^main$' fib.hwt\n"
      "  hwt-report --annotate fib --hot fib.hwt\n"
      "  hwt-report --callgraph=dot fib.hwt | dot -Tsvg > fib.svg\n"
      "  hwt-report --folded --no-inline --cpu 6/85/4 --image ./prog "
      "trace.pt\n"
      "  hwt-report --pprof --bolt --only-image prog prog.hwt  # prog.pb.gz, "
      "prog.bolt.pa\n"
      "  hwt-report --save fib.hwtprof fib.hwt   # a saved profile\n"
      "  hwt-report --top 20 a.hwtprof b.hwt     # inputs merged\n"
      "  hwt-report --diff old.hwtprof new.hwtprof > diff.svg\n\n"
      "SVG, HTML and JSON go to stdout, or when stdout is a terminal to "
      "NAME.flame.svg / NAME.report.html / NAME.speedscope.json (exports: "
      "NAME.pb.gz, ...) in the current directory.\n"
      "Exit status: 0 clean, 1 the trace had decode errors (reported), 2 bad "
      "usage or unreadable input, 3 internal error or failure to write.",
      kTool};
  app.get_formatter()->column_width(36);
  Options options;
  app.add_option("INPUT", options.inputs,
                 "capture bundle (NAME.hwt/), packed bundle (.tar, .tar.zst), "
                 "OpenCSD snapshot directory, raw trace file, or saved profile "
                 "(.hwtprof); several are merged");
  hwt::tools::AddInputOptions(app, &options.input);
  app.add_option("--save", options.save,
                 "write the (merged) profile of the inputs to FILE.hwtprof; "
                 "with no other output, only that")
      ->group("Outputs");
  app.add_option("--diff", options.diff,
                 "BASE NEW: what changed from BASE to NEW (profiles, batch "
                 "directories or captures): a differential flame graph, "
                 "--folded difffolded stacks, --top N changed functions")
      ->expected(2)
      ->group("Outputs");
  app.add_flag("--absolute", options.absolute,
               "--diff: compare raw counts, not shares of each total")
      ->group("Outputs");

  app.add_flag("--flame{-}", options.flame,
               "interactive SVG flame graph (default output); =FILE")
      ->group("Outputs");
  app.add_flag("--html{-}", options.html,
               "interactive HTML report (one self-contained file: overview, "
               "flame graph, functions, disassembly, hot spots); =FILE")
      ->group("Outputs");
  app.add_flag("--folded{-}", options.folded,
               "folded stacks (flamegraph.pl, inferno, speedscope); =FILE")
      ->group("Outputs");
  app.add_flag("--speedscope{-}", options.speedscope,
               "speedscope JSON: a call/return timeline per thread and the "
               "merged profile; =FILE")
      ->group("Outputs");
  app.add_flag("--callgraph{text}", options.callgraph,
               "call graph: =text (top-down and bottom-up trees) or =dot "
               "(Graphviz)")
      ->group("Outputs");
  app.add_option("--top", options.top,
                 "the N functions with the most self and total weight")
      ->group("Outputs");
  app.add_flag("--hot", options.hot,
               "hot blocks, branches (taken/not taken), call paths, "
               "intra-procedural paths and loops")
      ->group("Outputs");
  app.add_option("--annotate", options.annotate,
                 "disassembly of FUNC (exact name or regex) with execution "
                 "counts per instruction")
      ->group("Outputs");
  app.add_option("--format", options.format, "text or json (--top, --hot, SPE)")
      ->check(CLI::IsMember({"text", "json"}))
      ->group("Outputs");
  app.add_option("-o,--output", options.output,
                 "write the output to FILE (atomically) instead of stdout")
      ->group("Outputs");
  report::AddExportFlags(app, &options.exports);
  app.add_flag("--icicle", options.icicle,
               "flame graph upside down (root at the top)")
      ->group("Flame graph");
  app.add_option("--title", options.title, "flame graph title")
      ->group("Flame graph");
  app.add_option("--count-name", options.count_name,
                 "what the counts are called in tooltips (default: "
                 "instructions, ns, ticks or samples)")
      ->group("Flame graph");
  app.add_option("--min-width", options.min_width,
                 "leave out frames narrower than PIXELS (or PERCENT%) of a "
                 "1200-pixel graph (--flame, --html)")
      ->capture_default_str()
      ->group("Flame graph");
  app.add_option("--rows", options.rows, "rows per --hot section (0 = all)")
      ->capture_default_str()
      ->group("Outputs");
  app.add_option("--min-percent", options.min_percent,
                 "--callgraph: leave out frames below this share (default "
                 "0.1 text, 0.5 dot)")
      ->group("Outputs");

  app.add_option("--thread", options.thread,
                 "only stream N (a buffer, or a CoreSight trace ID)")
      ->group("Filters");
  app.add_option("--only-image", options.image,
                 "only stacks through a frame of image NAME (base name or "
                 "path); the image of --bolt, --autofdo, --profgen and "
                 "--llvm-sample (default: the main executable); --image "
                 "loads images of a raw trace")
      ->group("Filters");
  app.add_option("--function", options.function,
                 "only the subtrees under frames matching REGEX")
      ->group("Filters");
  app.add_option("--range", options.range,
                 "only trace bytes START:END of each buffer (decimal or 0x)")
      ->group("Filters");
  app.add_option("--time", options.time,
                 "only blocks with timestamps in START:END (the trace's "
                 "time unit)")
      ->group("Filters");
  app.add_option("--weight", options.weight,
                 "what the counts are: instructions (exact), time (from the "
                 "trace's timestamps), or auto (time when the trace has it)")
      ->check(CLI::IsMember({"auto", "instructions", "time"}))
      ->capture_default_str();
  app.add_flag("--no-inline", options.no_inline,
               "do not expand DWARF inline frames");
  app.add_flag("--no-demangle", options.no_demangle, "show mangled C++ names");
  app.add_option("-j,--jobs", options.jobs, "decoding threads")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--decoder", options.decoder,
                 "PT flow engine: fast (the block-cache walker, libipt where "
                 "it gives up), libipt, or auto (fast with one worker, libipt "
                 "with several: it decodes in parallel); the output is the "
                 "same")
      ->check(CLI::IsMember({"auto", "fast", "libipt"}))
      ->capture_default_str();
  app.add_flag("--fast", options.fast, "same as --decoder fast");
  app.add_flag("--stats", options.engine_stats,
               "say on stderr how much of the trace took the fast path");
  app.add_option("--max-events", options.max_events,
                 "--speedscope, --chrome-trace: cap on call/return events kept")
      ->capture_default_str();
  app.add_flag("-q,--quiet", options.quiet, "no warnings or notes on stderr");

  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  if (!options.inputs.empty()) options.input.input = options.inputs[0];
  return Run(options);
}
