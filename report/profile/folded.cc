// Folded-stack rendering (see folded.h).
#include "report/profile/folded.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace hwt::report {

using analysis::CallTree;
using analysis::FrameKey;
using analysis::FrameKind;

namespace {

// Lines "STACK WEIGHT", equal stacks summed, in bytewise order of whole
// lines (a name may contain a space).
std::string JoinStacks(std::vector<std::pair<std::string, uint64_t>> stacks) {
  std::sort(stacks.begin(), stacks.end());
  std::vector<std::string> lines;
  for (size_t i = 0; i < stacks.size();) {
    uint64_t sum = 0;
    size_t j = i;
    for (; j < stacks.size() && stacks[j].first == stacks[i].first; ++j) {
      sum += stacks[j].second;
    }
    lines.push_back(absl::StrCat(stacks[i].first, " ", sum));
    i = j;
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

}  // namespace

std::string FoldedStacks(const CallTree& tree, const FrameNamer& namer,
                         const FoldedOptions& options) {
  absl::flat_hash_map<FrameKey, std::string> names;
  auto name_of = [&](const FrameKey& key) -> const std::string& {
    auto [it, inserted] = names.try_emplace(key);
    if (inserted) it->second = namer(key);
    return it->second;
  };
  const bool by_time = options.weight == FoldedWeight::kTime;

  std::vector<std::pair<std::string, uint64_t>> stacks;
  std::string path;
  std::vector<std::pair<uint32_t, size_t>> open;  // (subtree end, length)
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    while (!open.empty() && open.back().first <= i) open.pop_back();
    path.resize(open.empty() ? 0 : open.back().second);
    if (!open.empty()) path += ';';
    path += name_of(n.frame);
    open.emplace_back(n.end, path.size());
    if (n.frame.kind == FrameKind::kGap) continue;
    const uint64_t weight = by_time ? n.self_time : n.self_insns;
    if (weight != 0) stacks.emplace_back(path, weight);
  }
  return JoinStacks(std::move(stacks));
}

std::string FoldedStacks(const NamedTree& tree, const FrameTable& frames) {
  std::vector<std::pair<std::string, uint64_t>> stacks;
  std::string path;
  std::vector<std::pair<uint32_t, size_t>> open;  // (subtree end, length)
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const NamedTree::Node& n = tree.nodes[i];
    while (!open.empty() && open.back().first <= i) open.pop_back();
    path.resize(open.empty() ? 0 : open.back().second);
    if (!open.empty()) path += ';';
    const NamedFrame& frame = frames[n.frame];
    path += frame.name;
    open.emplace_back(n.end, path.size());
    if (frame.category == FrameCategory::kGap) continue;
    if (n.self != 0) stacks.emplace_back(path, n.self);
  }
  return JoinStacks(std::move(stacks));
}

}  // namespace hwt::report
