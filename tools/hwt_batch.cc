// hwt-batch: many captures at once (run, merge, diff, slurm). A thin front
// end: flags in, a batch/ library call, its exit status out. `hwt-batch
// worker` is the worker process the batch starts (not for users).
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "batch/batch_run.h"
#include "batch/inputs.h"
#include "batch/slurm.h"
#include "batch/worker_pool.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-batch";

struct RunFlags {
  hwt::tools::InputFlags input;
  std::vector<std::string> inputs;
  std::string outdir;
  int jobs = 0;
  double timeout_s = 0;
  std::string max_memory;
  bool verify = false;
  std::string shard;
  bool merge_only = false;
  std::string group_by;
  bool html = false;
  bool quiet = false;
  bool no_progress = false;
};

void AddRunFlags(CLI::App& cmd, RunFlags& f, bool slurm) {
  cmd.add_option("INPUT", f.inputs,
                 "captures, directories searched for captures, @FILE lists "
                 "(a line: PATH [--cpu F/M] [--image FILE[@BIAS]]...)")
      ->required();
  cmd.add_option("-o,--output", f.outdir, "the batch's output directory")
      ->required();
  hwt::tools::AddInputOptions(cmd, &f.input);
  cmd.add_option("-j,--jobs", f.jobs,
                 slurm ? "worker processes per shard (default: the cores "
                         "Slurm gives the task)"
                       : "worker processes (default: all usable cores)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--timeout", f.timeout_s,
                 "seconds per capture; one that takes longer is stopped and "
                 "fails")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--max-memory", f.max_memory,
                 "address space per worker (e.g. 4G); a capture that needs "
                 "more fails");
  cmd.add_flag("--verify", f.verify,
               "resume only captures whose contents are unchanged (hashes "
               "every file; default: size and modification time)");
  cmd.add_option("--group-by", f.group_by,
                 "also merge per value of a manifest field (command, "
                 "hostname, backend, cpu, ...) or label: "
                 "OUTDIR/groups/VALUE.hwtprof");
  cmd.add_flag("--html", f.html,
               "also write OUTDIR/report.html (the merged profile with the "
               "table of captures, each linked to its report) and "
               "profiles/NAME.report.html per capture");
  cmd.add_flag("-q,--quiet", f.quiet, "no notes or progress on stderr");
  cmd.add_flag("--no-progress", f.no_progress, "no progress bar");
  if (!slurm) {
    cmd.add_option("--shard", f.shard,
                   "I/N: analyse only shard I of N (the same split on every "
                   "machine); finish with --merge-only");
    cmd.add_flag("--merge-only", f.merge_only,
                 "analyse nothing: merge the profiles the shards wrote and "
                 "write the summary");
  }
}

