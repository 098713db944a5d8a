// hwt-batch's option table and the dispatch of its subcommands; see
// batch_options.h.
#include "batch/batch_options.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "batch/inputs.h"
#include "batch/worker_pool.h"
#include "report/driver/input_options.h"

namespace hwt::batch {
namespace {

using K = report::OptionKind;
using Row = report::OptionRow<BatchFlags>;

#define HWT_FIELD(member) \
  [](BatchFlags& f) -> report::OptionTarget { return &f.member; }

constexpr char kBatchAbout[] =
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
    "See docs/batch.md.";

// The options `run` and `slurm` share, up to the per-command ones.
std::vector<Row> RunRows() {
  const std::vector<std::string_view> both = {"run", "slurm"};
  std::vector<Row> rows = {
      {{.names = "INPUT",
        .kind = K::kPositional,
        .help = "captures, directories searched for captures, @FILE lists "
                "(a line: PATH [--cpu F/M] [--image FILE[@BIAS]]...)",
        .required = true,
        .commands = both},
       HWT_FIELD(inputs)},
      {{.names = "-o,--output",
        .help = "the batch's output directory",
        .required = true,
        .commands = both},
       HWT_FIELD(outdir)},
  };
  for (Row& row : report::InputOptionRows<BatchFlags, &BatchFlags::input>()) {
    row.info.commands = both;
    rows.push_back(std::move(row));
  }
  std::vector<Row> more = {
      {{.names = "-j,--jobs",
        .help = "worker processes (default: all usable cores)",
        .check = report::OptionCheck::kNonNegative,
        .commands = {"run"}},
       HWT_FIELD(jobs)},
      {{.names = "-j,--jobs",
        .help = "worker processes per shard (default: the cores Slurm gives "
                "the task)",
        .check = report::OptionCheck::kNonNegative,
        .commands = {"slurm"}},
       HWT_FIELD(jobs)},
      {{.names = "--timeout",
        .help = "seconds per capture; one that takes longer is stopped and "
                "fails",
        .check = report::OptionCheck::kNonNegative,
        .commands = both},
       HWT_FIELD(timeout_s)},
      {{.names = "--max-memory",
        .help = "address space per worker (e.g. 4G); a capture that needs "
                "more fails",
        .commands = both},
       HWT_FIELD(max_memory)},
      {{.names = "--verify",
        .kind = K::kFlag,
        .help = "resume only captures whose contents are unchanged (hashes "
                "every file; default: size and modification time)",
        .commands = both},
       HWT_FIELD(verify)},
      {{.names = "--group-by",
        .help = "also merge per value of a manifest field (command, "
                "hostname, backend, cpu, ...) or label: "
                "OUTDIR/groups/VALUE.hwtprof",
        .commands = both},
       HWT_FIELD(group_by)},
      {{.names = "--html",
        .kind = K::kFlag,
        .help = "also write OUTDIR/report.html (the merged profile with the "
                "table of captures, each linked to its report) and "
                "profiles/NAME.report.html per capture",
        .commands = both},
       HWT_FIELD(html)},
      {{.names = "-q,--quiet",
        .kind = K::kFlag,
        .help = "no notes or progress on stderr",
        .commands = both},
       HWT_FIELD(quiet)},
      {{.names = "--no-progress",
        .kind = K::kFlag,
        .help = "no progress bar",
        .commands = both},
       HWT_FIELD(no_progress)},
      {{.names = "--shard",
        .help = "I/N: analyse only shard I of N (the same split on every "
                "machine); finish with --merge-only",
        .commands = {"run"}},
       HWT_FIELD(shard)},
      {{.names = "--merge-only",
        .kind = K::kFlag,
        .help = "analyse nothing: merge the profiles the shards wrote and "
                "write the summary",
        .commands = {"run"}},
       HWT_FIELD(merge_only)},
  };
  for (Row& row : more) rows.push_back(std::move(row));
  return rows;
}

std::vector<Row> SlurmRows() {
  std::vector<Row> rows = {
      {{.names = "--shards",
        .help = "array tasks (default: one per 8 captures, at most 64)",
        .check = report::OptionCheck::kPositive,
        .commands = {"slurm"}},
       HWT_FIELD(shards)},
      {{.names = "--partition",
        .help = "Slurm partition",
        .commands = {"slurm"}},
       HWT_FIELD(partition)},
  };
  for (std::string_view name : {"--mem", "--time", "--account", "--qos",
                                "--constraint", "--cpus-per-task"}) {
    rows.push_back({{.names = name,
                     .kind = K::kPassThrough,
                     .help = "passed to sbatch",
                     .commands = {"slurm"}},
                    HWT_FIELD(sbatch_args)});
  }
  rows.push_back({{.names = "--sbatch",
                   .kind = K::kRepeated,
                   .help = "any other sbatch option, as one argument "
                           "(--sbatch=--exclusive); repeatable",
                   .commands = {"slurm"}},
                  HWT_FIELD(sbatch_extra)});
  return rows;
}

std::vector<Row> MergeRows() {
  return {
      {{.names = "-o,--output",
        .help = "the merged .hwtprof",
        .required = true,
        .commands = {"merge"}},
       HWT_FIELD(merge_output)},
      {{.names = "INPUT",
        .kind = K::kPositional,
        .help = "saved profiles or batch directories (their merged.hwtprof)",
        .required = true,
        .commands = {"merge"}},
       HWT_FIELD(merge_inputs)},
      {{.names = "-q,--quiet",
        .kind = K::kFlag,
        .help = "no note on stderr",
        .commands = {"merge"}},
       HWT_FIELD(quiet)},
  };
}

std::vector<Row> DiffRows() {
  return {
      {{.names = "BASE",
        .kind = K::kPositional,
        .help = "profile or batch directory",
        .required = true,
        .commands = {"diff"}},
       HWT_FIELD(base)},
      {{.names = "NEW",
        .kind = K::kPositional,
        .help = "profile or batch directory",
        .required = true,
        .commands = {"diff"}},
       HWT_FIELD(now)},
      {{.names = "--absolute",
        .kind = K::kFlag,
        .help = "compare raw counts, not shares of each total",
        .commands = {"diff"}},
       HWT_FIELD(absolute)},
      {{.names = "--format",
        .help = "text or json",
        .default_value = "text",
        .choices = {"text", "json"},
        .commands = {"diff"}},
       HWT_FIELD(format)},
      {{.names = "--rows",
        .help = "rows shown (0 = all)",
        .default_value = "20",
        .show_default = true,
        .commands = {"diff"}},
       HWT_FIELD(rows)},
      {{.names = "--fail-above",
        .help = "exit 1 when a function's share grew by more than PCT "
                "percentage points (--absolute: its count by more than PCT "
                "percent)",
        .check = report::OptionCheck::kNonNegative,
        .commands = {"diff"}},
       HWT_FIELD(fail_above)},
      {{.names = "--function",
        .help = "--fail-above: only functions matching REGEX",
        .commands = {"diff"}},
       HWT_FIELD(function)},
  };
}

report::OptionTable<BatchFlags> BuildBatchTable() {
  report::OptionTable<BatchFlags> table;
  table.tool = {.name = "hwt-batch", .about = kBatchAbout, .column_width = 34};
  table.commands = {
      {"run", "analyse captures into OUTDIR (resumes an interrupted batch)"},
      {"merge", "merge saved profiles into one"},
      {"diff", "the functions whose share of the instructions changed most"},
      {"slurm", "run the batch as a Slurm job array, wait, merge, summarise"},
  };
  for (std::vector<Row> part :
       {RunRows(), SlurmRows(), MergeRows(), DiffRows()}) {
    for (Row& row : part) table.rows.push_back(std::move(row));
  }
  return table;
}

#undef HWT_FIELD

}  // namespace

const report::OptionTable<BatchFlags>& BatchOptionTable() {
  static const report::OptionTable<BatchFlags>* const table =
      new report::OptionTable<BatchFlags>(BuildBatchTable());
  return *table;
}

absl::StatusOr<RunOptions> RunOptionsFromFlags(const BatchFlags& flags,
                                               std::string executable) {
  RunOptions o;
  absl::StatusOr<capture::InputOptions> input =
      report::InputOptionsFromFlags(flags.input);
  if (!input.ok()) return input.status();
  o.input = *std::move(input);
  o.inputs = flags.inputs;
  o.outdir = flags.outdir;
  o.jobs = flags.jobs;
  o.timeout_s = flags.timeout_s;
  if (!flags.max_memory.empty()) {
    absl::StatusOr<uint64_t> bytes = ParseByteSize(flags.max_memory);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--max-memory: ", bytes.status().message()));
    }
    o.max_memory = *bytes;
  }
  o.verify = flags.verify;
  if (!flags.shard.empty()) {
    absl::StatusOr<std::pair<int, int>> shard = ParseShard(flags.shard);
    if (!shard.ok()) return shard.status();
    o.shard = *shard;
  }
  o.merge_only = flags.merge_only;
  o.group_by = flags.group_by;
  o.html = flags.html;
  o.quiet = flags.quiet;
  if (flags.no_progress) o.progress = false;
  o.executable = std::move(executable);
  return o;
}

