// The SPE sections of an SPE capture's HTML report (profile_model.h gives
// the rest, from the shared profile of its samples): the SPE decode
// statistics (`hwt-decode --stats --format json`), the SPE report
// (`hwt-report --spe --format json`: samples per function and instruction,
// latency percentiles, events, operations, data sources, data hot spots)
// and the latency distributions as histograms.
#ifndef HWT_REPORT_HTML_SPE_MODEL_H_
#define HWT_REPORT_HTML_SPE_MODEL_H_

#include <cstddef>

#include "analysis/spe_profile.h"
#include "nlohmann/json.hpp"
#include "report/naming/profile_symbols.h"

namespace hwt::report::html {

// Adds "spe_stats", "spe" (with `rows` per list), "latency_histograms" and
// limits.spe_rows to `model`. `symbols` may be null.
void AddSpeSections(const analysis::SpeCaptureProfile& spe,
                    ProfileSymbols* symbols, size_t rows,
                    nlohmann::json& model);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_SPE_MODEL_H_
