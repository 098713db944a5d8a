// hwt-batch run: inputs to jobs, jobs to worker processes, rows and
// profiles into OUTDIR, then the merge, the groups and the summary. See
// batch_run.h.
#include "batch/batch_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_merge.h"
#include "base/file_util.h"
#include "base/json_text.h"
#include "base/threads.h"
#include "batch/fingerprint.h"
#include "batch/inputs.h"
#include "batch/out_dir.h"
#include "batch/progress_bar.h"
#include "batch/summary.h"
#include "batch/tool_error.h"
#include "batch/worker_pool.h"
#include "pipeline/capture_analysis.h"
#include "report/driver/report_run.h"

namespace hwt::batch {
namespace {

int InputError(const absl::Status& status) {
  return ReportError(status.code() == absl::StatusCode::kInternal ||
                             status.code() == absl::StatusCode::kDataLoss
                         ? 3
                         : 2,
                     status.message());
}

std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/' || path[0] == '@') {
    if (path.size() > 1 && path[0] == '@' && path[1] != '/') {
      return "@" + Absolute(path.substr(1));
    }
    return path;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  std::string out = cwd;
  absl::string_view rest = path;
  while (rest.substr(0, 2) == "./") rest.remove_prefix(2);
  return rest.empty() || rest == "." ? out : absl::StrCat(out, "/", rest);
}

std::string Writer() {
  return absl::StrCat("hwt ", pipeline::ToolVersion(), " (hwt-batch)");
}

// A row from an earlier run, if its profile is there and up to date.
std::optional<CaptureRow> UpToDate(const OutDir& out, const BatchInput& input,
                                   const std::string& fingerprint) {
  auto text = ReadFileToString(out.RowPath(input.name));
  if (!text.ok()) return std::nullopt;
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded()) return std::nullopt;
  auto row = RowFromJson(json);
  if (!row.ok() || row->fingerprint != fingerprint || !row->has_profile()) {
    return std::nullopt;
  }
  auto header = analysis::ReadProfileHeader(out.ProfilePath(input.name));
  if (!header.ok() || header->sources.size() != 1 ||
      header->sources[0].fingerprint != fingerprint) {
    return std::nullopt;
  }
  row->resumed = true;
  return *row;
}

CaptureRow FailedRow(const BatchInput& input, const std::string& fingerprint,
                     std::string error) {
  CaptureRow row;
  row.name = input.name;
  row.path = input.path;
  row.fingerprint = fingerprint;
  row.status = "failed";
  row.error = std::move(error);
  return row;
}

int ExitFor(const std::vector<CaptureRow>& rows) {
  for (const CaptureRow& r : rows) {
    if (r.status != "ok") return 1;
  }
  return 0;
}

struct Prepared {
  std::vector<BatchInput> inputs;  // this run's share
  std::vector<std::string> fingerprints;
  std::vector<CaptureRow> rows;  // filled as results come
  std::vector<bool> have;        // rows[i] is known
};

// Fingerprints every input; resumed and failed ones get their rows now.
Prepared Prepare(const RunOptions& options, const OutDir& out,
                 std::vector<BatchInput> inputs) {
  Prepared p;
  p.inputs = std::move(inputs);
  p.rows.resize(p.inputs.size());
  p.have.assign(p.inputs.size(), false);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const BatchInput& input = p.inputs[i];
    pipeline::AnalyseOptions analyse;
    analyse.input = input.options;
    auto fp = Fingerprint(input, pipeline::AnalysisOptionsText(analyse),
                          options.verify);
    p.fingerprints.push_back(fp.ok() ? *fp : "");
    absl::Status dirs = out.PrepareName(input.name);
    if (!fp.ok() || !dirs.ok()) {
      p.rows[i] =
          FailedRow(input, p.fingerprints[i],
                    std::string((fp.ok() ? dirs : fp.status()).message()));
      p.have[i] = true;
      continue;
    }
    if (options.merge_only) {
      auto text = ReadFileToString(out.RowPath(input.name));
      auto json = text.ok() ? nlohmann::json::parse(*text, nullptr, false)
                            : nlohmann::json();
      auto row = text.ok() && !json.is_discarded()
                     ? RowFromJson(json)
                     : absl::StatusOr<CaptureRow>(absl::NotFoundError(""));
      if (!row.ok()) {
        p.rows[i] = FailedRow(input, *fp,
                              "no result: its shard did not finish (run it "
                              "again, or run this batch without --shard)");
      } else if (row->fingerprint != *fp) {
        p.rows[i] = FailedRow(input, *fp,
                              "the input changed after its shard analysed "
                              "it: run the shards again");
      } else {
        p.rows[i] = *row;
      }
      p.have[i] = true;
      continue;
    }
    if (auto row = UpToDate(out, input, *fp)) {
      p.rows[i] = *row;
      p.have[i] = true;
    }
  }
  return p;
}

