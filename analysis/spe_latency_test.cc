// Latency distributions: count, sum, min, max and exact nearest-rank
// percentiles checked by hand, large values, and merging.
#include "analysis/spe_latency.h"

#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

TEST(SpeLatencyTest, EmptyDistribution) {
  LatencyDistribution d;
  EXPECT_EQ(d.count(), 0u);
  EXPECT_EQ(d.mean(), 0.0);
  EXPECT_EQ(d.Percentile(50), 0u);
  EXPECT_EQ(d.max(), 0u);
}

TEST(SpeLatencyTest, ExactBelow256) {
  LatencyDistribution d;
  for (int v = 1; v <= 100; ++v) d.Add(static_cast<uint16_t>(v));
  EXPECT_EQ(d.count(), 100u);
  EXPECT_EQ(d.sum(), 5050u);
  EXPECT_DOUBLE_EQ(d.mean(), 50.5);
  EXPECT_EQ(d.min(), 1u);
  EXPECT_EQ(d.max(), 100u);
  // Nearest rank: ceil(p/100 * 100).
  EXPECT_EQ(d.Percentile(50), 50u);
  EXPECT_EQ(d.Percentile(90), 90u);
  EXPECT_EQ(d.Percentile(99), 99u);
  EXPECT_EQ(d.Percentile(100), 100u);
  EXPECT_EQ(d.Percentile(0.1), 1u);
}

TEST(SpeLatencyTest, SkewedSmallSample) {
  // 7 values: ranks for p50 = ceil(3.5) = 4, p90 = ceil(6.3) = 7.
  LatencyDistribution d;
  for (uint16_t v : {5, 5, 5, 9, 12, 40, 200}) d.Add(v);
  EXPECT_EQ(d.Percentile(50), 9u);
  EXPECT_EQ(d.Percentile(90), 200u);
  EXPECT_EQ(d.Percentile(99), 200u);
  EXPECT_EQ(d.sum(), 276u);
}

TEST(SpeLatencyTest, LargeValuesAreExact) {
  LatencyDistribution d;
  for (int i = 0; i < 9; ++i) d.Add(1000);
  d.Add(5000);
  d.Add(65535);
  // 11 values: p50 = rank 6 = 1000, p90 = rank ceil(9.9) = 10 = 5000.
  EXPECT_EQ(d.Percentile(50), 1000u);
  EXPECT_EQ(d.Percentile(90), 5000u);
  EXPECT_EQ(d.Percentile(99), 65535u);
  EXPECT_EQ(d.max(), 65535u);
  EXPECT_EQ(d.min(), 1000u);
  EXPECT_EQ(d.distinct_values(), 3u);
  EXPECT_EQ(d.sum(), 9000u + 5000u + 65535u);
}

TEST(SpeLatencyTest, MergeAddsEverything) {
  LatencyDistribution a, b, both;
  for (int v = 0; v < 50; ++v) {
    a.Add(static_cast<uint16_t>(v));
    both.Add(static_cast<uint16_t>(v));
  }
  for (int v = 50; v < 100; ++v) {
    b.Add(static_cast<uint16_t>(v * 3));
    both.Add(static_cast<uint16_t>(v * 3));
  }
  LatencyDistribution empty;
  a.Merge(empty);
  a.Merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.sum(), both.sum());
  EXPECT_EQ(a.min(), 0u);
  EXPECT_EQ(a.max(), 297u);
  for (double p : {10.0, 50.0, 90.0, 99.0}) {
    EXPECT_EQ(a.Percentile(p), both.Percentile(p)) << p;
  }
  empty.Merge(b);
  EXPECT_EQ(empty.min(), 150u);
}

}  // namespace
}  // namespace hwt::analysis
