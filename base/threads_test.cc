// UsableCores honours the affinity mask (set here with sched_setaffinity, as
// taskset and Slurm's task binding do) and cgroup quotas parse as the
// kernel's files write them.
#include "base/threads.h"

#include <sched.h>

#include <thread>

#include "gtest/gtest.h"

namespace hwt {
namespace {

TEST(ThreadsTest, CgroupV2Quota) {
  EXPECT_EQ(CoresOfCgroupV2Max("200000 100000\n"), 2);
  EXPECT_EQ(CoresOfCgroupV2Max("150000 100000"), 2);  // 1.5 cores: round up
  EXPECT_EQ(CoresOfCgroupV2Max("50000 100000"), 1);
  EXPECT_EQ(CoresOfCgroupV2Max("max 100000\n"), std::nullopt);
  EXPECT_EQ(CoresOfCgroupV2Max(""), std::nullopt);
  EXPECT_EQ(CoresOfCgroupV2Max("garbage"), std::nullopt);
}

TEST(ThreadsTest, CgroupV1Quota) {
  EXPECT_EQ(CoresOfCgroupV1Quota("300000\n", "100000\n"), 3);
  EXPECT_EQ(CoresOfCgroupV1Quota("-1\n", "100000\n"), std::nullopt);
  EXPECT_EQ(CoresOfCgroupV1Quota("", ""), std::nullopt);
}

#if defined(__linux__)
// In a thread of its own (the mask is per thread on Linux), pinned to one
// CPU: the process's usable cores as the kernel reports them for thread 0
// are unchanged, but UsableCores reads the calling thread's mask.
TEST(ThreadsTest, AffinityMaskIsHonoured) {
  int seen = 0;
  std::thread pinned([&seen] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
    seen = UsableCores();
  });
  pinned.join();
  EXPECT_EQ(seen, 1);
  EXPECT_GE(UsableCores(), 1);
  EXPECT_EQ(ResolveJobs(3), 3);
  EXPECT_EQ(ResolveJobs(0), UsableCores());
}
#endif

}  // namespace
}  // namespace hwt
