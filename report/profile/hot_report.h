// --hot: where the execution concentrates, below the level of functions:
// the hottest blocks (by instructions executed), conditional branches with
// exact taken / not-taken counts, taken branch edges, the hottest call paths
// (stacks by their own weight), the hottest intra-procedural paths, and
// loops (header, trip counts, share of all instructions). As text, and as
// JSON (the text is rendered from the JSON, so both always agree).
#ifndef HWT_REPORT_PROFILE_HOT_REPORT_H_
#define HWT_REPORT_PROFILE_HOT_REPORT_H_

#include <functional>
#include <string>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "nlohmann/json.hpp"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {

struct HotOptions {
  size_t rows = 20;  // per section; 0 = all
  // Restricts blocks, branches, paths and loops to the functions it keeps
  // (--function / --image); null keeps everything.
  std::function<bool(const analysis::FunctionId&)> keep_function;
};

// `tree` gives the hot call paths (the merged tree, or a filtered one).
nlohmann::json HotReportJson(const analysis::Profile& profile,
                             const analysis::BlockExpansion& expansion,
                             const analysis::CallTree& tree,
                             ProfileNames& names, const HotOptions& options);
std::string RenderHotReportText(const nlohmann::json& report);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_HOT_REPORT_H_
