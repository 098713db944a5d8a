// hwt-batch's commands as library calls (the tool only parses flags):
// run (analyse every capture in worker processes, resume, merge, group,
// summarise), run --shard I/N (one stable share, for a scheduler),
// run --merge-only (finish a sharded batch), merge (profiles into one) and
// diff (what changed, and the regression gate). Each prints what a user
// sees and returns the exit status: 0 all ok, 1 some captures had decode
// errors or failed (diff: a regression), 2 bad usage or input, 3 OUTDIR
// could not be written, 130 interrupted (the profiles written are
// complete; running the same command again continues). docs/batch.md.
#ifndef HWT_BATCH_BATCH_RUN_H_
#define HWT_BATCH_BATCH_RUN_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"

namespace hwt::batch {

inline constexpr int kExitInterrupted = 130;

struct RunOptions {
  std::string outdir;
  std::vector<std::string> inputs;
  capture::InputOptions input;  // --cpu, --image, ... for every input
  int jobs = 0;                 // worker processes; 0 = all usable cores
  double timeout_s = 0;         // per capture; 0 = none
  uint64_t max_memory = 0;      // bytes per worker; 0 = none
  bool verify = false;          // fingerprints hash contents
  std::optional<std::pair<int, int>> shard;
  bool merge_only = false;
  std::string group_by;
  // Also OUTDIR/report.html (the merged profile's HTML report with the
  // table of captures) and profiles/NAME.report.html for each capture.
  bool html = false;
  bool quiet = false;
  std::optional<bool> progress;  // default: stderr is a terminal
  std::string executable;        // hwt-batch itself, for the workers
};

int RunBatch(const RunOptions& options);

// "512M", "2G", "1.5GiB", "1000000" (bytes) -> bytes. Errors: not a size.
absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);

struct MergeOptions {
  std::string output;
  std::vector<std::string> inputs;  // profiles or batch directories
  bool quiet = false;
};
int MergeCommand(const MergeOptions& options);

struct DiffCommandOptions {
  std::string base, now;  // profiles or batch directories
  bool absolute = false;
  bool json = false;
  size_t rows = 20;
  std::optional<double> fail_above;  // percent
  std::string function;              // regex for the gate
};
int DiffCommand(const DiffCommandOptions& options);

}  // namespace hwt::batch

#endif  // HWT_BATCH_BATCH_RUN_H_
