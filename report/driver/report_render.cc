// hwt-report's profile outputs of a subject (a capture's profile or a
// saved one): the flame graph, folded stacks, speedscope, call graphs, top
// functions, hot spots, the HTML report, annotated code and the exports,
// after the --only-image and --function filters.
#include <cstdio>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/tree_functions.h"
#include "base/json_text.h"
#include "report/common/text_util.h"
#include "report/driver/report_internal.h"
#include "report/export/export_input.h"
#include "report/export/export_outputs.h"
#include "report/export/saved_export_input.h"
#include "report/html/profile_model.h"
#include "report/listing/decode_stats.h"
#include "report/profile/annotate.h"
#include "report/profile/callgraph_dot.h"
#include "report/profile/callgraph_text.h"
#include "report/profile/folded.h"
#include "report/profile/hot_report.h"
#include "report/profile/profile_filter.h"
#include "report/profile/saved_symbols.h"
#include "report/profile/speedscope.h"
#include "report/profile/top_table.h"

namespace hwt::report::driver {
namespace {

// What the outputs of one Render share: the names, the filtered tree, the
// block expansion and the named tree (built on first use).
struct RenderState {
  RenderState(const RunContext& run, Subject& subject, bool source_lines)
      : run(run),
        options(run.flags),
        subject(subject),
        profile(*subject.profile),
        unit(subject.unit),
        names(*subject.symbols, source_lines),
        tree(subject.tree),
        filters(subject.filters) {}

  const NamedTree& named_tree() {
    if (!named) named = BuildNamedTree(tree, names, tree_options);
    return *named;
  }

