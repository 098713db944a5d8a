// Report filters over events and call trees; see profile_filter.h.
#include "report/tree/profile_filter.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace hwt::report {

using analysis::CallTree;
using analysis::FrameKey;
using analysis::FrameKind;

namespace {

bool ParseNumber(absl::string_view text, uint64_t* out) {
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) {
    return absl::SimpleHexAtoi(text.substr(2), out);
  }
  return absl::SimpleAtoi(text, out);
}

// A call tree under construction from pieces of another: nodes found by
// (parent, frame), weights and block counts added up.
class CallTreeBuilder {
 public:
  CallTreeBuilder() { nodes_.emplace_back(); }

  uint32_t Child(uint32_t parent, const FrameKey& key) {
    auto [it, inserted] = index_.try_emplace(
        std::make_pair(parent, key), static_cast<uint32_t>(nodes_.size()));
    if (inserted) {
      Work w;
      w.node.frame = key;
      w.node.parent = parent;
      nodes_.push_back(std::move(w));
    }
    return it->second;
  }

  // Adds the weights (and, with `own`, the instructions and blocks) of
  // `from`'s node `n` to node `to`.
  void Add(uint32_t to, const CallTree& from, uint32_t n, bool own,
           const std::vector<std::pair<uint32_t, uint32_t>>& blocks_of) {
    const CallTree::Node& src = from.nodes[n];
    Work& w = nodes_[to];
    w.node.calls += src.calls;
    if (!own) return;
    w.node.gaps += src.gaps;
    w.node.self_insns += src.self_insns;
    w.node.self_time += src.self_time;
    for (uint32_t i = blocks_of[n].first; i < blocks_of[n].second; ++i) {
      const CallTree::NodeBlock& nb = from.node_blocks[i];
      auto& [count, time] = w.blocks[nb.block];
      count += nb.count;
      time += nb.time;
    }
  }

  CallTree Finish() {
    std::vector<std::vector<uint32_t>> children(nodes_.size());
    for (uint32_t i = 1; i < nodes_.size(); ++i) {
      children[nodes_[i].node.parent].push_back(i);
    }
    CallTree tree;
    std::vector<std::pair<uint32_t, uint32_t>> stack = {{0, 0}};
    while (!stack.empty()) {
      auto [old, parent] = stack.back();
      stack.pop_back();
      const uint32_t index = static_cast<uint32_t>(tree.nodes.size());
      CallTree::Node node = nodes_[old].node;
      node.parent = parent;
      node.depth = index == 0 ? 0 : tree.nodes[parent].depth + 1;
      node.total_insns = node.self_insns;
      node.total_time = node.self_time;
      node.end = index + 1;
      tree.nodes.push_back(node);
      for (const auto& [block, weights] : nodes_[old].blocks) {
        tree.node_blocks.push_back(
            CallTree::NodeBlock{index, block, weights.first, weights.second});
      }
      std::vector<uint32_t>& kids = children[old];
      std::sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
        return nodes_[a].node.frame < nodes_[b].node.frame;
      });
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        stack.emplace_back(*it, index);
      }
    }
    for (uint32_t i = static_cast<uint32_t>(tree.nodes.size()); i-- > 1;) {
      CallTree::Node& n = tree.nodes[i];
      CallTree::Node& p = tree.nodes[n.parent];
      p.total_insns += n.total_insns;
      p.total_time += n.total_time;
      p.end = std::max(p.end, n.end);
    }
    return tree;
  }

 private:
  struct Work {
    CallTree::Node node;
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> blocks;
  };
  std::vector<Work> nodes_;
  absl::flat_hash_map<std::pair<uint32_t, FrameKey>, uint32_t> index_;
};

// [first, last) of each node's entries in tree.node_blocks.
std::vector<std::pair<uint32_t, uint32_t>> BlockRanges(const CallTree& tree) {
  std::vector<std::pair<uint32_t, uint32_t>> ranges(tree.nodes.size(), {0, 0});
  for (uint32_t i = 0; i < tree.node_blocks.size();) {
    const uint32_t node = tree.node_blocks[i].node;
    uint32_t j = i;
    while (j < tree.node_blocks.size() && tree.node_blocks[j].node == node) ++j;
    if (node < ranges.size()) ranges[node] = {i, j};
    i = j;
  }
  return ranges;
}

}  // namespace

absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseRange(
    const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected START:END, got '", text, "'"));
  }
  std::pair<uint64_t, uint64_t> range{0, ~uint64_t{0}};
  const absl::string_view first = absl::string_view(text).substr(0, colon);
  const absl::string_view last = absl::string_view(text).substr(colon + 1);
  if ((!first.empty() && !ParseNumber(first, &range.first)) ||
      (!last.empty() && !ParseNumber(last, &range.second))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected START:END (decimal or 0x-hex numbers), got '", text, "'"));
  }
  if (range.first >= range.second) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty range '", text, "' (START must be below END)"));
  }
  return range;
}

CallTree SubtreesAt(const CallTree& tree, const FrameMatcher& match) {
  CallTreeBuilder builder;
  const auto blocks_of = BlockRanges(tree);
  constexpr uint32_t kOut = 0xffffffffu;
  std::vector<uint32_t> map(tree.nodes.size(), kOut);
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    const uint32_t parent = map[n.parent];
    if (parent != kOut) {
      map[i] = builder.Child(parent, n.frame);
    } else if (n.frame.kind != FrameKind::kGap && match(n.frame)) {
      map[i] = builder.Child(0, n.frame);
    } else {
      continue;
    }
    builder.Add(map[i], tree, i, /*own=*/true, blocks_of);
  }
  return builder.Finish();
}

CallTree StacksThrough(const CallTree& tree, const FrameMatcher& match) {
  const size_t size = tree.nodes.size();
  std::vector<char> matches(size, 0), below(size, 0), above(size, 0);
  for (uint32_t i = 1; i < size; ++i) {
    const FrameKey& key = tree.nodes[i].frame;
    matches[i] = key.kind != FrameKind::kGap && match(key);
  }
  for (uint32_t i = static_cast<uint32_t>(size); i-- > 1;) {
    below[i] |= matches[i];
    if (below[i]) below[tree.nodes[i].parent] = 1;
  }
  CallTreeBuilder builder;
  const auto blocks_of = BlockRanges(tree);
  std::vector<uint32_t> map(size, 0);
  for (uint32_t i = 1; i < size; ++i) {
    const CallTree::Node& n = tree.nodes[i];
    above[i] = matches[i] || (n.parent != 0 && above[n.parent]);
    if (!above[i] && !below[i]) continue;
    map[i] = builder.Child(map[n.parent], n.frame);
    builder.Add(map[i], tree, i, /*own=*/above[i], blocks_of);
  }
  return builder.Finish();
}

}  // namespace hwt::report
