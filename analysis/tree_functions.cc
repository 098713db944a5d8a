// The functions and call edges of a call tree; see tree_functions.h.
#include "analysis/tree_functions.h"

#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace hwt::analysis {

TreeFunctions FunctionsOfTree(const CallTree& tree) {
  std::map<FrameKey, FunctionStats> functions;
  std::map<std::pair<FrameKey, FrameKey>, uint64_t> edges;
  // Per frame, how many of its nodes are open on the current path: a node
  // adds its total only when it is the outermost of its frame.
  absl::flat_hash_map<FrameKey, uint32_t> active;
  std::vector<uint32_t> open;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    while (!open.empty() && tree.nodes[open.back()].end <= i) {
      --active[tree.nodes[open.back()].frame];
      open.pop_back();
    }
    if (n.frame.kind == FrameKind::kGap) continue;
    FunctionStats& f = functions[n.frame];
    f.frame = n.frame;
    f.self_insns += n.self_insns;
    f.self_time += n.self_time;
    f.calls += n.calls;
    if (active[n.frame]++ == 0) {
      f.total_insns += n.total_insns;
      f.total_time += n.total_time;
    }
    open.push_back(i);
    if (n.calls != 0 && n.parent != 0) {
      edges[{tree.nodes[n.parent].frame, n.frame}] += n.calls;
    }
  }
  TreeFunctions out;
  out.functions.reserve(functions.size());
  for (auto& [key, f] : functions) out.functions.push_back(f);
  for (auto& [key, count] : edges) {
    out.call_edges.push_back(CallEdge{key.first, key.second, count});
  }
  return out;
}

}  // namespace hwt::analysis
