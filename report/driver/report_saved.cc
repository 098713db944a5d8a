// hwt-report over saved profiles: several inputs merged, .hwtprof files
// and batch directories (their --html has the batch's table of captures),
// --save, and --diff BASE NEW (the outputs that compare two profiles: the
// differential flame graph, difffolded stacks, the functions that changed
// most, the differential HTML report).
#include <filesystem>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_merge.h"
#include "base/file_util.h"
#include "base/json_text.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "pipeline/capture_analysis.h"
#include "pipeline/profile_saving.h"
#include "report/driver/report_internal.h"
#include "report/naming/saved_symbols.h"
#include "report/naming/weight_unit.h"
#include "report/outputs/output_registry.h"
#include "report/tree/frame_matchers.h"

namespace hwt::report::driver {
namespace {

constexpr char kNeedsCapture[] =
    ": it selects trace bytes or timestamps, which a saved profile does not "
    "keep; report the capture itself";

// Every decode stream of every capture of a saved profile.
std::vector<StreamStats> StreamStatsOf(const analysis::SavedProfile& p) {
  std::vector<StreamStats> out;
  for (const analysis::CaptureSource& s : p.sources) {
    for (const analysis::SavedStream& stream : s.streams) {
      out.push_back(stream.stats);
    }
  }
  return out;
}

absl::StatusOr<analysis::SavedProfile> LoadInputs(
    const ReportFlags& options, const std::vector<std::string>& inputs) {
  HWT_ASSIGN_OR_RETURN(capture::InputOptions input,
                       InputOptionsFromFlags(options.input));
  pipeline::AnalyseOptions analyse;
  analyse.input = input;
  analyse.jobs = options.jobs;
  analyse.engine = ChooseDecoderEngine(options);
  analyse.save.writer =
      absl::StrCat("hwt ", pipeline::ToolVersion(), " (hwt-report)");
  std::vector<std::string> resolved;
  for (const std::string& in : inputs) {
    // A batch directory stands for its merged profile.
    const std::string merged = in + "/merged.hwtprof";
    resolved.push_back(analysis::IsProfileFile(merged) ? merged : in);
  }
  std::vector<std::string> warnings;
  auto saved = pipeline::LoadAndMerge(resolved, analyse, &warnings);
  PrintWarnings(warnings, options.quiet);
  return saved;
}

// --save: writes the profile. Sets `done` when no other output is asked.
int SaveProfile(const RunContext& run, const analysis::SavedProfile& saved,
                bool* done) {
  const ReportFlags& options = run.flags;
  absl::Status written = analysis::WriteProfileFile(options.save, saved);
  if (!written.ok()) {
    PrintError(kTool, std::string(written.message()));
    return kExitInternal;
  }
  if (!options.quiet) {
    fprintf(stderr, "%s: wrote %s (saved profile)\n", kTool,
            options.save.c_str());
  }
  *done = run.outputs.empty();
  return kExitOk;
}

// --thread: the merged tree of that stream of every capture.
int SelectThread(const ReportFlags& options,
                 const analysis::SavedProfile& saved, ReportModel& model) {
  std::vector<const analysis::CallTree*> trees;
  for (const analysis::ThreadProfile& t : saved.profile.threads) {
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
  model.tree = analysis::MergeCallTrees(trees);
  model.filters.push_back(absl::StrCat("thread ", *options.thread));
  return kExitOk;
}

int CheckOnlyImage(const ReportFlags& options,
                   const analysis::SavedProfile& saved) {
  std::string known;
  bool found = false;
  for (const analysis::SavedImage& image : saved.images) {
    found |= ImagePathMatches(image.path, options.image);
    absl::StrAppend(&known, known.empty() ? "" : ", ", BaseName(image.path));
  }
  if (found) return kExitOk;
  return Usage("--only-image: the profile has no image '" + options.image +
               "' (it has: " + known + ")");
}

// --annotate disassembles the images that are on this machine.
std::unique_ptr<symbolizer::Symbolizer> AnnotateSymbolizer(
    const ReportFlags& options, const analysis::SavedProfile& saved,
    ReportModel& model) {
  symbolizer::SymbolizerOptions sym_options;
  sym_options.demangle = !options.no_demangle;
  sym_options.inline_frames = !options.no_inline;
  sym_options.sysroot = options.input.sysroot;
  std::vector<std::string> missing;
  auto symbolizer = SymbolizerForSavedImages(saved, sym_options, &missing);
  if (missing.size() == saved.images.size()) {
    model.annotate_problem =
        "it disassembles whole functions from the image files, and none of "
        "the profile's images is on this machine (with its build-id; "
        "--sysroot names where they are): " +
        absl::StrJoin(missing, ", ");
    return symbolizer;
  }
  if (!missing.empty()) {
    PrintWarnings({"--annotate: images not on this machine: " +
                   absl::StrJoin(missing, ", ")},
                  options.quiet);
  }
  model.symbolizer = symbolizer.get();
  return symbolizer;
}

// The batch directory an input stands for (OUTDIR, or OUTDIR/merged.hwtprof
// next to its summary.json); "" when it is none.
std::string BatchDirOf(const std::string& input) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (analysis::IsProfileFile(input + "/merged.hwtprof")) return input;
  const fs::path path(input);
  if (path.filename() == "merged.hwtprof" &&
      fs::is_regular_file(path.parent_path() / "summary.json", ec)) {
    return path.parent_path().empty() ? "." : path.parent_path().string();
  }
  return "";
}

// Where the HTML report goes (its directory: links are relative to it).
std::filesystem::path HtmlDirectory(const ReportFlags& options) {
  namespace fs = std::filesystem;
  const auto html = options.outputs.find("html");
  const std::string file = html != options.outputs.end() && html->second != "-"
                               ? html->second
                               : options.output;
  std::error_code ec;
  const fs::path dir = file.empty() ? fs::current_path(ec)
                                    : fs::absolute(file, ec).parent_path();
  return dir;
}

// The rows of a batch's summary.json ("rows": objects with the fields of
// docs/batch.md), with a link to each capture's page when it exists.
// Throws nlohmann::json::exception on a row of the wrong shape.
std::vector<html::CaptureRow> BatchRows(
    const nlohmann::json& list,
    const std::map<std::string, const analysis::CaptureSource*>& by_name,
    const std::string& batch, const std::filesystem::path& here) {
  namespace fs = std::filesystem;
  std::vector<html::CaptureRow> rows;
  for (const nlohmann::json& r : list) {
    html::CaptureRow row;
    row.name = r.value("name", "");
    row.path = r.value("path", "");
    row.backend = r.value("backend", "");
    row.status = r.value("status", "");
    row.error = r.value("error", "");
    row.trace_bytes = r.value("trace_bytes", uint64_t{0});
    row.bytes_lost = r.value("bytes_lost", uint64_t{0});
    row.instructions = r.value("instructions", uint64_t{0});
    row.errors = r.value("errors", uint64_t{0});
    if (auto it = by_name.find(row.name); it != by_name.end()) {
      row.command = it->second->command;
      row.hostname = it->second->hostname;
      row.created = it->second->created;
    }
    std::error_code ec;
    const fs::path report = fs::absolute(
        fs::path(batch) / "profiles" / (row.name + ".report.html"), ec);
    if (fs::is_regular_file(report, ec)) {
      row.report = report.lexically_relative(here).generic_string();
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// The table of captures of --html: a batch's rows (summary.json,
// docs/batch.md: the failed captures too) with links to the reports that
// `hwt-batch run --html` wrote next to their profiles; otherwise the saved
// profile's captures.
std::vector<html::CaptureRow> CaptureRows(const ReportFlags& options,
                                          const analysis::SavedProfile& saved) {
  std::vector<html::CaptureRow> rows;
  std::map<std::string, const analysis::CaptureSource*> by_name;
  for (const analysis::CaptureSource& s : saved.sources) {
    rows.push_back(html::RowOfSource(s));
    by_name[s.name] = &s;
  }
  const std::string batch =
      options.inputs.size() == 1 ? BatchDirOf(options.inputs[0]) : "";
  if (batch.empty()) return rows;
  auto text = ReadFileToString(batch + "/summary.json");
  if (!text.ok()) return rows;
  const nlohmann::json summary = nlohmann::json::parse(*text, nullptr, false);
  // A summary that is not what hwt-batch writes (edited, damaged) is not
  // used: the profile's own captures are shown instead.
  if (!summary.is_object() || !summary.contains("rows") ||
      !summary.at("rows").is_array()) {
    return rows;
  }
  try {
    std::vector<html::CaptureRow> batch_rows =
        BatchRows(summary.at("rows"), by_name, batch, HtmlDirectory(options));
    return batch_rows;
  } catch (const nlohmann::json::exception&) {
    return rows;
  }
}

// The decode streams of every capture, named after their capture when
// there are several.
std::vector<StreamInfo> StreamInfosOf(const analysis::SavedProfile& p) {
  std::vector<StreamInfo> out;
  for (const analysis::CaptureSource& s : p.sources) {
    for (const analysis::SavedStream& stream : s.streams) {
      StreamInfo info = stream.info;
      if (p.sources.size() > 1) info.name = s.name + ": " + info.name;
      out.push_back(std::move(info));
    }
  }
  return out;
}

bool IsRequested(const RunContext& run, const std::string& output) {
  for (const Requested& r : run.outputs) {
    if (r.request.name == output) return true;
  }
  return false;
}

int RenderSaved(const RunContext& run, const analysis::SavedProfile& saved,
                ReportModel& model) {
  const ReportFlags& options = run.flags;
  model.saved = &saved;
  model.decode = TotalDecodeStats(saved);
  model.stream_stats = StreamStatsOf(saved);
  model.streams = StreamInfosOf(saved);
  if (IsRequested(run, "html")) {
    model.capture_rows = CaptureRows(options, saved);
  }
  const uint64_t hz = SavedTimestampHz(saved);
  model.unit =
      ChooseWeightUnit(options.weight != "instructions", saved.profile, hz);
  model.time_unit = TimeUnitOf(saved.profile, hz);
  SavedProfileSymbols symbols(saved, !options.no_inline, !options.no_demangle);
  model.symbols = &symbols;
  SavedCodeReader code(saved);
  model.code = &code;
  std::unique_ptr<symbolizer::Symbolizer> symbolizer;
  if (!options.annotate.empty()) {
    symbolizer = AnnotateSymbolizer(options, saved, model);
  }
  model.name = options.inputs.size() == 1
                   ? BaseName(options.inputs[0])
                   : absl::StrCat(saved.sources.size(), " captures");
  return Render(run, model);
}

}  // namespace

int RunProfiles(const RunContext& run) {
  const ReportFlags& options = run.flags;
  if (!options.range.empty() || !options.time.empty()) {
    return Usage(std::string(options.range.empty() ? "--time" : "--range") +
                 kNeedsCapture);
  }
  for (const Requested& r : run.outputs) {
    if (!r.renderer->Needs(r.request, options).requires_call_timeline) {
      continue;
    }
    return Usage(
        "--" + r.request.name +
        ": a timeline needs the trace's order of calls and returns; a saved "
        "profile, a merge of several inputs and --save are aggregates, which "
        "no longer have it; report one capture without --save");
  }
  auto saved = LoadInputs(options, options.inputs);
  if (!saved.ok()) return Fail(kTool, saved.status());
  if (!options.save.empty()) {
    bool done = false;
    const int rc = SaveProfile(run, *saved, &done);
    if (rc != kExitOk) return rc;
    if (done) return DecodeExit(StreamStatsOf(*saved), options.quiet);
  }
  ReportModel model;
  model.flags = &options;
  model.min_width_px = run.min_width_px;
  model.source_lines = run.needs.source_lines;
  model.profile = &saved->profile;
  model.tree = saved->profile.merged;
  if (options.thread) {
    const int rc = SelectThread(options, *saved, model);
    if (rc != kExitOk) return rc;
  }
  if (!options.image.empty()) {
    const int rc = CheckOnlyImage(options, *saved);
    if (rc != kExitOk) return rc;
  }
  return RenderSaved(run, *saved, model);
}

namespace {

constexpr char kDiffOutputs[] =
    "--diff draws a differential flame graph (--flame, the default), "
    "difffolded stacks (--folded), a table of changes (--top N) or an HTML "
    "report of both (--html); filters do not apply";

bool DiffFiltersGiven(const ReportFlags& options) {
  return options.thread || !options.range.empty() || !options.time.empty() ||
         !options.function.empty() || !options.image.empty();
}

}  // namespace

int RunDiff(const RunContext& given) {
  ReportFlags options = given.flags;
  options.input.input = options.diff[1];  // names the default output file
  const RunContext run{options, given.env, given.min_width_px, given.outputs,
                       given.needs};
  if (!options.inputs.empty()) {
    return Usage("--diff BASE NEW takes its two inputs itself (no INPUT)");
  }
  if (DiffFiltersGiven(options)) return Usage(kDiffOutputs);
  for (const Requested& r : run.outputs) {
    if (!r.renderer->RendersDiff()) return Usage(kDiffOutputs);
  }
  auto base = LoadInputs(options, {options.diff[0]});
  if (!base.ok()) return Fail(kTool, base.status());
  auto now = LoadInputs(options, {options.diff[1]});
  if (!now.ok()) return Fail(kTool, now.status());
  DiffReportModel model(options, run.min_width_px, *base, *now);
  std::vector<Requested> outputs = run.outputs;
  if (outputs.empty()) outputs.push_back({{"flame", "-"}, FindOutput("flame")});
  OutputCollector sink;
  for (const Requested& r : outputs) {
    const absl::Status status = r.renderer->RenderDiff(model, r.request, sink);
    if (!status.ok()) return Fail(kTool, status);
  }
  return WriteOutputs(sink.files, run);
}

}  // namespace hwt::report::driver
