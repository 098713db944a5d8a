// Text call trees; see callgraph_text.h.
#include "report/profile/callgraph_text.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

std::string FrameLabel(const NamedFrame& f) {
  std::string label = f.name;
  if (f.inlined) absl::StrAppend(&label, " [inlined]");
  if (!f.image.empty() && f.category != FrameCategory::kUser) {
    absl::StrAppend(&label, " (", f.image, ")");
  }
  return label;
}

bool Shown(uint64_t weight, uint64_t total, double min_percent) {
  return min_percent <= 0 ||
         (total != 0 && 100.0 * weight / total >= min_percent);
}

}  // namespace

std::string RenderTopDownText(const NamedTree& tree, const FrameTable& frames,
                              const CallGraphTextOptions& options) {
  const uint64_t total = tree.total();
  std::string out = absl::StrFormat(
      "Top-down call tree: %s %s in total%s\n\n",
      ScaledCount(total, options.scale), options.count_name,
      options.min_percent > 0 ? absl::StrFormat(" (frames below %g%% left out)",
                                                options.min_percent)
                              : "");
  TextTable table({TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kLeft});
  table.AddRow({"total%", "total", "self", "calls", "frame"});
  if (tree.nodes.empty()) return out + table.Render();
  // Depth-first, children by total (heaviest first), then name.
  std::vector<uint32_t> stack = {0};
  std::vector<uint32_t> kids;
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    const NamedTree::Node& n = tree.nodes[i];
    if (i != 0) {
      const NamedFrame& f = frames[n.frame];
      std::string label = std::string(2 * (n.depth - 1), ' ') + FrameLabel(f);
      if (n.gaps != 0) absl::StrAppend(&label, " x", Thousands(n.gaps));
      table.AddRow({Percent(n.total, total),
                    ScaledCount(n.total, options.scale),
                    ScaledCount(n.self, options.scale),
                    n.calls != 0 ? Thousands(n.calls) : "-", label});
    } else {
      table.AddRow({Percent(n.total, total),
                    ScaledCount(n.total, options.scale),
                    ScaledCount(n.self, options.scale), "-", "all"});
    }
    kids.clear();
    for (uint32_t c = i + 1; c < n.end; c = tree.nodes[c].end) {
      const NamedTree::Node& child = tree.nodes[c];
      const bool gap = frames[child.frame].category == FrameCategory::kGap;
      if (gap ? child.gaps == 0
              : child.total == 0 ||
                    !Shown(child.total, total, options.min_percent)) {
        continue;
      }
      kids.push_back(c);
    }
    std::sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
      if (tree.nodes[a].total != tree.nodes[b].total) {
        return tree.nodes[a].total > tree.nodes[b].total;
      }
      return a < b;  // preorder = by name
    });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return out + table.Render();
}

std::string RenderBottomUpText(const NamedTree& tree, const FrameTable& frames,
                               const CallGraphTextOptions& options) {
  // The inverted tree: a node per (callee chain), keyed by frame, weighted
  // by the self weight of the stacks ending in that chain.
  struct Node {
    uint32_t frame = NamedTree::kNoFrame;
    uint64_t weight = 0;
    std::map<uint32_t, uint32_t> children;  // frame -> node
  };
  std::vector<Node> inv(1);
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const NamedTree::Node& n = tree.nodes[i];
    if (n.self == 0) continue;
    inv[0].weight += n.self;
    uint32_t at = 0;
    for (uint32_t k = i; k != 0; k = tree.nodes[k].parent) {
      const uint32_t frame = tree.nodes[k].frame;
      auto it = inv[at].children.find(frame);
      uint32_t next;
      if (it == inv[at].children.end()) {
        next = static_cast<uint32_t>(inv.size());
        inv[at].children.emplace(frame, next);
        inv.push_back(Node{frame, 0, {}});
      } else {
        next = it->second;
      }
      inv[next].weight += n.self;
      at = next;
    }
  }
  const uint64_t total = inv[0].weight;
  std::string out = absl::StrFormat(
      "Bottom-up (callers of each function): %s %s in total%s\n\n",
      ScaledCount(total, options.scale), options.count_name,
      options.min_percent > 0
          ? absl::StrFormat(" (entries below %g%% left out)",
                            options.min_percent)
          : "");
  TextTable table({TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kLeft});
  table.AddRow({"self%", "self", "function / called from"});
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, depth)
  auto push_children = [&](uint32_t node, uint32_t depth) {
    std::vector<uint32_t> kids;
    for (const auto& [frame, child] : inv[node].children) {
      if (Shown(inv[child].weight, total, options.min_percent)) {
        kids.push_back(child);
      }
    }
    std::sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
      if (inv[a].weight != inv[b].weight) return inv[a].weight > inv[b].weight;
      return frames[inv[a].frame].name < frames[inv[b].frame].name;
    });
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      stack.emplace_back(*it, depth);
    }
  };
  push_children(0, 0);
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    const Node& n = inv[node];
    table.AddRow({Percent(n.weight, total),
                  ScaledCount(n.weight, options.scale),
                  std::string(2 * depth, ' ') + (depth == 0 ? "" : "<- ") +
                      FrameLabel(frames[n.frame])});
    push_children(node, depth + 1);
  }
  return out + table.Render();
}

}  // namespace hwt::report
