// The model of the differential HTML report (hwt-report --diff BASE NEW
// --html): the new profile's named call tree with, per node, the change
// from the base (StackDeltas: what the differential flame graph SVG colours
// by), and the table of the functions that changed most (DiffJson: what
// `--diff --top N --format json` prints). docs/html-report.md describes it.
#ifndef HWT_REPORT_HTML_DIFF_MODEL_H_
#define HWT_REPORT_HTML_DIFF_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "report/html/profile_model.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report::html {

struct DiffModelInputs {
  std::string base_name, new_name;  // the inputs' base names
  const NamedTree* tree = nullptr;  // the new profile's
  const FrameTable* frames = nullptr;
  std::vector<int64_t> delta;  // per node of `tree`
  bool absolute = false;       // counts, not shares of each total
  nlohmann::json changes;      // DiffJson
};

nlohmann::json DiffModel(const DiffModelInputs& inputs,
                         const HtmlOptions& options = {});
std::string RenderDiffReport(const DiffModelInputs& inputs,
                             const HtmlOptions& options = {});

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_DIFF_MODEL_H_
