// A latency distribution for SPE counters (16-bit cycle counts): count, sum,
// min and max, and exact percentiles from a count per distinct value (a hash
// map: compact for the few hundred distinct values a function typically
// sees, no memory at all until the first value).
#ifndef HWT_ANALYSIS_SPE_LATENCY_H_
#define HWT_ANALYSIS_SPE_LATENCY_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"

namespace hwt::analysis {

class LatencyDistribution {
 public:
  void Add(uint16_t value) {
    ++counts_[value];
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
  size_t distinct_values() const { return counts_.size(); }
  double mean() const {
    return count_ == 0 ? 0.0 : static_cast<double>(sum_) / count_;
  }
  // Nearest-rank percentile (p in (0, 100]): the smallest value v with at
  // least ceil(p/100 * count) values <= v. 0 when empty.
  uint32_t Percentile(double p) const;
  // How many samples had each latency value (for histograms).
  const absl::flat_hash_map<uint16_t, uint64_t>& counts() const {
    return counts_;
  }

 private:
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint32_t min_ = 0;
  uint32_t max_ = 0;
  absl::flat_hash_map<uint16_t, uint64_t> counts_;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SPE_LATENCY_H_
