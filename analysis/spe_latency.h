// A latency distribution for SPE counters (16-bit cycle counts): count, sum,
// min, max exactly, and a histogram for percentiles that is exact below 256
// cycles and, above, rounds down to a bucket no wider than 1/32 of its value
// (32 sub-buckets per power of two). The buckets are allocated on the first
// value, so distributions that never see one cost a few words.
#ifndef HWT_ANALYSIS_SPE_LATENCY_H_
#define HWT_ANALYSIS_SPE_LATENCY_H_

#include <cstdint>
#include <vector>

namespace hwt::analysis {

class LatencyDistribution {
 public:
  static constexpr uint32_t kExactBelow = 256;
  static constexpr int kSubBuckets = 32;
  static constexpr int kBuckets = kExactBelow + 8 * kSubBuckets;  // to 65535

  void Add(uint16_t value) {
    if (buckets_.empty()) buckets_.assign(kBuckets, 0);
    ++buckets_[Bucket(value)];
    if (count_ == 0 || value < min_) min_ = value;
    if (value > max_) max_ = value;
    ++count_;
    sum_ += value;
  }
  void Merge(const LatencyDistribution& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint32_t min() const { return min_; }
  uint32_t max() const { return max_; }
  double mean() const {
    return count_ == 0 ? 0.0 : static_cast<double>(sum_) / count_;
  }
  // Nearest-rank percentile (p in (0, 100]): the smallest value v with at
  // least ceil(p/100 * count) values <= v; for values >= 256 the lower bound
  // of v's bucket (within 1/32 below v). 0 when empty.
  uint32_t Percentile(double p) const;

  static int Bucket(uint32_t value);
  static uint32_t BucketLowerBound(int bucket);

 private:
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint32_t min_ = 0;
  uint32_t max_ = 0;
  std::vector<uint64_t> buckets_;  // empty until the first value
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SPE_LATENCY_H_
