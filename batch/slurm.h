// hwt-batch slurm: the same batch as hwt-batch run, spread over a Slurm
// cluster as a job array. It writes OUTDIR/slurm/job.sh (one array task per
// shard: `hwt-batch run --shard $SLURM_ARRAY_TASK_ID/N` over the inputs
// listed in OUTDIR/slurm/inputs.list) and submits it with sbatch --array,
// waits for the array (squeue), then merges and prints the summary as
// `hwt-batch run --merge-only` does. The merged profile and every report of
// it are byte for byte what a local run gives: the shards write the same
// per-capture profiles, and the merge does not depend on who analysed
// what. Ctrl-C cancels the job (scancel). OUTDIR must be on a file system
// every node sees, as must the inputs and hwt-batch itself.
#ifndef HWT_BATCH_SLURM_H_
#define HWT_BATCH_SLURM_H_

#include <string>
#include <vector>

#include "batch/batch_run.h"

namespace hwt::batch {

struct SlurmOptions {
  RunOptions run;  // outdir, inputs, input options, timeout, memory, ...
  int shards = 0;  // 0: one per 8 captures, at most 64
  std::string partition;
  // Passed to sbatch as they are (--mem, --time, --account, ...).
  std::vector<std::string> sbatch_args;
  double poll_s = 2;  // how often squeue is asked
};

int SlurmCommand(const SlurmOptions& options);

// The job script for `shards` shards (what SlurmCommand writes).
std::string SlurmJobScript(const RunOptions& run, int shards,
                           const std::string& inputs_list);

// The number of shards for `captures` when none is given.
int DefaultShards(size_t captures);

}  // namespace hwt::batch

#endif  // HWT_BATCH_SLURM_H_
