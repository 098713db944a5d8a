// The model's tree: without pruning its columns give back exactly the
// folded stacks of the same named tree (FoldedStacks); with pruning every
// node that stays keeps the total the folded lines give its stack, and what
// goes is counted.
#include "report/html/profile_model.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "report/profile/folded.h"

namespace hwt::report::html {
namespace {

constexpr char kFolded[] =
    "[unknown] 2\n"
    "_start;main 40\n"
    "_start;main;leaf 3000\n"
    "_start;main;mid;leaf 7\n"
    "_start;main;mid;tiny 1\n"
    "_start;other;deep;deeper;deepest 500\n"
    "_start;other;leaf 1\n";

NamedTree Tree(FrameTable& frames) {
  return NamedTreeFromFolded(kFolded, frames, [](std::string_view root) {
    return CategoryOfImage(root, false);
  });
}

// The stacks of the model's tree (root first, names joined by ';') with
// their self and total weights.
struct Stacks {
  std::map<std::string, uint64_t> self, total;
};
Stacks ModelStacks(const nlohmann::json& model) {
  const nlohmann::json& tree = model["tree"];
  const nlohmann::json& names = model["frames"]["name"];
  Stacks out;
  std::vector<std::string> path;
  for (size_t i = 0; i < tree["frame"].size(); ++i) {
    const size_t depth = tree["depth"][i].get<size_t>();
    if (depth == 0) continue;  // the root
    path.resize(depth - 1);
    path.push_back(names[tree["frame"][i].get<size_t>()].get<std::string>());
    const std::string stack = absl::StrJoin(path, ";");
    out.self[stack] += tree["self"][i].get<uint64_t>();
    out.total[stack] += tree["total"][i].get<uint64_t>();
  }
  return out;
}

std::string FoldedOf(const Stacks& stacks) {
  std::string out;
  for (const auto& [stack, self] : stacks.self) {
    if (self != 0) absl::StrAppend(&out, stack, " ", self, "\n");
  }
  return out;
}

TEST(ProfileModelTest, UnprunedTreeIsTheFoldedStacks) {
  FrameTable frames;
  const NamedTree tree = Tree(frames);
  nlohmann::json model;
  AddTree(tree, frames, 0, model);
  EXPECT_EQ(FoldedOf(ModelStacks(model)), FoldedStacks(tree, frames));
  EXPECT_EQ(model["tree"]["pruned_nodes"], 0);
  EXPECT_EQ(model["tree"]["total"][0], 3551);
  // Frames are named once: "leaf" of three stacks is one frame.
  int leaves = 0;
  for (const auto& name : model["frames"]["name"]) leaves += name == "leaf";
  EXPECT_EQ(leaves, 1);
}

TEST(ProfileModelTest, PrunedNodesKeepTheirWeightInTheirParents) {
  FrameTable frames;
  const NamedTree tree = Tree(frames);
  nlohmann::json model;
  // 1% of 3551: nodes below 35.51 go (mid: 8, its two children, other's
  // leaf, [unknown]).
  AddTree(tree, frames, 0.01, model);
  const Stacks stacks = ModelStacks(model);
  // Totals from the folded lines: a stack's total is the sum of the lines
  // it begins.
  for (const auto& [stack, total] : stacks.total) {
    uint64_t expected = 0;
    for (absl::string_view line : absl::StrSplit(kFolded, '\n')) {
      if (line.empty()) continue;
      const size_t space = line.rfind(' ');
      const absl::string_view text = line.substr(0, space);
      if (text == stack || absl::StartsWith(text, stack + ";")) {
        expected += std::stoull(std::string(line.substr(space + 1)));
      }
    }
    EXPECT_EQ(total, expected) << stack;
  }
  EXPECT_EQ(stacks.total.count("_start;main;mid"), 0u);
  EXPECT_EQ(stacks.total.count("[unknown]"), 0u);
  EXPECT_EQ(stacks.total.count("_start;other;deep;deeper;deepest"), 1u);
  EXPECT_EQ(model["tree"]["pruned_nodes"], 5);
  EXPECT_EQ(model["tree"]["pruned_weight"], 8 + 1 + 2);
  EXPECT_EQ(model["tree"]["nodes"], tree.nodes.size());
}

}  // namespace
}  // namespace hwt::report::html
