// The model of a control-flow profile's HTML report; see profile_model.h.
#include "report/html/profile_model.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "analysis/tree_functions.h"
#include "base/json_text.h"
#include "report/html/capture_model.h"
#include "report/html/html_page.h"
#include "report/html/spe_model.h"
#include "report/listing/decode_stats.h"
#include "report/profile/annotate.h"
#include "report/profile/top_table.h"
#include "report/tree/profile_filter.h"

namespace hwt::report::html {
namespace {

using nlohmann::json;

// The frames the model refers to, each once, numbered in the order first
// used; written as columns.
class ModelFrames {
 public:
  explicit ModelFrames(const FrameTable& table) : table_(table) {}

  uint32_t Id(uint32_t table_id) {
    auto [it, added] = ids_.try_emplace(table_id, used_.size());
    if (added) used_.push_back(table_id);
    return it->second;
  }

  // The model's id of a frame already used, or -1.
  int64_t Find(uint32_t table_id) const {
    auto it = ids_.find(table_id);
    return it == ids_.end() ? -1 : int64_t{it->second};
  }

  json Json() const {
    json name = json::array(), image = json::array(), category = json::array(),
         inlined = json::array(), file = json::array(), line = json::array();
    for (uint32_t id : used_) {
      const NamedFrame& f = table_[id];
      name.push_back(f.name);
      image.push_back(f.image);
      category.push_back(static_cast<int>(f.category));
      inlined.push_back(f.inlined ? 1 : 0);
      file.push_back(f.file);
      line.push_back(f.line);
    }
    return {{"name", std::move(name)},         {"image", std::move(image)},
            {"category", std::move(category)}, {"inlined", std::move(inlined)},
            {"file", std::move(file)},         {"line", std::move(line)}};
  }

