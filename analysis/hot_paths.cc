// Hot call paths and hot intra-procedural paths (see hot_paths.h).
#include "analysis/hot_paths.h"

#include <algorithm>

namespace hwt::analysis {

std::vector<HotCallPath> HotCallPaths(const CallTree& tree, size_t limit,
                                      bool by_time) {
  std::vector<HotCallPath> all;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    if ((by_time ? n.self_time : n.self_insns) == 0) continue;
    all.push_back({i, n.self_insns, n.self_time});
  }
  auto weight = [by_time](const HotCallPath& p) {
    return by_time ? p.time : p.insns;
  };
  const size_t keep = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + keep, all.end(),
                    [&](const HotCallPath& a, const HotCallPath& b) {
                      if (weight(a) != weight(b)) return weight(a) > weight(b);
                      return a.node < b.node;
                    });
  all.resize(keep);
  return all;
}

std::vector<const PathStats*> HotPaths(const Profile& profile, size_t limit) {
  std::vector<const PathStats*> out;
  for (size_t i = 0; i < profile.paths.size() && i < limit; ++i) {
    out.push_back(&profile.paths[i]);
  }
  return out;
}

std::vector<FrameKey> StackOf(const CallTree& tree, uint32_t node) {
  std::vector<FrameKey> frames;
  for (uint32_t n = node; n != 0; n = tree.nodes[n].parent) {
    frames.push_back(tree.nodes[n].frame);
  }
  std::reverse(frames.begin(), frames.end());
  return frames;
}

}  // namespace hwt::analysis
