// The SPE sections of the HTML report; see spe_model.h.
#include "report/html/spe_model.h"

#include <cstdint>
#include <vector>

#include "report/spe/spe_report.h"
#include "report/spe/spe_stats_report.h"

namespace hwt::report::html {
namespace {

// A latency distribution in power-of-two buckets: [0, 1], [2, 3], [4, 7],
// ... each as {"low", "high", "samples"}, from the lowest to the highest
// non-empty bucket.
nlohmann::json Histogram(const analysis::LatencyDistribution& d) {
  std::vector<uint64_t> buckets(17, 0);
  for (const auto& [value, count] : d.counts()) {
    int bucket = 0;
    while (bucket < 16 && (uint32_t{1} << (bucket + 1)) <= value) ++bucket;
    buckets[bucket] += count;
  }
  size_t first = 0, last = buckets.size();
  while (first < last && buckets[first] == 0) ++first;
  while (last > first && buckets[last - 1] == 0) --last;
  nlohmann::json out = nlohmann::json::array();
  for (size_t b = first; b < last; ++b) {
    const uint32_t low = b == 0 ? 0 : uint32_t{1} << b;
    const uint32_t high = (uint32_t{1} << (b + 1)) - 1;
    out.push_back({{"low", low}, {"high", high}, {"samples", buckets[b]}});
  }
  return out;
}

}  // namespace

void AddSpeSections(const analysis::SpeCaptureProfile& spe,
                    ProfileSymbols* symbols, size_t rows,
                    nlohmann::json& model) {
  const analysis::SpeProfile& profile = spe.profile;
  model["spe_stats"] = SpeCaptureStatsJson(spe.stats);
  SpeReportOptions report;
  report.top = rows;
  model["spe"] = SpeReportJson(profile, symbols, report);
  // The distributions behind the report's percentiles, in cycles.
  model["latency_histograms"] = {
      {"total", Histogram(profile.all.latencies.total)},
      {"issue", Histogram(profile.all.latencies.issue)},
      {"translation", Histogram(profile.all.latencies.translation)}};
  model["limits"]["spe_rows"] = rows;
}

}  // namespace hwt::report::html
