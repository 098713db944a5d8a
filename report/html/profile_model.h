// The model of a control-flow profile's HTML report (hwt-report --html): one
// JSON document the page's scripts render, built from the same library
// functions as the text outputs, so that its numbers are theirs:
//   capture, decode   the capture's identity; the decoder's statistics as
//                     `hwt-decode --stats --format json` prints them (for
//                     a saved profile: its one capture's identity, or none
//                     for several, and the streams of all)
//   captures          a saved profile's or a batch's captures, one row each
//   profile           totals, gaps by reason, time covered, filters
//   frames, tree      the named call tree `--folded` prints (BuildNamedTree:
//                     the same tree, the same inline frames), frames named
//                     once, nodes in preorder as columns; nodes narrower
//                     than `prune_fraction` of the total are left out (their
//                     weight stays in their parents' totals)
//   top               `--top N --format json` (TopTableJson) with N = top_rows
//   call_edges        exact near-call counts between the functions above
//   hot               `--hot --format json` (HotReportJson)
//   annotations       --annotate's rows (FunctionAnnotator) for the functions
//                     with the most instructions of their own
//   spe, ...          an SPE capture's SPE tables (spe_model.h)
// docs/html-report.md describes every field.
#ifndef HWT_REPORT_HTML_PROFILE_MODEL_H_
#define HWT_REPORT_HTML_PROFILE_MODEL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "analysis/saved/saved_profile.h"
#include "analysis/spe_profile.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "nlohmann/json.hpp"
#include "report/html/capture_model.h"
#include "report/naming/symbolized_profile.h"
#include "report/naming/weight_unit.h"
#include "report/profile/hot_report.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report::html {

struct HtmlOptions {
  // Tree nodes whose total is below this share of the whole are not
  // embedded (0 keeps every node): a 1200-pixel flame graph could not show
  // them wider than a tenth of a pixel.
  double prune_fraction = 1.0 / 12000;
  size_t top_rows = 500;            // per top list (0 = all)
  size_t hot_rows = 50;             // per --hot section (0 = all)
  size_t annotated_functions = 50;  // disassembly for this many functions
  // ... while their instructions add up to at most this many.
  size_t max_annotated_instructions = 25000;
};

struct ProfileModelInputs {
  // The capture, or else the saved profile (one or many captures merged).
  const capture::Capture* capture = nullptr;
  const analysis::SavedProfile* saved = nullptr;
  // The table of captures (a saved profile's, a batch's with the failed
  // ones and links to their reports); empty: none shown.
  std::vector<CaptureRow> captures;
  // The unit of the time the trace covers (TimeUnitOf).
  WeightUnit time_unit;
  std::string title;  // the input's base name
  const analysis::Profile* profile = nullptr;
  // The tree the reports show (the merged tree, or a filtered one).
  const analysis::CallTree* tree = nullptr;
  // Needed for --hot and the annotations (left out without it).
  const analysis::BlockExpansion* expansion = nullptr;
  ProfileNames* names = nullptr;
  // For the annotated disassembly (left out without it).
  symbolizer::Symbolizer* symbolizer = nullptr;
  WeightUnit unit;
  // The named tree's options as --folded uses them.
  NamedTreeOptions tree_options;
  // Restricts --hot as hwt-report does for --function / --image.
  HotOptions hot;
  std::vector<StreamInfo> streams;
  std::vector<StreamStats> stats;  // per stream
  std::vector<std::string> warnings;
  std::vector<std::string> filters;  // "thread 0", "under /main/", ...
  // An SPE capture's extension: the SPE tables (spe_model.h); null for
  // other inputs.
  const analysis::SpeCaptureProfile* spe = nullptr;
};

nlohmann::json ProfileModel(const ProfileModelInputs& inputs,
                            const HtmlOptions& options = {});

// The whole page of ProfileModel.
std::string RenderProfileReport(const ProfileModelInputs& inputs,
                                const HtmlOptions& options = {});

// The tree and frames parts alone (also for the SPE report's and the
// differential report's flame graphs): adds "frames" and "tree" to
// `model`; with `delta` (one per node of `tree`) the tree gets a "delta"
// column, which the page colours by.
void AddTree(const NamedTree& tree, const FrameTable& frames,
             double prune_fraction, nlohmann::json& model,
             const std::vector<int64_t>* delta = nullptr);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_PROFILE_MODEL_H_
