// UsableCores: the affinity mask and the cgroup CPU quota; see threads.h.
#include "base/threads.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#if defined(__FreeBSD__)
#include <sys/cpuset.h>
#include <sys/param.h>
#endif

namespace hwt {
namespace {

std::optional<int> CoresOfQuota(int64_t quota, int64_t period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  const int64_t cores = (quota + period - 1) / period;
  return static_cast<int>(std::max<int64_t>(1, cores));
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int AffinityCores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
#elif defined(__FreeBSD__)
  cpuset_t set;
  CPU_ZERO(&set);
  if (cpuset_getaffinity(CPU_LEVEL_WHICH, CPU_WHICH_PID, -1, sizeof(set),
                         &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The quota of this process's cgroup (v2 unified, or the v1 cpu controller),
// read at the usual mount point.
std::optional<int> CgroupCores() {
#if defined(__linux__)
  const std::string self = ReadSmallFile("/proc/self/cgroup");
  for (absl::string_view line : absl::StrSplit(self, '\n')) {
    // v2: "0::/PATH"; v1: "N:cpu,cpuacct:/PATH".
    std::vector<absl::string_view> fields = absl::StrSplit(line, ':');
    if (fields.size() != 3) continue;
    const std::string path(fields[2]);
    if (fields[0] == "0" && fields[1].empty()) {
      if (auto cores = CoresOfCgroupV2Max(
              ReadSmallFile("/sys/fs/cgroup" + path + "/cpu.max"))) {
        return cores;
      }
    }
    for (absl::string_view controller : absl::StrSplit(fields[1], ',')) {
      if (controller != "cpu") continue;
      for (const char* mount :
           {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
        const std::string dir = std::string(mount) + path;
        if (auto cores = CoresOfCgroupV1Quota(
                ReadSmallFile(dir + "/cpu.cfs_quota_us"),
                ReadSmallFile(dir + "/cpu.cfs_period_us"))) {
          return cores;
        }
      }
    }
  }
#endif
  return std::nullopt;
}

}  // namespace

std::optional<int> CoresOfCgroupV2Max(absl::string_view cpu_max) {
  std::vector<absl::string_view> parts = absl::StrSplit(
      absl::StripAsciiWhitespace(cpu_max), ' ', absl::SkipEmpty());
  int64_t quota = 0, period = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &quota) ||
      !absl::SimpleAtoi(parts[1], &period)) {
    return std::nullopt;  // "max PERIOD" (no quota) or not a cpu.max
  }
  return CoresOfQuota(quota, period);
}

std::optional<int> CoresOfCgroupV1Quota(absl::string_view quota_us,
                                        absl::string_view period_us) {
  int64_t quota = 0, period = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(quota_us), &quota) ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(period_us), &period)) {
    return std::nullopt;
  }
  return CoresOfQuota(quota, period);
}

int UsableCores() {
  int cores = AffinityCores();
  if (std::optional<int> quota = CgroupCores()) cores = std::min(cores, *quota);
  return std::max(1, cores);
}

int ResolveJobs(int jobs) { return jobs > 0 ? jobs : UsableCores(); }

}  // namespace hwt
