// A Slurm cluster of one node on this machine, for tests: munged,
// slurmctld and slurmd started in the foreground with a slurm.conf
// generated in a temporary directory (free ports, spool, state, pid and
// log files all in that directory, no accounting, no cgroups), so nothing
// systemwide is touched. The daemons get SIGTERM when the test process
// dies (PR_SET_PDEATHSIG), so a crashed or timed-out test leaves none
// behind; the destructor cancels what is queued and stops them.
#ifndef HWT_BATCH_TESTING_LOCAL_SLURM_H_
#define HWT_BATCH_TESTING_LOCAL_SLURM_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"

namespace hwt::batch::testing {

class LocalSlurm {
 public:
  // The programs the cluster needs (for HWT_REQUIRE_TOOL).
  static const std::vector<std::string>& Programs();

  // Starts the daemons and waits until the node takes jobs. Sets SLURM_CONF
  // in this process's environment, so sbatch, squeue and scancel started
  // from here (and from the tools under test) talk to this cluster.
  static absl::StatusOr<std::unique_ptr<LocalSlurm>> Start();
  ~LocalSlurm();
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  const std::string& dir() const { return dir_.path(); }
  std::string conf_path() const { return dir() + "/slurm.conf"; }
  const std::string& partition() const { return partition_; }
  // The daemons' logs, for a failure message.
  std::string Logs() const;
  // The jobs in the queue (squeue's job ids, one a line; "" when none).
  absl::StatusOr<std::string> Queue() const;

 private:
  explicit LocalSlurm(TempDir dir) : dir_(std::move(dir)) {}
  absl::Status Launch(const std::vector<std::string>& argv);
  void Stop();

  TempDir dir_;
  std::string partition_ = "hwttest";
  std::vector<pid_t> daemons_;  // in start order
};

}  // namespace hwt::batch::testing

#endif  // HWT_BATCH_TESTING_LOCAL_SLURM_H_
