// The merging call-tree trie; see merge_tree.h.
#include "analysis/saved/merge_tree.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace hwt::analysis::internal {

MergeTree::MergeTree() { nodes_.emplace_back(); }

void MergeTree::Add(const CallTree& tree,
                    const std::vector<uint32_t>& image_map,
                    const std::vector<uint32_t>& block_map) {
  if (tree.nodes.empty()) return;
  std::vector<uint32_t> id(tree.nodes.size(), 0);
  for (uint32_t i = 0; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    if (i != 0) {
      const ChildKey key{id[n.parent], MapFrame(n.frame, image_map)};
      auto [it, inserted] =
          children_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
      if (inserted) {
        Node node;
        node.parent = key.parent;
        node.frame = key.frame;
        nodes_.push_back(node);
      }
      id[i] = it->second;
    }
    Node& out = nodes_[id[i]];
    out.calls += n.calls;
    out.gaps += n.gaps;
    out.self_insns += n.self_insns;
    out.self_time += n.self_time;
  }
  for (const CallTree::NodeBlock& nb : tree.node_blocks) {
    const uint32_t block = block_map.empty() ? nb.block : block_map[nb.block];
    const uint64_t key = (static_cast<uint64_t>(id[nb.node]) << 32) | block;
    Counts& c = node_blocks_[key];
    c.count += nb.count;
    c.time += nb.time;
  }
}

CallTree MergeTree::Finish(const std::vector<uint32_t>& final_image,
                           const std::vector<uint32_t>& final_block) const {
  const uint32_t n = static_cast<uint32_t>(nodes_.size());
  std::vector<FrameKey> frames(n);
  for (uint32_t i = 0; i < n; ++i) {
    frames[i] = MapFrame(nodes_[i].frame, final_image);
  }
  // Children lists, each sorted by final frame.
  std::vector<uint32_t> begin(n + 1, 0);
  for (uint32_t i = 1; i < n; ++i) ++begin[nodes_[i].parent + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<uint32_t> kids(n == 0 ? 0 : n - 1);
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for (uint32_t i = 1; i < n; ++i) kids[fill[nodes_[i].parent]++] = i;
  for (uint32_t i = 0; i < n; ++i) {
    std::sort(kids.begin() + begin[i], kids.begin() + begin[i + 1],
              [&](uint32_t a, uint32_t b) { return frames[a] < frames[b]; });
  }
  // Preorder numbering.
  CallTree tree;
  tree.nodes.resize(n);
  std::vector<uint32_t> new_id(n, 0);
  std::vector<uint32_t> stack = {0};
  uint32_t next = 0;
  while (!stack.empty()) {
    const uint32_t old = stack.back();
    stack.pop_back();
    const uint32_t id = next++;
    new_id[old] = id;
    CallTree::Node& out = tree.nodes[id];
    const Node& in = nodes_[old];
    out.frame = frames[old];
    out.parent = old == 0 ? 0 : new_id[in.parent];
    out.depth = old == 0 ? 0 : tree.nodes[out.parent].depth + 1;
    out.calls = in.calls;
    out.gaps = in.gaps;
    out.self_insns = in.self_insns;
    out.self_time = in.self_time;
    for (uint32_t k = begin[old + 1]; k-- > begin[old];) {
      stack.push_back(kids[k]);
    }
  }
  // Ends and totals, children before parents.
  for (CallTree::Node& node : tree.nodes) {
    node.total_insns = node.self_insns;
    node.total_time = node.self_time;
  }
  for (uint32_t i = 0; i < n; ++i) tree.nodes[i].end = i + 1;
  for (uint32_t i = n; i-- > 1;) {
    CallTree::Node& parent = tree.nodes[tree.nodes[i].parent];
    parent.total_insns += tree.nodes[i].total_insns;
    parent.total_time += tree.nodes[i].total_time;
    parent.end = std::max(parent.end, tree.nodes[i].end);
  }
  tree.node_blocks.reserve(node_blocks_.size());
  for (const auto& [key, counts] : node_blocks_) {
    const uint32_t node = new_id[key >> 32];
    const uint32_t old_block = static_cast<uint32_t>(key & 0xffffffffu);
    const uint32_t block =
        final_block.empty() ? old_block : final_block[old_block];
    tree.node_blocks.push_back({node, block, counts.count, counts.time});
  }
  std::sort(tree.node_blocks.begin(), tree.node_blocks.end(),
            [](const CallTree::NodeBlock& a, const CallTree::NodeBlock& b) {
              return std::tie(a.node, a.block) < std::tie(b.node, b.block);
            });
  return tree;
}

}  // namespace hwt::analysis::internal