// Runs the inputs without a row in worker processes. false: interrupted.
absl::StatusOr<bool> Analyse(const RunOptions& options, const OutDir& out,
                             Prepared& p, SignalGuard& guard) {
  std::vector<Job> jobs;
  std::vector<size_t> index;
  uint64_t bytes = 0;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (p.have[i]) continue;
    Job job;
    job.id = i;
    job.path = p.inputs[i].path;
    job.name = p.inputs[i].name;
    job.profile_path = out.ProfilePath(job.name);
    job.options = p.inputs[i].options;
    job.fingerprint = p.fingerprints[i];
    job.writer = Writer();
    jobs.push_back(std::move(job));
    index.push_back(i);
    bytes += p.inputs[i].bytes;
  }
  if (jobs.empty()) return true;
  PoolOptions pool;
  pool.executable = options.executable;
  pool.workers =
      std::min<int>(ResolveJobs(options.jobs), static_cast<int>(jobs.size()));
  pool.timeout_s = options.timeout_s;
  pool.max_memory = options.max_memory;
  ProgressBar bar(
      jobs.size(), bytes,
      options.progress.value_or(isatty(STDERR_FILENO) != 0) && !options.quiet);
  absl::Status write_error;
  auto done = [&](const Job& job, CaptureRow row) {
    // A worker killed by the same Ctrl-C is not a failed capture.
    if (row.status == "failed" && guard.Pending()) return;
    const size_t i = job.id;
    if (row.name.empty()) row.name = job.name;
    if (row.path.empty()) row.path = job.path;
    absl::Status s = WriteFileAtomically(
        out.RowPath(job.name), JsonText(RowToJson(row), JsonLayout::kIndented));
    if (!s.ok() && write_error.ok()) write_error = s;
    bar.Done(row.status, p.inputs[i].bytes);
    p.rows[i] = std::move(row);
    p.have[i] = true;
  };
  absl::Status status = RunJobs(jobs, pool, done, [&] {
    bar.Tick();
    return guard.Pending();
  });
  bar.Finish();
  if (!write_error.ok()) return write_error;
  if (absl::IsCancelled(status)) return false;
  if (!status.ok()) return status;
  return true;
}

// --html: each capture's report next to its profile, then the batch's
// page (hwt-report --html OUTDIR: the merged profile with the summary's
// rows, linked to those reports). Written by hwt-report's own driver, as a
// user would get them one by one.
int WriteHtmlReports(const RunOptions& options, const OutDir& out,
                     const std::vector<CaptureRow>& rows, SignalGuard& guard) {
  report::ReportEnvironment env;
  auto render = [&](const std::string& input, const std::string& file) {
    report::ReportFlags flags;
    flags.inputs = {input};
    flags.input.input = input;
    flags.outputs["html"] = file;
    flags.quiet = true;
    return report::RunReport(flags, env);
  };
  for (const CaptureRow& row : rows) {
    if (guard.Pending()) return kExitInterrupted;
    if (!row.has_profile()) continue;
    const std::string profile = out.ProfilePath(row.name);
    const std::string page =
        profile.substr(0, profile.size() - std::string(".hwtprof").size()) +
        ".report.html";
    const int rc = render(profile, page);
    // Decode errors: the page is written, and the row says so.
    if (rc != report::kExitOk && rc != report::kExitDecodeErrors) {
      return ReportError(3, absl::StrCat("the HTML report of ", row.name,
                                         " could not be written (", page, ")"));
    }
  }
  const std::string page = out.path() + "/report.html";
  const int rc = render(out.path(), page);
  if (rc != report::kExitOk && rc != report::kExitDecodeErrors) {
    return ReportError(
        3, "the batch's HTML report could not be written (" + page + ")");
  }
  if (!options.quiet)
    fprintf(stderr, "%s: wrote %s\n", kBatchTool, page.c_str());
  return report::kExitOk;
}

