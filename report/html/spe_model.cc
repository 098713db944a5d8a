// The model of an SPE capture's HTML report; see spe_model.h.
#include "report/html/spe_model.h"

#include "base/json_text.h"
#include "report/html/capture_model.h"
#include "report/html/html_page.h"
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

nlohmann::json SpeModel(const SpeModelInputs& in, const HtmlOptions& options) {
  const analysis::SpeProfile& profile = in.result->profile;
  nlohmann::json model = {{"format", "hwt-report-html"},
                          {"version", kModelVersion},
                          {"kind", "spe"},
                          {"title", in.title},
                          {"capture", CaptureJson(*in.capture)},
                          {"spe_stats", SpeCaptureStatsJson(in.result->stats)}};
  SpeReportOptions spe;
  spe.top = options.hot_rows;
  model["spe"] = SpeReportJson(profile, in.symbols, spe);
  // The distributions behind the report's percentiles, in cycles.
  model["latency_histograms"] = {
      {"total", Histogram(profile.all.latencies.total)},
      {"issue", Histogram(profile.all.latencies.issue)},
      {"translation", Histogram(profile.all.latencies.translation)}};
  // The flame graph as hwt-report --flame draws SPE samples: by image and
  // function.
  FrameTable frames;
  const NamedTree tree = NamedTreeFromStacks(
      SpeSampleStacks(profile, in.symbols), frames, [](std::string_view root) {
        return CategoryOfImage(root, root == "[kernel]");
      });
  AddTree(tree, frames, options.prune_fraction, model);
  model["profile"] = {{"unit", "samples"},
                      {"scale", 1.0},
                      {"weight", "samples"},
                      {"samples", profile.samples}};
  model["limits"] = {{"spe_rows", options.hot_rows}};
  return model;
}

std::string RenderSpeReport(const SpeModelInputs& inputs,
                            const HtmlOptions& options) {
  return RenderPage(inputs.title + " - hwt-report",
                    JsonText(SpeModel(inputs, options), JsonLayout::kOneLine));
}

}  // namespace hwt::report::html
