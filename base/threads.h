// How many worker threads a `jobs` setting asks for, and how many cores this
// process may really use. One definition, so that every decoder and tool
// reads "0" (all usable cores) the same way, and so that a Slurm allocation,
// a container's CPU quota or `taskset` is honoured rather than the machine's
// core count.
#ifndef HWT_BASE_THREADS_H_
#define HWT_BASE_THREADS_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace hwt {

// The cores this process may run on: the CPU affinity mask (sched_getaffinity
// on Linux, cpuset_getaffinity on FreeBSD), lowered to the cgroup CPU quota
// when one is set (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us /
// cpu.cfs_period_us), rounded up. At least 1.
int UsableCores();

// `jobs` > 0 as given; otherwise (0 = all usable cores) UsableCores().
int ResolveJobs(int jobs);

// The cores a cgroup CPU quota allows, rounded up: cgroup v2's cpu.max
// ("QUOTA PERIOD", or "max PERIOD" for none), or v1's quota and period files
// (quota -1 for none). nullopt when there is no quota or the text is not one.
std::optional<int> CoresOfCgroupV2Max(absl::string_view cpu_max);
std::optional<int> CoresOfCgroupV1Quota(absl::string_view quota_us,
                                        absl::string_view period_us);

}  // namespace hwt

#endif  // HWT_BASE_THREADS_H_