// merged.hwtprof, the groups, the summary.
int Finish(const RunOptions& options, const OutDir& out,
           std::vector<CaptureRow>& rows, SignalGuard& guard) {
  analysis::ProfileAccumulator merged;
  std::map<std::string, std::unique_ptr<analysis::ProfileAccumulator>> groups;
  for (CaptureRow& row : rows) {
    if (guard.Pending()) return kExitInterrupted;
    if (!row.has_profile()) continue;
    const std::string path = out.ProfilePath(row.name);
    auto profile = analysis::ReadProfileFile(path);
    absl::Status added =
        profile.ok() ? merged.Add(*profile, path) : profile.status();
    if (!added.ok()) {
      row.status = "failed";
      row.error =
          absl::StrCat("its profile cannot be merged: ", added.message());
      continue;
    }
    if (!options.group_by.empty()) {
      auto it = row.fields.find(options.group_by);
      const std::string value =
          it == row.fields.end() || it->second.empty() ? "(none)" : it->second;
      auto& group = groups[value];
      if (!group) group = std::make_unique<analysis::ProfileAccumulator>();
      (void)group->Add(*profile, path);
    }
  }
  absl::Status written =
      analysis::WriteProfileFile(out.MergedPath(), merged.Finish(Writer()));
  std::map<std::string, std::string> group_files;
  if (written.ok() && !groups.empty()) {
    written = MakeDirsBelow(out.path(), "groups");
    for (auto& [value, acc] : groups) {
      if (!written.ok()) break;
      group_files[value] = OutDir::GroupFile(value);
      written = analysis::WriteProfileFile(
          out.path() + "/" + group_files[value], acc->Finish(Writer()));
    }
  }
  if (written.ok()) {
    written = WriteSummary(out.path(), rows, options.group_by, group_files);
  }
  if (!written.ok()) return ReportError(3, written.message());
  if (options.html) {
    const int rc = WriteHtmlReports(options, out, rows, guard);
    if (rc != report::kExitOk) return rc;
  }
  fputs(SummaryTable(rows).c_str(), stdout);
  fflush(stdout);
  return ExitFor(rows);
}

}  // namespace

absl::StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  std::string number(text);
  uint64_t scale = 1;
  for (auto [suffix, factor] :
       std::initializer_list<std::pair<absl::string_view, uint64_t>>{
           {"KiB", 1ull << 10},
           {"MiB", 1ull << 20},
           {"GiB", 1ull << 30},
           {"TiB", 1ull << 40},
           {"K", 1ull << 10},
           {"M", 1ull << 20},
           {"G", 1ull << 30},
           {"T", 1ull << 40}}) {
    if (absl::EndsWith(number, suffix)) {
      number.resize(number.size() - suffix.size());
      scale = factor;
      break;
    }
  }
  double value = 0;
  if (number.empty() || !absl::SimpleAtod(number, &value) || value <= 0 ||
      value * scale >= 1.8e19) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected a size such as 512M or 2G, got '", std::string(text), "'"));
  }
  return static_cast<uint64_t>(value * scale);
}

int RunBatch(const RunOptions& options) {
  if (options.inputs.empty()) return ReportError(2, "no INPUT given");
  if (options.executable.empty() && !options.merge_only) {
    return ReportError(3,
                       "cannot find the hwt-batch executable for the workers");
  }
  SignalGuard guard;
  auto out = OutDir::Open(options.outdir, options.shard);
  if (!out.ok()) return ReportError(3, out.status().message());
  std::vector<std::string> args;
  for (const std::string& in : options.inputs) args.push_back(Absolute(in));
  auto expanded = ExpandInputs(args, options.input, options.outdir);
  if (!expanded.ok()) return InputError(expanded.status());
  if (!options.quiet) {
    for (const std::string& note : expanded->notes) {
      fprintf(stderr, "%s: note: %s\n", kBatchTool, note.c_str());
    }
  }
  std::vector<BatchInput> share =
      options.shard ? ShardOf(expanded->inputs, options.shard->first,
                              options.shard->second)
                    : expanded->inputs;
  Prepared p = Prepare(options, *out, std::move(share));
  if (!options.merge_only) {
    auto finished = Analyse(options, *out, p, guard);
    if (!finished.ok()) return ReportError(3, finished.status().message());
    if (!*finished) {
      size_t done = 0;
      for (bool h : p.have) done += h;
      fprintf(stderr,
              "%s: interrupted: %zu of %zu captures have their results in %s; "
              "run the same command again to continue\n",
              kBatchTool, done, p.inputs.size(), options.outdir.c_str());
      return kExitInterrupted;
    }
  }
  if (options.shard) {
    // A shard's part: its rows; the merge is the last step's.
    fputs(SummaryTable(p.rows).c_str(), stdout);
    fflush(stdout);
    return ExitFor(p.rows);
  }
  return Finish(options, *out, p.rows, guard);
}

}  // namespace hwt::batch