absl::StatusOr<int> RunBatchCommand(const BatchFlags& flags) {
  if (flags.command == "merge") {
    MergeOptions merge;
    merge.output = flags.merge_output;
    merge.inputs = flags.merge_inputs;
    merge.quiet = flags.quiet;
    return MergeCommand(merge);
  }
  if (flags.command == "diff") {
    DiffCommandOptions diff;
    diff.base = flags.base;
    diff.now = flags.now;
    diff.absolute = flags.absolute;
    diff.json = flags.format == "json";
    diff.rows = flags.rows;
    if (flags.fail_above >= 0) diff.fail_above = flags.fail_above;
    diff.function = flags.function;
    return DiffCommand(diff);
  }
  absl::StatusOr<RunOptions> run = RunOptionsFromFlags(flags, SelfExecutable());
  if (!run.ok()) return run.status();
  if (flags.command == "run") return RunBatch(*run);
  if (flags.command != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown command '", flags.command, "'"));
  }
  SlurmOptions slurm;
  slurm.run = *std::move(run);
  slurm.shards = flags.shards;
  slurm.partition = flags.partition;
  // The named pass-throughs, then --sbatch's: two fields, so that neither
  // kind of option overwrites what the other collected.
  slurm.sbatch_args = flags.sbatch_args;
  slurm.sbatch_args.insert(slurm.sbatch_args.end(), flags.sbatch_extra.begin(),
                           flags.sbatch_extra.end());
  return SlurmCommand(slurm);
}

}  // namespace hwt::batch
