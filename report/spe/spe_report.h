// SPE profile reports: text tables and JSON for samples per function and
// instruction, latency distributions, event and operation breakdowns, data
// sources and data hot spots (cache lines, pages, data symbols), and folded
// "image;function count" lines for the flame-graph renderer.
#ifndef HWT_REPORT_SPE_SPE_REPORT_H_
#define HWT_REPORT_SPE_SPE_REPORT_H_

#include <cstddef>
#include <string>
#include <utility>
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
  uint32_t image = analysis::kSpeNoImage;
  std::string name;
  uint64_t start = 0;  // symbol start (0 without a symbol)
  bool has_symbol = false;
  analysis::SpeSampleCounters counters;
};
std::vector<SpeDataSymbolRow> AggregateDataSymbols(
    const analysis::SpeProfile& profile, SpeSymbolSource* symbols);

std::string FormatSpeReportText(const analysis::SpeProfile& profile,
                                SpeSymbolSource* symbols,
                                const SpeReportOptions& options = {});
nlohmann::json SpeReportJson(const analysis::SpeProfile& profile,
                             SpeSymbolSource* symbols,
                             const SpeReportOptions& options = {});
// Pretty-printed SpeReportJson plus a newline.
std::string FormatSpeReportJson(const analysis::SpeProfile& profile,
                                SpeSymbolSource* symbols,
                                const SpeReportOptions& options = {});

// The samples as stacks of names, root first: the image's base name, then
// the function (an SPE sample records no call stack); samples outside every
// image are one frame, "[unknown]" or "[kernel]". In the bytewise order of
// their folded lines. The flame graphs are drawn from these, and the folded
// text is written from them.
using SpeSampleStack = std::pair<std::vector<std::string>, uint64_t>;
std::vector<SpeSampleStack> SpeSampleStacks(const analysis::SpeProfile& profile,
                                            SpeSymbolSource* symbols);

// One line per function: "IMAGE;FUNCTION SAMPLES", SpeSampleStacks' order.
std::string FormatSpeFolded(const analysis::SpeProfile& profile,
                            SpeSymbolSource* symbols);

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_REPORT_H_