// Flags to options; nullopt after printing a usage error.
std::optional<hwt::batch::RunOptions> ToOptions(const RunFlags& f) {
  hwt::batch::RunOptions o;
  auto input = hwt::tools::InputOptionsFromFlags(f.input);
  if (!input.ok()) {
    hwt::tools::PrintError(kTool, std::string(input.status().message()));
    return std::nullopt;
  }
  o.input = *input;
  o.inputs = f.inputs;
  o.outdir = f.outdir;
  o.jobs = f.jobs;
  o.timeout_s = f.timeout_s;
  if (!f.max_memory.empty()) {
    auto bytes = hwt::batch::ParseByteSize(f.max_memory);
    if (!bytes.ok()) {
      hwt::tools::PrintError(
          kTool, "--max-memory: " + std::string(bytes.status().message()));
      return std::nullopt;
    }
    o.max_memory = *bytes;
  }
  o.verify = f.verify;
  if (!f.shard.empty()) {
    auto shard = hwt::batch::ParseShard(f.shard);
    if (!shard.ok()) {
      hwt::tools::PrintError(kTool, std::string(shard.status().message()));
      return std::nullopt;
    }
    o.shard = *shard;
  }
  o.merge_only = f.merge_only;
  o.group_by = f.group_by;
  o.html = f.html;
  o.quiet = f.quiet;
  if (f.no_progress) o.progress = false;
  o.executable = hwt::batch::SelfExecutable();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  // The worker mode first: no flag parsing cost, no CLI11 in the worker.
  if (argc >= 2 && std::string(argv[1]) == "worker") {
    uint64_t max_memory = 0;
    if (argc == 4 && std::string(argv[2]) == "--max-memory") {
      max_memory = std::stoull(argv[3]);
    }
    return hwt::batch::RunWorker(STDIN_FILENO, STDOUT_FILENO, max_memory);
  }
  CLI::App app{
      "Analyses many captures: one saved profile per capture, their merge and "
      "a summary; merges profiles; shows what changed between two; spreads a "
      "batch over a Slurm cluster.\n\n"
      "Examples:\n"
      "  hwt-batch run -o out captures/          # out/merged.hwtprof\n"
      "  hwt-report --top 20 out/merged.hwtprof\n"
      "  hwt-batch diff last-week/ out/ --fail-above 2 --function '^hot_'\n"
      "  hwt-batch slurm -o /shared/out --shards 16 --mem 4G captures/\n\n"
      "Exit status: 0 every capture ok, 1 some had decode errors or failed "
      "(diff: a regression), 2 bad usage or input, 3 OUTDIR could not be "
      "written, 130 interrupted (run the same command again to continue). "
      "See docs/batch.md.",
      kTool};
  app.get_formatter()->column_width(34);
  app.require_subcommand(1);

  RunFlags run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "analyse captures into OUTDIR (resumes an interrupted batch)");
  AddRunFlags(*run_cmd, run, /*slurm=*/false);

  hwt::batch::MergeOptions merge;
  CLI::App* merge_cmd =
      app.add_subcommand("merge", "merge saved profiles into one");
  merge_cmd->add_option("-o,--output", merge.output, "the merged .hwtprof")
      ->required();
  merge_cmd
      ->add_option("INPUT", merge.inputs,
                   "saved profiles or batch directories (their merged.hwtprof)")
      ->required();
  merge_cmd->add_flag("-q,--quiet", merge.quiet, "no note on stderr");

  hwt::batch::DiffCommandOptions diff;
  std::string format = "text";
  double fail_above = -1;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "the functions whose share of the instructions changed most");
  diff_cmd->add_option("BASE", diff.base, "profile or batch directory")
      ->required();
  diff_cmd->add_option("NEW", diff.now, "profile or batch directory")
      ->required();
  diff_cmd->add_flag("--absolute", diff.absolute,
                     "compare raw counts, not shares of each total");
  diff_cmd->add_option("--format", format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  diff_cmd->add_option("--rows", diff.rows, "rows shown (0 = all)")
      ->capture_default_str();
  diff_cmd
      ->add_option("--fail-above", fail_above,
                   "exit 1 when a function's share grew by more than PCT "
                   "percentage points (--absolute: its count by more than "
                   "PCT percent)")
      ->check(CLI::NonNegativeNumber);
  diff_cmd->add_option("--function", diff.function,
                       "--fail-above: only functions matching REGEX");

  hwt::batch::SlurmOptions slurm;
  RunFlags slurm_run;
  std::vector<std::string> sbatch_passthrough;
  CLI::App* slurm_cmd = app.add_subcommand(
      "slurm", "run the batch as a Slurm job array, wait, merge, summarise");
  AddRunFlags(*slurm_cmd, slurm_run, /*slurm=*/true);
  slurm_cmd
      ->add_option("--shards", slurm.shards,
                   "array tasks (default: one per 8 captures, at most 64)")
      ->check(CLI::PositiveNumber);
  slurm_cmd->add_option("--partition", slurm.partition, "Slurm partition");
  for (const char* name : {"--mem", "--time", "--account", "--qos",
                           "--constraint", "--cpus-per-task"}) {
    slurm_cmd->add_option_function<std::string>(
        name,
        [&sbatch_passthrough, name](const std::string& value) {
          sbatch_passthrough.push_back(std::string(name) + "=" + value);
        },
        "passed to sbatch");
  }
  slurm_cmd->add_option("--sbatch", sbatch_passthrough,
                        "any other sbatch option, as one argument "
                        "(--sbatch=--exclusive); repeatable");

  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  if (run_cmd->parsed()) {
    auto options = ToOptions(run);
    return options ? hwt::batch::RunBatch(*options) : 2;
  }
  if (merge_cmd->parsed()) return hwt::batch::MergeCommand(merge);
  if (diff_cmd->parsed()) {
    diff.json = format == "json";
    if (fail_above >= 0) diff.fail_above = fail_above;
    return hwt::batch::DiffCommand(diff);
  }
  auto options = ToOptions(slurm_run);
  if (!options) return 2;
  slurm.run = *options;
  slurm.sbatch_args = sbatch_passthrough;
  return hwt::batch::SlurmCommand(slurm);
}
