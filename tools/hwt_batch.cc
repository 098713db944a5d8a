// hwt-batch: many captures at once (run, merge, diff, slurm). A thin front
// end: its option table (batch/batch_options.h) into a CLI11 parser, one
// batch/ library call, its exit status out. `hwt-batch worker` is the
// worker process the batch starts (not for users).
#include <unistd.h>

#include <cstdint>
#include <string>

#include "batch/batch_options.h"
#include "batch/worker_pool.h"
#include "tools/option_cli.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-batch";

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
  hwt::batch::BatchFlags flags;
  hwt::tools::OptionCli cli(hwt::batch::BatchOptionTable(), &flags);
  int exit_code = 0;
  if (!cli.Parse(argc, argv, &exit_code)) return exit_code;
  flags.command = cli.Command();
  absl::StatusOr<int> code = hwt::batch::RunBatchCommand(flags);
  if (!code.ok()) return hwt::tools::Fail(kTool, code.status());
  return *code;
}
