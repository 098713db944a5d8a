// The processes a batch runs its captures in. Each worker is the hwt-batch
// executable itself started in its worker mode (fork + exec: a fresh
// process, not a copy of the parent's state), single-threaded, reading jobs
// one JSON line at a time on its stdin and answering each with a row on its
// stdout; a worker takes job after job, so the start-up cost of a process
// linked to LLVM is paid once per worker, not once per capture. A worker
// that crashes, exceeds --timeout (killed) or runs out of memory (its
// address space is limited to --max-memory) costs only the capture it was
// on: that capture becomes a "failed" row and a new worker takes the next.
#ifndef HWT_BATCH_WORKER_POOL_H_
#define HWT_BATCH_WORKER_POOL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "batch/job.h"

namespace hwt::batch {

struct PoolOptions {
  std::string executable;  // the hwt-batch binary (SelfExecutable())
  int workers = 1;
  double timeout_s = 0;     // per capture; 0 = none
  uint64_t max_memory = 0;  // bytes of address space per worker; 0 = none
};

// Whether a stop was asked for (SIGINT, SIGTERM, SIGHUP); checked between
// events. The pool's caller blocks those signals (SignalGuard) so that they
// are seen here rather than ending the process half-way.
using StopCheck = std::function<bool()>;

// Runs every job; `done` is called for each (in completion order, on this
// thread) with its row. Returns Cancelled when `stop` said so: workers are
// then stopped and the jobs not finished are not reported. Errors: a worker
// cannot be started at all.
absl::Status RunJobs(const std::vector<Job>& jobs, const PoolOptions& options,
                     const std::function<void(const Job&, CaptureRow)>& done,
                     const StopCheck& stop);

// The worker side: reads jobs from `in_fd`, runs each (RunJob), writes a
// row line per job to `out_fd`; returns at end of input. `max_memory` > 0
// limits the process' address space first.
int RunWorker(int in_fd, int out_fd, uint64_t max_memory);

// The path of the running executable (/proc/self/exe, or the FreeBSD
// sysctl); empty if unknown.
std::string SelfExecutable();

// Blocks SIGINT, SIGTERM and SIGHUP while alive, so that a batch sees them
// as a request to stop (Pending()) instead of dying with workers half-way;
// children get the original mask back before exec.
class SignalGuard {
 public:
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  // Whether one of them arrived (consumes it; stays true afterwards).
  bool Pending();

 private:
  bool seen_ = false;
};

}  // namespace hwt::batch

#endif  // HWT_BATCH_WORKER_POOL_H_