 private:
  const FrameTable& table_;
  absl::flat_hash_map<uint32_t, uint32_t> ids_;
  std::vector<uint32_t> used_;
};

json Categories() {
  json out = json::array();
  for (int c = 0; c < kFrameCategoryCount; ++c) {
    out.push_back(
        std::string(FrameCategoryName(static_cast<FrameCategory>(c))));
  }
  return out;
}

// The tree's nodes in preorder as columns, without the nodes below the
// pruning width (and so without their subtrees).
void AddTreeColumns(const NamedTree& tree, double prune_fraction,
                    ModelFrames& frames, json& model,
                    const std::vector<int64_t>* delta = nullptr) {
  json frame = json::array(), depth = json::array(), self = json::array(),
       total = json::array(), calls = json::array(), gaps = json::array(),
       deltas = json::array();
  const double min_total = prune_fraction * static_cast<double>(tree.total());
  uint64_t pruned_nodes = 0, pruned_weight = 0;
  for (uint32_t i = 0; i < tree.nodes.size();) {
    const NamedTree::Node& n = tree.nodes[i];
    const bool narrow =
        prune_fraction > 0 &&
        (n.total == 0 || static_cast<double>(n.total) < min_total);
    if (i != 0 && narrow) {
      pruned_nodes += n.end - i;
      pruned_weight += n.total;
      i = n.end;
      continue;
    }
    frame.push_back(
        n.frame == NamedTree::kNoFrame ? -1 : int64_t{frames.Id(n.frame)});
    depth.push_back(n.depth);
    self.push_back(n.self);
    total.push_back(n.total);
    calls.push_back(n.calls);
    gaps.push_back(n.gaps);
    if (delta != nullptr) deltas.push_back(i < delta->size() ? (*delta)[i] : 0);
    ++i;
  }
  model["tree"] = {
      {"frame", std::move(frame)},      {"depth", std::move(depth)},
      {"self", std::move(self)},        {"total", std::move(total)},
      {"calls", std::move(calls)},      {"gaps", std::move(gaps)},
      {"nodes", tree.nodes.size()},     {"pruned_nodes", pruned_nodes},
      {"pruned_weight", pruned_weight}, {"prune_fraction", prune_fraction}};
  if (delta != nullptr) model["tree"]["delta"] = std::move(deltas);
}

json ProfileSummary(const ProfileModelInputs& in) {
  const analysis::Profile& p = *in.profile;
  json gaps = json::object();
  for (size_t r = 0; r < p.stats.gaps_by_reason.size(); ++r) {
    if (p.stats.gaps_by_reason[r] == 0) continue;
    gaps[std::string(GapReasonName(static_cast<GapReason>(r)))] =
        p.stats.gaps_by_reason[r];
  }
  const WeightUnit& time_unit = in.time_unit;
  const bool sampled = p.counts == analysis::ProfileCounts::kSamples;
  json out = {
      {"unit", in.unit.name},
      {"scale", in.unit.scale},
      {"weight", in.unit.weight == Weight::kTime ? "time"
                 : sampled                       ? "samples"
                                                 : "instructions"},
      {"instructions", p.stats.instructions},
      {"blocks", p.stats.blocks},
      {"events", p.stats.events},
      {"threads", p.threads.size()},
      {"gaps", p.stats.gaps},
      {"gaps_by_reason", std::move(gaps)},
      {"disables", p.stats.disables},
      {"exceptions", p.stats.exceptions},
      {"unknown_region_blocks", p.stats.unknown_region_blocks},
      {"has_time", p.has_time},
      {"filters", in.filters},
      {"inline_frames", in.tree_options.inline_frames},
  };
  if (p.has_time) {
    out["time"] = {{"ticks", p.stats.time},
                   {"unit", time_unit.name},
                   {"scale", time_unit.scale}};
  }
  return out;
}

// The call edges between frames the page has (those of the embedded tree
// and of the annotations): a function narrower than the pruning width is
// left out of its callers' and callees' lists too.
json CallEdges(const analysis::TreeFunctions& functions, ProfileNames& names,
               const ModelFrames& frames) {
  json out = json::array();
  for (const analysis::CallEdge& e : functions.call_edges) {
    if (e.count == 0) continue;
    const int64_t caller = frames.Find(names.Frame(e.caller));
    const int64_t callee = frames.Find(names.Frame(e.callee));
    if (caller < 0 || callee < 0) continue;
    out.push_back({caller, callee, e.count});
  }
  return out;
}

json AnnotationJson(const AnnotatedFunction& f, uint32_t frame) {
  json rows = json::array();
  for (const AnnotatedInstruction& i : f.instructions) {
    // [address, count, text, source, kind, taken, not taken]: kind 1 =
    // a reached conditional branch, 2 = one never reached.
    const int kind = i.branch_counts ? 1 : i.never_reached ? 2 : 0;
    json row = {absl::StrFormat("0x%x", i.address),
                i.count,
                i.text,
                i.source,
                kind,
                i.taken,
                i.not_taken};
    // Trailing empty fields are left out (most rows have no source line
    // and no branch counts).
    while (row.size() > 3 && (row.back() == 0 || row.back() == "")) {
      row.erase(row.size() - 1);
    }
    rows.push_back(std::move(row));
  }
  json out = {{"frame", frame},
              {"name", f.name},
              {"image", f.image},
              {"start", absl::StrFormat("0x%x", f.start)},
              {"end", absl::StrFormat("0x%x", f.end)},
              {"executed", f.executed},
              {"all_instructions", f.all_instructions},
              {"rows", std::move(rows)}};
  if (f.has_stats) {
    out["calls"] = f.calls;
    out["self"] = f.self;
    out["total"] = f.total;
  }
  if (!f.no_code.empty()) out["no_code"] = f.no_code;
  return out;
}

// --annotate's rows for the functions with the most instructions of their
// own (counted in instructions whatever the weight, as --annotate counts).
json Annotations(const ProfileModelInputs& in,
                 const analysis::TreeFunctions& functions,
                 const HtmlOptions& options, ModelFrames& frames) {
  json out = json::array();
  if (in.symbolizer == nullptr || in.expansion == nullptr) return out;
  std::vector<const analysis::FunctionStats*> ranked;
  for (const analysis::FunctionStats& f : functions.functions) {
    if (f.frame.kind == analysis::FrameKind::kFunction && f.self_insns != 0) {
      ranked.push_back(&f);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) {
    return a->self_insns > b->self_insns;
  });
  FunctionAnnotator annotator(*in.symbolizer, *in.profile, *in.expansion,
                              *in.names);
  size_t instructions = 0;
  for (const analysis::FunctionStats* f : ranked) {
    if (out.size() >= options.annotated_functions) break;
    const symbolizer::FunctionSymbol* symbol =
        in.symbolizer->FunctionFor(f->frame.image, f->frame.start);
    if (symbol == nullptr || symbol->start != f->frame.start) continue;
    AnnotatedFunction annotated = annotator.Annotate({f->frame.image, symbol});
    instructions += annotated.instructions.size();
    if (instructions > options.max_annotated_instructions && !out.empty()) {
      break;
    }
    out.push_back(
        AnnotationJson(annotated, frames.Id(in.names->Frame(f->frame))));
  }
  return out;
}

}  // namespace

void AddTree(const NamedTree& tree, const FrameTable& table,
             double prune_fraction, json& model,
             const std::vector<int64_t>* delta) {
  ModelFrames frames(table);
  AddTreeColumns(tree, prune_fraction, frames, model, delta);
  model["frames"] = frames.Json();
  model["categories"] = Categories();
}

json ProfileModel(const ProfileModelInputs& in, const HtmlOptions& options) {
  ProfileNames& names = *in.names;
  json model = {{"format", "hwt-report-html"},
                {"version", kModelVersion},
                {"kind", "profile"},
                {"title", in.title}};
  if (in.capture != nullptr) {
    model["capture"] = CaptureJson(*in.capture);
  } else if (in.saved != nullptr && in.saved->sources.size() == 1) {
    model["capture"] = CaptureJson(in.saved->sources[0], in.saved->images);
  }
  if (!in.captures.empty()) model["captures"] = CapturesJson(in.captures);
  DecodeSummary summary;
  summary.capture = in.capture;
  summary.streams = in.streams;
  summary.stats = in.stats;
  summary.warnings = in.warnings;
  model["decode"] = json::parse(FormatDecodeStatsJson(summary));
  model["profile"] = ProfileSummary(in);

  const NamedTree tree = BuildNamedTree(*in.tree, names, in.tree_options);
  ModelFrames frames(names.frames());
  AddTreeColumns(tree, options.prune_fraction, frames, model);
  model["categories"] = Categories();

  const analysis::TreeFunctions functions = analysis::FunctionsOfTree(*in.tree);
  TopOptions top;
  top.rows = options.top_rows;
  top.count_name = in.unit.name;
  top.weight = in.unit.weight;
  top.scale = in.unit.scale;
  model["top"] = TopTableJson(functions, names, top);
  if (in.expansion != nullptr) {
    HotOptions hot = in.hot;
    hot.rows = options.hot_rows;
    model["hot"] =
        HotReportJson(*in.profile, *in.expansion, *in.tree, names, hot);
  }
  model["annotations"] = Annotations(in, functions, options, frames);
  model["call_edges"] = CallEdges(functions, names, frames);
  model["limits"] = {{"top_rows", options.top_rows},
                     {"hot_rows", options.hot_rows},
                     {"annotated_functions", options.annotated_functions}};
  model["frames"] = frames.Json();
  if (in.spe != nullptr) {
    AddSpeSections(*in.spe, &names.symbols(), options.hot_rows, model);
  }
  return model;
}

std::string RenderProfileReport(const ProfileModelInputs& inputs,
                                const HtmlOptions& options) {
  return RenderPage(
      inputs.title + " - hwt-report",
      JsonText(ProfileModel(inputs, options), JsonLayout::kOneLine));
}

}  // namespace hwt::report::html
