// Folded-stack rendering (see folded.h).
#include "report/folded.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"

namespace hwt::report {

using analysis::CallTree;
using analysis::FrameKey;
using analysis::FrameKind;

std::string FoldedStacks(const CallTree& tree, const FrameNamer& namer,
                         const FoldedOptions& options) {
  absl::flat_hash_map<FrameKey, std::string> names;
  auto name_of = [&](const FrameKey& key) -> const std::string& {
    auto [it, inserted] = names.try_emplace(key);
    if (inserted) it->second = namer(key);
    return it->second;
  };
  const bool by_time = options.weight == FoldedWeight::kTime;
  const FoldedInlines* inlines = by_time ? nullptr : options.inlines;

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
    uint64_t weight = by_time ? n.self_time : n.self_insns;
    if (inlines != nullptr && weight != 0) {
      // Summed per inline suffix first, so that a node's path is copied once
      // per distinct suffix, not once per address (deep stacks are long).
      absl::flat_hash_map<std::string, uint64_t> by_suffix;
      uint64_t covered = 0;
      for (const analysis::AddressCount& a : analysis::NodeInstructionCounts(
               *inlines->profile, tree, i, *inlines->expansion)) {
        covered += a.count;
        by_suffix[absl::StrJoin(inlines->frames(a.image, a.vaddr), ";")] +=
            a.count;
      }
      // Instructions of blocks that could not be expanded stay on the node.
      by_suffix[""] += weight > covered ? weight - covered : 0;
      for (const auto& [suffix, count] : by_suffix) {
        if (count == 0) continue;
        stacks.emplace_back(
            suffix.empty() ? path : absl::StrCat(path, ";", suffix), count);
      }
      continue;
    }
    if (weight != 0) stacks.emplace_back(path, weight);
  }

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
  // Bytewise order of whole lines (a name may contain a space).
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

absl::Status WriteFoldedStacks(const std::string& path, const CallTree& tree,
                               const FrameNamer& namer,
                               const FoldedOptions& options) {
  return WriteFileAtomically(path, FoldedStacks(tree, namer, options));
}

}  // namespace hwt::report
