// The HTML report of a large profile: a generated call tree of 100,000
// nodes (20,000 functions with C++-length names in three images, weights
// with a heavy tail, stacks up to 40 deep) through the real model builder
// and page writer. Prints the page's size with the default pruning and
// without, and the time to build it against a baseline on the same tree in
// the same process (naming the same tree, which the model starts with). The
// pages it writes are what bench/html_load.mjs opens in Chromium to time the
// load.
//   html_report_bench OUTDIR [NODES]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "analysis/profile.h"
#include "analysis/tree_functions.h"
#include "base/file_util.h"
#include "capture/capture.h"
#include "report/html/profile_model.h"
#include "report/tree/profile_filter.h"

namespace hwt {
namespace {

constexpr int kFunctions = 20000;
const char* const kImages[] = {"/usr/local/bin/server", "/lib/libc.so.7",
                               "/usr/local/lib/libproto.so.32"};

class GeneratedSymbols : public report::ProfileSymbols {
 public:
  std::string FunctionName(uint32_t, uint64_t start) override {
    const uint64_t id = (start - 0x400000) / 64;
    return absl::StrFormat(
        "server::module%d::Handler<std::basic_string<char>>::step%d(int, "
        "char const*)",
        id % 97, id);
  }
  std::string ImagePath(uint32_t image) override { return kImages[image]; }
};

// A call tree in preorder with children ordered by frame: each node splits
// the nodes left for its subtree among 1 to 8 children (more near the root)
// at random, so the tree is wide at the bottom and thins out upwards, up to
// 40 deep.
analysis::CallTree MakeTree(size_t nodes) {
  std::mt19937_64 rng(7);
  analysis::CallTree tree;
  tree.nodes.push_back({});
  std::function<void(uint32_t, size_t)> grow = [&](uint32_t parent,
                                                   size_t budget) {
    const uint32_t depth = tree.nodes[parent].depth + 1;
    if (budget == 0 || depth > 40) return;
    const size_t most = depth <= 2 ? 24 : depth < 6 ? 8 : 4;
    std::vector<uint64_t> ids;
    const size_t wanted = std::min(budget, 1 + rng() % most);
    for (size_t i = 0; i < wanted; ++i) ids.push_back(rng() % kFunctions);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    // Shares of the budget: skewed, so some subtrees are much bigger.
    std::vector<double> shares;
    double sum = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      const double u = static_cast<double>(rng() % 1000 + 1) / 1000;
      shares.push_back(u * u * u);
      sum += shares.back();
    }
    size_t left = budget - ids.size();
    for (size_t i = 0; i < ids.size(); ++i) {
      analysis::CallTree::Node n;
      n.frame = {analysis::FrameKind::kFunction,
                 static_cast<uint32_t>(ids[i] % 3), 0x400000 + ids[i] * 64};
      n.parent = parent;
      n.depth = depth;
      n.calls = 1 + rng() % 50;
      const uint64_t r = rng() % 1000;
      n.self_insns = r * r * r / 10000;  // heavy tail: mostly small
      const uint32_t at = static_cast<uint32_t>(tree.nodes.size());
      tree.nodes.push_back(n);
      const size_t share =
          i + 1 == ids.size()
              ? left
              : std::min(left, static_cast<size_t>(left * shares[i] / sum));
      left -= share;
      grow(at, share);
      tree.nodes[at].end = static_cast<uint32_t>(tree.nodes.size());
    }
  };
  grow(0, nodes - 1);
  tree.nodes[0].end = static_cast<uint32_t>(tree.nodes.size());
  for (size_t i = tree.nodes.size(); i-- > 0;) {
    auto& n = tree.nodes[i];
    n.total_insns += n.self_insns;
    if (i != 0) tree.nodes[n.parent].total_insns += n.total_insns;
  }
  return tree;
}

double Seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int Run(const std::string& dir, size_t nodes) {
  analysis::Profile profile;
  profile.merged = MakeTree(nodes);
  const analysis::TreeFunctions functions =
      analysis::FunctionsOfTree(profile.merged);
  profile.functions = functions.functions;
  profile.call_edges = functions.call_edges;
  profile.threads.push_back({});
  profile.stats.instructions = profile.merged.nodes[0].total_insns;

  capture::Manifest manifest;
  manifest.backend = capture::Backend::kPt;
  manifest.command = "server --threads 64";
  manifest.buffers.push_back({});
  const capture::Capture capture(capture::InputKind::kBundleDirectory,
                                 "large.hwt", dir, manifest, {}, {},
                                 std::nullopt);
  GeneratedSymbols symbols;
  auto page = [&](double prune, std::string* out) {
    report::ProfileNames names(symbols);
    report::html::ProfileModelInputs in;
    in.capture = &capture;
    in.title = "large.hwt";
    in.profile = &profile;
    in.tree = &profile.merged;
    in.names = &names;
    in.stats.push_back({});
    in.streams.push_back({});
    report::html::HtmlOptions options;
    options.prune_fraction = prune;
    *out = report::html::RenderProfileReport(in, options);
  };
  std::string pruned, full;
  size_t named_nodes = 0;
  const double baseline = Seconds([&] {
    report::ProfileNames names(symbols);
    named_nodes =
        report::BuildNamedTree(profile.merged, names, {}).nodes.size();
  });
  const double pruned_s = Seconds(
      [&] { page(report::html::HtmlOptions().prune_fraction, &pruned); });
  const double full_s = Seconds([&] { page(0, &full); });
  for (const auto& [name, text] : {std::pair{"large.html", &pruned},
                                   std::pair{"large-full.html", &full}}) {
    const absl::Status status = WriteFileAtomically(dir + "/" + name, *text);
    if (!status.ok()) {
      fprintf(stderr, "html_report_bench: %s\n",
              std::string(status.message()).c_str());
      return 3;
    }
  }
  printf("tree: %zu nodes (%zu named), %d functions\n",
         profile.merged.nodes.size(), named_nodes, kFunctions);
  printf("baseline (the named tree alone): %.3f s\n", baseline);
  printf(
      "large.html (default pruning): %.2f MiB, built in %.3f s (%.1fx the "
      "baseline)\n",
      pruned.size() / 1048576.0, pruned_s, pruned_s / baseline);
  printf("large-full.html (no pruning): %.2f MiB, built in %.3f s (%.1fx)\n",
         full.size() / 1048576.0, full_s, full_s / baseline);
  return 0;
}

}  // namespace
}  // namespace hwt

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: html_report_bench OUTDIR [NODES]\n");
    return 2;
  }
  return hwt::Run(argv[1], argc > 2 ? std::stoul(argv[2]) : 100000);
}
