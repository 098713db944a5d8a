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
#include "analysis/spe_profile.h"
#include "base/file_util.h"
#include "base/output.h"
#include "base/progress.h"
#include "report/common/symbol_names.h"
#include "report/common/symbolizer_resolver.h"
#include "report/common/text_util.h"
#include "report/export/export_input.h"
#include "report/export/export_outputs.h"
#include "report/listing/decode_stats.h"
#include "report/profile/annotate.h"
#include "report/profile/call_timeline.h"
#include "report/profile/callgraph_dot.h"
#include "report/profile/callgraph_text.h"
#include "report/profile/flame_svg.h"
#include "report/profile/folded.h"
#include "report/profile/hot_report.h"
#include "report/profile/profile_filter.h"
#include "report/profile/report_support.h"
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
  // Outputs: a flag given = requested; the value is its file ("-" = the
  // shared destination: -o or stdout).
  std::string flame, folded, speedscope, callgraph;
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
        "(text or --format json), --folded, --flame and --top N apply; the "
        "exports are for PT and CoreSight");
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
  hwt::Progress progress("decoding",
                         hwt::tools::TotalTraceBytes(*input->capture));
  analysis::CaptureProfileOptions profile_options;
  profile_options.jobs = options.jobs;
  profile_options.hot_paths = options.hot;  // only --hot shows them
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
  const analysis::Profile& profile = profiled->profile;
  if (options.thread && *options.thread >= profiled->streams.size()) {
    return Usage(absl::StrFormat(
        "--thread %d: the capture has %d streams (0-%d)", *options.thread,
        profiled->streams.size(), profiled->streams.size() - 1));
  }
  const hwt::StreamStats decode = hwt::TotalStats(profiled->stats);

  const report::WeightUnit unit = report::ChooseWeightUnit(
      options.weight != "instructions", profile.has_time, manifest);
  if (options.weight == "time" && !profile.has_time && !options.quiet) {
    fprintf(stderr,
            "%s: warning: --weight time: the trace has no timing; "
            "counting instructions\n",
            kTool);
  }

  // Names and the tree the reports show (after --image / --function).
  report::SymbolizerProfileSymbols symbols(symbolizer.get(), &input->timeline);
  report::ProfileNames names(symbols, /*source_lines=*/want_speedscope);
  analysis::CallTree tree = profile.merged;
  std::vector<std::string> filters;
  if (options.thread)
    filters.push_back(absl::StrCat("thread ", *options.thread));
  if (!options.range.empty()) filters.push_back("range " + options.range);
  if (!options.time.empty()) filters.push_back("time " + options.time);
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
  if ((inline_frames && tree_outputs) || options.hot ||
      !options.annotate.empty() || (!options.folded.empty() && inline_frames) ||
      options.exports.needs_expansion()) {
    analysis::ImageCodeReader reader(input->timeline);
    expansion = analysis::ExpandBlocks(profile, reader);
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

  const std::string input_name = hwt::BaseName(options.input.input);
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
                       options.speedscope.empty() &&
                       options.callgraph.empty() && options.top == 0 &&
                       !options.hot && options.annotate.empty() &&
                       !options.exports.any();
  if (want_flame || no_mode) {
    report::FlameOptions flame = FlameFromFlags(
        options, *min_width_px, "Flame Graph", "Icicle Graph", unit.name);
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
  // The call timeline of --speedscope and --chrome-trace.
  std::optional<report::CallTimeline> timeline;
  std::vector<std::string> thread_names;
  if (recorder) {
    timeline = recorder->Finish(unit.weight == report::Weight::kTime);
    thread_names = report::SpeedscopeThreadNames(
        *timeline, profiled->streams,
        manifest.mode == hwt::capture::TraceMode::kCpu);
    if (timeline->truncated && !options.quiet) {
      fprintf(stderr,
              "%s: warning: the call timeline stops after %zu events "
              "(--max-events); the sampled profile is complete\n",
              kTool, options.max_events);
    }
  }
  if (want_speedscope) {
    report::SpeedscopeOptions speedscope;
    speedscope.name = input_name;
    speedscope.unit = unit.speedscope_unit;
    speedscope.scale = unit.scale;
    outputs.push_back(
        {"speedscope profile", options.speedscope, true, "speedscope.json",
         report::RenderSpeedscope(named_tree(), &*timeline, thread_names, names,
                                  speedscope)});
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
  if (options.hot) {
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
        if (function_match && (fn.kind != analysis::FrameKind::kFunction ||
                               !function_match(key))) {
          return false;
        }
        return true;
      };
    }
    const nlohmann::json report_json =
        report::HotReportJson(profile, *expansion, tree, names, hot);
    outputs.push_back({"hot spots", "-", json, json ? "hot.json" : "hot.txt",
                       json ? report_json.dump(2) + "\n"
                            : report::RenderHotReportText(report_json)});
  }
  if (!options.annotate.empty()) {
    auto text = report::AnnotateFunctions(options.annotate, *symbolizer,
                                          profile, *expansion, names);
    if (!text.ok()) return hwt::tools::Fail(kTool, text.status());
    outputs.push_back({"annotated code", "-", false, "annotate.txt", *text});
  }

  if (options.exports.any()) {
    report::LiveExportInput export_input(profile, *expansion, input->timeline,
                                         *symbolizer, symbols);
    auto exports = report::RenderExportOutputs(
        options.exports,
        {&export_input, &tree, timeline ? &*timeline : nullptr, thread_names,
         &manifest, options.image, input_name, options.max_events});
    if (!exports.ok()) return hwt::tools::Fail(kTool, exports.status());
    for (report::ExportOutput& e : *exports) {
      outputs.push_back({e.what, e.file, true, e.suffix, std::move(e.content)});
    }
  }

  const int rc = WriteOutputs(outputs, options);
  if (rc != kExitOk) return rc;
  // As hwt-decode: exit 1 when the decoder reported errors; bytes it could
  // not use without an error (e.g. before the first sync point) are only a
  // note.
  const std::string message = report::DecodeErrorMessage(decode);
  if (decode.errors != 0) {
    hwt::tools::PrintError(kTool, message);
    return kExitDecodeErrors;
  }
  if (!message.empty() && !options.quiet) {
    fprintf(stderr, "%s: note: %s\n", kTool, message.c_str());
  }
  return hwt::tools::ImportExitCode(*input->capture, kExitOk);
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
      "  hwt-report --top 20 --function '^main$' fib.hwt\n"
      "  hwt-report --annotate fib --hot fib.hwt\n"
      "  hwt-report --callgraph=dot fib.hwt | dot -Tsvg > fib.svg\n"
      "  hwt-report --folded --no-inline --cpu 6/85/4 --image ./prog "
      "trace.pt\n"
      "  hwt-report --pprof --bolt --only-image prog prog.hwt  # prog.pb.gz, "
      "prog.bolt.pa\n\n"
      "SVG and JSON go to stdout, or when stdout is a terminal to "
      "NAME.flame.svg / NAME.speedscope.json (exports: NAME.pb.gz, ...) in the "
      "current directory.\n"
      "Exit status: 0 clean, 1 the trace had decode errors (reported), 2 bad "
      "usage or unreadable input, 3 internal error or failure to write.",
      kTool};
  app.get_formatter()->column_width(36);
  Options options;
  hwt::tools::AddInputFlags(app, &options.input);

  app.add_flag("--flame{-}", options.flame,
               "interactive SVG flame graph (default output); =FILE")
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
                 "leave out frames narrower than PIXELS (or PERCENT%)")
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
  app.add_option("--max-events", options.max_events,
                 "--speedscope, --chrome-trace: cap on call/return events kept")
      ->capture_default_str();
  app.add_flag("-q,--quiet", options.quiet, "no warnings or notes on stderr");

  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  return Run(options);
}
