// The model of an SPE capture's HTML report: the capture's identity, the
// SPE decode statistics (`hwt-decode --stats --format json`), the SPE report
// (`hwt-report --format json`: samples per function and instruction,
// latency histograms, events, operations, data sources, data hot spots) and
// the flame graph's tree of samples by image and function (the tree of
// `--folded`).
#ifndef HWT_REPORT_HTML_SPE_MODEL_H_
#define HWT_REPORT_HTML_SPE_MODEL_H_

#include <string>

#include "analysis/spe_profile.h"
#include "capture/capture.h"
#include "nlohmann/json.hpp"
#include "report/html/profile_model.h"
#include "report/spe/spe_symbols.h"

namespace hwt::report::html {

struct SpeModelInputs {
  const capture::Capture* capture = nullptr;
  std::string title;
  const analysis::SpeCaptureProfile* result = nullptr;
  SpeSymbolSource* symbols = nullptr;
};

nlohmann::json SpeModel(const SpeModelInputs& inputs,
                        const HtmlOptions& options = {});
std::string RenderSpeReport(const SpeModelInputs& inputs,
                            const HtmlOptions& options = {});

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_SPE_MODEL_H_
