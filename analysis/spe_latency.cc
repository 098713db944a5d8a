// LatencyDistribution buckets and percentiles; see spe_latency.h.
#include "analysis/spe_latency.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hwt::analysis {

int LatencyDistribution::Bucket(uint32_t value) {
  if (value < kExactBelow) return static_cast<int>(value);
  if (value > 0xffff) value = 0xffff;
  int msb = 31 - std::countl_zero(value);  // 8..15
  int sub = static_cast<int>((value >> (msb - 5)) & (kSubBuckets - 1));
  return kExactBelow + (msb - 8) * kSubBuckets + sub;
}

uint32_t LatencyDistribution::BucketLowerBound(int bucket) {
  if (bucket < static_cast<int>(kExactBelow)) return bucket;
  int index = bucket - kExactBelow;
  int msb = 8 + index / kSubBuckets;
  int sub = index % kSubBuckets;
  return static_cast<uint32_t>(kSubBuckets + sub) << (msb - 5);
}

void LatencyDistribution::Merge(const LatencyDistribution& other) {
  if (other.count_ == 0) return;
  if (buckets_.empty()) buckets_.assign(kBuckets, 0);
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  if (count_ == 0 || other.min_ < min_) min_ = other.min_;
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

uint32_t LatencyDistribution::Percentile(double p) const {
  if (count_ == 0) return 0;
  double wanted = std::ceil(p / 100.0 * static_cast<double>(count_));
  uint64_t rank = wanted < 1 ? 1 : static_cast<uint64_t>(wanted);
  if (rank > count_) rank = count_;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      return std::clamp(BucketLowerBound(i), min_, max_);
    }
  }
  return max_;
}

}  // namespace hwt::analysis
