// LatencyDistribution merging and percentiles; see spe_latency.h.
#include "analysis/spe_latency.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hwt::analysis {

void LatencyDistribution::Merge(const LatencyDistribution& other) {
  if (other.count_ == 0) return;
  for (const auto& [value, n] : other.counts_) counts_[value] += n;
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
  std::vector<std::pair<uint16_t, uint64_t>> values(counts_.begin(),
                                                    counts_.end());
  std::sort(values.begin(), values.end());
  uint64_t seen = 0;
  for (const auto& [value, n] : values) {
    seen += n;
    if (seen >= rank) return value;
  }
  return max_;
}

}  // namespace hwt::analysis