  const RunContext& run;
  const ReportFlags& options;
  Subject& subject;
  const analysis::Profile& profile;
  const WeightUnit& unit;
  ProfileNames names;
  analysis::CallTree tree;
  std::vector<std::string> filters;
  FrameMatcher image_match, function_match;
  std::optional<analysis::BlockExpansion> expansion;
  NamedTreeOptions tree_options;
  std::optional<NamedTree> named;
  std::string subtitle;
  std::optional<CallTimeline> timeline;
  // --chrome-trace's: on the trace's time when it has timing, whatever
  // --weight says (a timeline is read against a clock), with the untraced
  // intervals; else on instructions.
  std::optional<CallTimeline> chrome_timeline;
  std::vector<std::string> thread_names;
  HotOptions hot;
  std::vector<OutputSpec> outputs;
};

// --only-image and --function: the stacks through / the subtrees under.
int ApplyFrameFilters(RenderState& s) {
  const ReportFlags& options = s.options;
  if (!options.image.empty()) {
    s.image_match = ImageMatcher(options.image, s.names);
    s.tree = StacksThrough(s.tree, s.image_match);
    s.filters.push_back("through " + options.image);
  }
  if (!options.function.empty()) {
    auto matcher = FunctionNameMatcher(options.function, s.names);
    if (!matcher.ok()) {
      return Usage("--function: " + std::string(matcher.status().message()));
    }
    s.function_match = *matcher;
    s.tree = SubtreesAt(s.tree, s.function_match);
    s.filters.push_back("under /" + options.function + "/");
    if (s.tree.nodes.size() <= 1 && !options.quiet) {
      fprintf(stderr, "%s: warning: --function: no frame matches '%s'\n", kTool,
              options.function.c_str());
    }
  }
  return kExitOk;
}

// Per-instruction counts, for inline frames, --hot, --annotate, --html and
// the exports that need them.
void ExpandWhenNeeded(RenderState& s) {
  const ReportFlags& options = s.options;
  const bool inline_frames =
      !options.no_inline && s.unit.weight == Weight::kInstructions;
  const bool tree_outputs = !options.flame.empty() ||
                            !options.speedscope.empty() ||
                            options.callgraph == "text";
  if ((inline_frames && tree_outputs) || options.hot || !options.html.empty() ||
      !options.annotate.empty() || (!options.folded.empty() && inline_frames) ||
      options.exports.needs_expansion()) {
    s.expansion = analysis::ExpandBlocks(s.profile, *s.subject.code);
  }
  s.tree_options.weight = s.unit.weight;
  s.tree_options.inline_frames = inline_frames && s.expansion.has_value();
  s.tree_options.profile = &s.profile;
  s.tree_options.expansion = s.expansion ? &*s.expansion : nullptr;
}

std::string Subtitle(const RenderState& s) {
  const analysis::Profile& profile = s.profile;
  std::string subtitle = absl::StrCat(
      s.subject.name, ": ",
      ScaledCount(s.unit.weight == Weight::kTime ? profile.stats.time
                                                 : profile.stats.instructions,
                  s.unit.scale),
      " ", s.unit.name, ", ", profile.threads.size(),
      profile.threads.size() == 1 ? " thread" : " threads");
  if (!s.filters.empty()) {
    absl::StrAppend(&subtitle, " (", absl::StrJoin(s.filters, ", "), ")");
  }
  return subtitle;
}

// No output asked for: the flame graph. The outputs are the table's rows
// that request one (--save and --diff choose other paths).
bool NoOutputGiven(const ReportFlags& given) {
  ReportFlags flags = given;
  return SetOptions(ReportOptionTable(), flags,
                    [](const OptionInfo& info) {
                      return info.requests != OutputKind::kNone &&
                             info.requests != OutputKind::kSave &&
                             info.requests != OutputKind::kDiff;
                    })
      .empty();
}

void AddFlame(RenderState& s) {
  const analysis::Profile& profile = s.profile;
  FlameOptions flame =
      FlameFromFlags(s.run, "Flame Graph", "Icicle Graph", s.unit.name);
  flame.subtitle = s.subtitle;
  flame.scale = s.unit.scale;
  if (profile.stats.gaps != 0) {
    flame.notes = absl::StrCat(
        Thousands(profile.stats.gaps),
        profile.stats.gaps == 1 ? " trace gap" : " trace gaps",
        " cut stacks (the frames say where); the code after a gap starts a "
        "new stack. ",
        DecodeErrorMessage(s.subject.decode));
  }
  const std::string& file = s.options.flame.empty() ? "-" : s.options.flame;
  s.outputs.push_back(
      {"flame graph", file, true, "flame.svg",
       RenderFlameSvg(s.named_tree(), s.names.frames(), flame)});
}

// The call timeline of --speedscope and --chrome-trace. From a saved
// profile there is none: only the sampled profile (the merged tree).
void FinishTimeline(RenderState& s) {
  if (s.subject.recorder != nullptr) {
    s.timeline = s.subject.recorder->Finish(s.unit.weight == Weight::kTime);
  }
  if (s.subject.recorder != nullptr &&
      !s.options.exports.chrome_trace.empty()) {
    s.chrome_timeline = s.subject.recorder->Finish(
        /*by_time=*/s.profile.has_time, /*untraced=*/true);
  }
  s.thread_names =
      SpeedscopeThreadNames(s.timeline ? *s.timeline : CallTimeline(),
                            s.subject.streams, s.subject.cpu_mode);
  if (s.timeline && s.timeline->truncated && !s.options.quiet) {
    fprintf(stderr,
            "%s: warning: the call timeline stops after %zu events "
            "(--max-events); the sampled profile is complete\n",
            kTool, s.options.max_events);
  }
}

void AddSpeedscope(RenderState& s) {
  SpeedscopeOptions speedscope;
  speedscope.name = s.subject.name;
  speedscope.unit = s.unit.speedscope_unit;
  speedscope.scale = s.unit.scale;
  s.outputs.push_back(
      {"speedscope profile", s.options.speedscope, true, "speedscope.json",
       RenderSpeedscope(s.named_tree(), s.timeline ? &*s.timeline : nullptr,
                        s.thread_names, s.names, speedscope)});
}

void AddCallGraph(RenderState& s) {
  const double min_percent = s.options.min_percent;
  if (s.options.callgraph == "dot") {
    CallGraphDotOptions dot;
    dot.title = s.subtitle;
    dot.count_name = s.unit.name;
    dot.weight = s.unit.weight;
    dot.scale = s.unit.scale;
    dot.node_percent = min_percent >= 0 ? min_percent : 0.5;
    dot.edge_percent = min_percent >= 0 ? min_percent : 0.1;
    s.outputs.push_back(
        {"call graph", "-", false, "dot",
         RenderCallGraphDot(analysis::FunctionsOfTree(s.tree), s.names, dot)});
    return;
  }
  CallGraphTextOptions text;
  text.count_name = s.unit.name;
  text.scale = s.unit.scale;
  text.min_percent = min_percent >= 0 ? min_percent : 0.1;
  const NamedTree& t = s.named_tree();
  s.outputs.push_back(
      {"call trees", "-", false, "callgraph.txt",
       absl::StrCat(RenderTopDownText(t, s.names.frames(), text), "\n",
                    RenderBottomUpText(t, s.names.frames(), text))});
}

void AddTop(RenderState& s) {
  const bool json = s.options.format == "json";
  TopOptions top;
  top.rows = s.options.top;
  top.count_name = s.unit.name;
  top.weight = s.unit.weight;
  top.scale = s.unit.scale;
  const analysis::TreeFunctions functions = analysis::FunctionsOfTree(s.tree);
  s.outputs.push_back({"top functions", "-", json,
                       json ? "top.json" : "top.txt",
                       json ? JsonText(TopTableJson(functions, s.names, top),
                                       JsonLayout::kIndented)
                            : RenderTopTable(functions, s.names, top)});
}

// --hot (and the HTML report's hot spots) follow --function / --image.
void SetHotOptions(RenderState& s) {
  s.hot.rows = s.options.rows;
  if (!s.image_match && !s.function_match) return;
  s.hot.keep_function = [&s](const analysis::FunctionId& fn) {
    if (fn.kind != analysis::FrameKind::kFunction &&
        fn.kind != analysis::FrameKind::kUnknownCode) {
      return false;
    }
    const analysis::FrameKey key{fn.kind, fn.image, fn.start};
    if (s.image_match && !s.image_match(key)) return false;
    if (s.function_match &&
        (fn.kind != analysis::FrameKind::kFunction || !s.function_match(key))) {
      return false;
    }
    return true;
  };
}

void AddHot(RenderState& s) {
  const bool json = s.options.format == "json";
  const nlohmann::json report_json =
      HotReportJson(s.profile, *s.expansion, s.tree, s.names, s.hot);
  s.outputs.push_back({"hot spots", "-", json, json ? "hot.json" : "hot.txt",
                       json ? JsonText(report_json, JsonLayout::kIndented)
                            : RenderHotReportText(report_json)});
}

void AddHtml(RenderState& s) {
  html::ProfileModelInputs model;
  model.capture = s.subject.capture;
  model.saved = s.subject.saved;
  model.captures = s.subject.capture_rows;
  if (s.subject.saved != nullptr) {
    model.time_unit = ChooseProfileWeightUnit(true, *s.subject.saved);
  }
  model.title = s.subject.name;
  model.profile = &s.profile;
  model.tree = &s.tree;
  model.expansion = &*s.expansion;
  model.names = &s.names;
  model.symbolizer = s.subject.symbolizer;
  model.unit = s.unit;
  model.tree_options = s.tree_options;
  model.hot = s.hot;
  model.streams = s.subject.streams;
  model.stats = s.subject.stream_stats;
  model.filters = s.filters;
  // --min-width prunes the page's tree as it does the SVG's frames.
  html::HtmlOptions html_options;
  html_options.prune_fraction = s.run.min_width_px / FlameOptions().width;
  s.outputs.push_back({"HTML report", s.options.html, true, "report.html",
                       html::RenderProfileReport(model, html_options)});
}

int AddAnnotate(RenderState& s) {
  if (s.subject.symbolizer == nullptr) {
    return Usage("--annotate: " + s.subject.annotate_problem);
  }
  auto text = AnnotateFunctions(s.options.annotate, *s.subject.symbolizer,
                                s.profile, *s.expansion, s.names);
  if (!text.ok()) return Fail(kTool, text.status());
  s.outputs.push_back({"annotated code", "-", false, "annotate.txt", *text});
  return kExitOk;
}

// The exports of a capture (names from its Symbolizer, segments from its
// image files) or of a saved profile (everything from the profile).
int AddExports(RenderState& s) {
  const Subject& subject = s.subject;
  std::unique_ptr<ExportInput> export_input;
  WeightUnit time_unit;
  if (subject.saved != nullptr) {
    export_input = std::make_unique<SavedExportInput>(
        *subject.saved, *s.expansion, *subject.symbols);
    time_unit = ChooseProfileWeightUnit(/*use_time=*/true, *subject.saved);
  } else {
    export_input = std::make_unique<LiveExportInput>(
        s.profile, *s.expansion, *subject.timeline, *subject.symbolizer,
        *subject.symbols);
    time_unit = ChooseWeightUnit(/*use_time=*/true, /*has_time=*/true,
                                 subject.capture->manifest());
  }
  auto exports = RenderExportOutputs(
      s.options.exports,
      {export_input.get(), &s.tree,
       s.chrome_timeline ? &*s.chrome_timeline : nullptr, s.thread_names,
       time_unit, s.options.image, subject.name, s.options.max_events});
  if (!exports.ok()) return Fail(kTool, exports.status());
  for (ExportOutput& e : *exports) {
    s.outputs.push_back({e.what, e.file, true, e.suffix, std::move(e.content)});
  }
  return kExitOk;
}

}  // namespace

int Render(const RunContext& run, Subject& subject) {
  const ReportFlags& options = run.flags;
  if (options.weight == "time" && !subject.profile->has_time &&
      !options.quiet) {
    fprintf(stderr,
            "%s: warning: --weight time: the trace has no timing; "
            "counting instructions\n",
            kTool);
  }
  RenderState s(
      run, subject,
      /*source_lines=*/!options.speedscope.empty() || !options.html.empty());
  int rc = ApplyFrameFilters(s);
  if (rc != kExitOk) return rc;
  ExpandWhenNeeded(s);
  s.subtitle = Subtitle(s);
  if (!options.flame.empty() || NoOutputGiven(options)) AddFlame(s);
  if (!options.folded.empty()) {
    // From the named tree: its inline frames were looked up in one batch.
    s.outputs.push_back({"folded stacks", options.folded, false, "folded",
                         FoldedStacks(s.named_tree(), s.names.frames())});
  }
  FinishTimeline(s);
  if (!options.speedscope.empty()) AddSpeedscope(s);
  if (!options.callgraph.empty()) AddCallGraph(s);
  if (options.top != 0) AddTop(s);
  SetHotOptions(s);
  if (options.hot) AddHot(s);
  if (!options.html.empty()) AddHtml(s);
  if (!options.annotate.empty() && (rc = AddAnnotate(s)) != kExitOk) return rc;
  if (options.exports.any() && (rc = AddExports(s)) != kExitOk) return rc;
  rc = WriteOutputs(s.outputs, run);
  if (rc != kExitOk) return rc;
  // Import problems (perf.data data loss, missing images) make it exit 1
  // like decode errors.
  const int code = DecodeExit(subject.stream_stats, options.quiet);
  if (subject.capture == nullptr) return code;
  return ImportExitCode(*subject.capture, code);
}

}  // namespace hwt::report::driver
