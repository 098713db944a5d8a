// hwt-batch's command line as data: the flags of its subcommands (run,
// merge, diff, slurm), their option table (report/driver/option_table.h:
// the tool's CLI11 parser, --help and the checks of tools/option_cli_test
// come from it), and the one call that turns parsed flags into the batch
// library's options and runs the subcommand.
#ifndef HWT_BATCH_BATCH_OPTIONS_H_
#define HWT_BATCH_BATCH_OPTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "batch/batch_run.h"
#include "batch/slurm.h"
#include "report/driver/option_table.h"
#include "report/driver/tool_input.h"

namespace hwt::batch {

// Every subcommand's flags in one struct: the parser fills the fields of
// the subcommand given, the rest keep their defaults.
struct BatchFlags {
  std::string command;  // run, merge, diff or slurm (set after parsing)

  // run and slurm
  report::InputFlags input;  // --cpu, --image, ... for every capture
  std::vector<std::string> inputs;
  std::string outdir;
  int jobs = 0;
  double timeout_s = 0;
  std::string max_memory;
  bool verify = false;
  std::string group_by;
  bool html = false;
  bool quiet = false;  // also merge's
  bool no_progress = false;
  // run only
  std::string shard;
  bool merge_only = false;
  // slurm only
  int shards = 0;
  std::string partition;
  std::vector<std::string> sbatch_args;   // "--mem=4G" (the named ones)
  std::vector<std::string> sbatch_extra;  // --sbatch's: "--exclusive"

  // merge
  std::string merge_output;
  std::vector<std::string> merge_inputs;

  // diff
  std::string base;
  std::string now;
  bool absolute = false;
  std::string format;
  size_t rows = 0;
  double fail_above = -1;  // negative: no gate
  std::string function;
};

const report::OptionTable<BatchFlags>& BatchOptionTable();

// The run options of `run` and `slurm` from their flags; InvalidArgument
// for a value the parser cannot check (--max-memory, --shard, an input
// option). `executable` is hwt-batch itself, which the workers run.
absl::StatusOr<RunOptions> RunOptionsFromFlags(const BatchFlags& flags,
                                               std::string executable);

// Runs flags.command; the exit status of docs/batch.md, or InvalidArgument
// (a usage error, exit 2) for a flag value the parser could not check.
absl::StatusOr<int> RunBatchCommand(const BatchFlags& flags);

}  // namespace hwt::batch

#endif  // HWT_BATCH_BATCH_OPTIONS_H_
