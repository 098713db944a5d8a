// The differential HTML report's model; see diff_model.h.
#include "report/html/diff_model.h"

#include "absl/strings/str_cat.h"
#include "base/json_text.h"
#include "report/html/capture_model.h"
#include "report/html/html_page.h"

namespace hwt::report::html {

nlohmann::json DiffModel(const DiffModelInputs& in,
                         const HtmlOptions& options) {
  const std::string title = absl::StrCat(in.base_name, " -> ", in.new_name);
  nlohmann::json model = {
      {"format", "hwt-report-html"},
      {"version", kModelVersion},
      {"kind", "diff"},
      {"title", title},
      {"diff",
       {{"base", in.base_name},
        {"new", in.new_name},
        {"measure", in.absolute ? "absolute" : "share"},
        {"base_instructions",
         in.changes.value("base_instructions", uint64_t{0})},
        {"new_instructions",
         in.changes.value("new_instructions", uint64_t{0})}}},
      // The widths are the new profile's instructions.
      {"profile",
       {{"unit", "instructions"},
        {"scale", 1.0},
        {"instructions", in.changes.value("new_instructions", uint64_t{0})}}},
      {"changes", in.changes}};
  AddTree(*in.tree, *in.frames, options.prune_fraction, model, &in.delta);
  return model;
}

std::string RenderDiffReport(const DiffModelInputs& in,
                             const HtmlOptions& options) {
  const nlohmann::json model = DiffModel(in, options);
  return RenderPage(model["title"].get<std::string>() + " - hwt-report",
                    JsonText(model, JsonLayout::kOneLine));
}

}  // namespace hwt::report::html
