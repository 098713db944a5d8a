// The SPE sample report (hwt-report --spe): text tables and JSON for
// samples per function and instruction, latency distributions, event and
// operation breakdowns, data sources and data hot spots (cache lines,
// pages, data symbols), from SPE's extension of the profile. The flame
// graph, folded stacks and every other shared output of SPE samples come
// from the shared profile (analysis/sample_profile.h).
#ifndef HWT_REPORT_SPE_SPE_REPORT_H_
#define HWT_REPORT_SPE_SPE_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/spe_profile.h"
#include "nlohmann/json.hpp"
#include "report/spe/spe_symbols.h"

namespace hwt::report {

struct SpeReportOptions {
  size_t top = 20;  // rows per list (0 = all)
};

// Data addresses inside images grouped by the symbol containing them (or,
// without one, per image as "[image data]"), at report time.
struct SpeDataSymbolRow {
  uint32_t image = analysis::kNoImage;
  std::string name;
  uint64_t start = 0;  // symbol start (0 without a symbol)
  bool has_symbol = false;
  analysis::SpeSampleCounters counters;
};
std::vector<SpeDataSymbolRow> AggregateDataSymbols(
    const analysis::SpeProfile& profile, ProfileSymbols* symbols);

std::string FormatSpeReportText(const analysis::SpeProfile& profile,
                                ProfileSymbols* symbols,
                                const SpeReportOptions& options = {});
nlohmann::json SpeReportJson(const analysis::SpeProfile& profile,
                             ProfileSymbols* symbols,
                             const SpeReportOptions& options = {});
// Pretty-printed SpeReportJson plus a newline.
std::string FormatSpeReportJson(const analysis::SpeProfile& profile,
                                ProfileSymbols* symbols,
                                const SpeReportOptions& options = {});

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_REPORT_H_
