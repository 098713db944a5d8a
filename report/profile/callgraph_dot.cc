// Graphviz call graphs; see callgraph_dot.h.
#include "report/profile/callgraph_dot.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

// A DOT string literal.
std::string DotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// From pale (share 0) to strong red (share 1), as pprof does.
std::string Heat(double share, double low_light, double high_light) {
  share = std::clamp(share, 0.0, 1.0);
  const double t = std::sqrt(share);  // small shares still show
  const double light = low_light + (high_light - low_light) * t;
  const double sat = 0.15 + 0.7 * t;
  // HSL(hue 5) -> RGB.
  const double c = (1 - std::fabs(2 * light - 1)) * sat;
  const double x = c * (1 - std::fabs(std::fmod(5.0 / 60.0, 2.0) - 1));
  const double m = light - c / 2;
  auto byte = [](double v) {
    return std::clamp(static_cast<int>(std::lround(v * 255)), 0, 255);
  };
  return absl::StrFormat("#%02x%02x%02x", byte(c + m), byte(x + m), byte(m));
}

}  // namespace

std::string RenderCallGraphDot(const analysis::TreeFunctions& functions,
                               ProfileNames& names,
                               const CallGraphDotOptions& options) {
  const bool by_time = options.weight == Weight::kTime;
  auto self_of = [&](const analysis::FunctionStats& f) {
    return by_time ? f.self_time : f.self_insns;
  };
  auto total_of = [&](const analysis::FunctionStats& f) {
    return by_time ? f.total_time : f.total_insns;
  };
  uint64_t grand = 0;  // every weight is someone's self weight
  for (const auto& f : functions.functions) grand += self_of(f);
  auto shown = [&](uint64_t w, double percent) {
    return w != 0 && (percent <= 0 || 100.0 * w / grand >= percent);
  };
  auto value = [&](uint64_t w) {
    return Thousands(static_cast<uint64_t>(std::llround(w * options.scale)));
  };

  std::string out = "digraph callgraph {\n";
  absl::StrAppendFormat(
      &out,
      "  graph [fontname=\"DejaVu Sans\", fontsize=14, labelloc=t, "
      "label=%s, rankdir=TB, nodesep=0.3, ranksep=0.45];\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu "
      "Sans\", penwidth=1, color=\"#7a7a7a\"];\n"
      "  edge [fontname=\"DejaVu Sans\", fontsize=9, arrowsize=0.7];\n",
      DotQuote(absl::StrCat(options.title, options.title.empty() ? "" : "\n",
                            value(grand), " ", options.count_name,
                            " in total; boxes: self / total, edges: calls")));

  absl::flat_hash_map<analysis::FrameKey, size_t> ids;
  absl::flat_hash_map<analysis::FrameKey, uint64_t> totals;
  for (const analysis::FunctionStats& f : functions.functions) {
    totals[f.frame] = total_of(f);
    if (!shown(total_of(f), options.node_percent)) continue;
    const size_t id = ids.size();
    ids.emplace(f.frame, id);
    const NamedFrame& frame = names.frames()[names.Frame(f.frame)];
    const double self_share = grand ? double(self_of(f)) / grand : 0;
    const double total_share = grand ? double(total_of(f)) / grand : 0;
    std::string label = frame.name;
    if (!frame.image.empty() && frame.category != FrameCategory::kUser) {
      absl::StrAppend(&label, "\n(", frame.image, ")");
    }
    absl::StrAppend(&label, "\nself ", value(self_of(f)), " (",
                    Percent(self_of(f), grand), ")\ntotal ", value(total_of(f)),
                    " (", Percent(total_of(f), grand), ")");
    if (f.calls != 0)
      absl::StrAppend(&label, "\n", Thousands(f.calls),
                      f.calls == 1 ? " call" : " calls");
    absl::StrAppendFormat(
        &out, "  n%d [label=%s, fontsize=%.1f, fillcolor=\"%s\"];\n", id,
        DotQuote(label), 9.0 + 15.0 * std::sqrt(self_share),
        Heat(total_share, 0.96, 0.62));
  }
  for (const analysis::CallEdge& e : functions.call_edges) {
    auto from = ids.find(e.caller);
    auto to = ids.find(e.callee);
    if (from == ids.end() || to == ids.end()) continue;
    // The callee's total approximates the weight that flows over the edge.
    const uint64_t weight = totals[e.callee];
    if (!shown(weight, options.edge_percent)) continue;
    const double share = grand ? double(weight) / grand : 0;
    absl::StrAppendFormat(
        &out, "  n%d -> n%d [label=%s, penwidth=%.2f, color=\"%s\"];\n",
        from->second, to->second,
        DotQuote(absl::StrCat(Thousands(e.count),
                              e.count == 1 ? " call" : " calls")),
        1.0 + 4.0 * std::sqrt(share), Heat(share, 0.70, 0.35));
  }
  out += "}\n";
  return out;
}

}  // namespace hwt::report
