// How many worker threads a `jobs` setting asks for. One definition, so that
// every decoder and tool reads "0" the same way.
#ifndef HWT_BASE_THREADS_H_
#define HWT_BASE_THREADS_H_

#include <algorithm>
#include <thread>

namespace hwt {

// `jobs` > 0 as given; otherwise (0 = all cores) one per core, at least 1
// (hardware_concurrency() may return 0 when it cannot tell).
inline int ResolveJobs(int jobs) {
  if (jobs > 0) return jobs;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace hwt

#endif  // HWT_BASE_THREADS_H_
