// Canonical Profile from a ProfileStore: blocks sorted by key, call trees in
// preorder with children by FrameKey, per-function and call-edge tables from
// the merged tree, paths by weight. Only the content of the store matters,
// never the order it was built in.
#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/profile_store.h"
#include "analysis/segment_data.h"
#include "analysis/tree_functions.h"

namespace hwt::analysis::internal {

namespace {

auto BlockOrder(const BlockKey& k) {
  return std::make_tuple(k.image, k.vaddr, k.ninsn, k.last_vaddr, k.end, k.isa);
}

// Compressed lists: items of key i are items[begin[i] .. begin[i+1]).
struct Index {
  std::vector<uint32_t> begin;
  std::vector<uint32_t> items;
};

template <typename KeyOf>
Index BuildIndex(size_t keys, size_t count, KeyOf key_of) {
  Index index;
  index.begin.assign(keys + 1, 0);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t k = key_of(i);
    if (k != kNone) ++index.begin[k + 1];
  }
  std::partial_sum(index.begin.begin(), index.begin.end(), index.begin.begin());
  index.items.resize(index.begin.back());
  std::vector<uint32_t> fill(index.begin.begin(), index.begin.end() - 1);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t k = key_of(i);
    if (k != kNone) index.items[fill[k]++] = i;
  }
  return index;
}

class Finisher {
 public:
  explicit Finisher(const ProfileStore& store) : store_(store) {
    const auto& blocks = store.blocks();
    // Entry records (no instructions: an interrupted branch's target) stand
    // for an address in the stack rules only; they are no blocks.
    std::vector<uint32_t> order;
    order.reserve(blocks.size());
    for (uint32_t i = 0; i < blocks.size(); ++i) {
      if (blocks[i].key.ninsn != 0) order.push_back(i);
    }
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return BlockOrder(blocks[a].key) < BlockOrder(blocks[b].key);
    });
    rank_.assign(blocks.size(), kNone);
    for (uint32_t i = 0; i < order.size(); ++i) rank_[order[i]] = i;
    order_ = std::move(order);

    const auto& nodes = store.nodes();
    children_ = BuildIndex(nodes.size(), nodes.size(),
                           [&](uint32_t n) { return nodes[n].parent; });
    const auto& slots = store.slots();
    slots_of_ = BuildIndex(nodes.size(), slots.size(),
                           [&](uint32_t s) { return slots[s].node; });
  }

  uint32_t Rank(uint32_t block) const { return rank_[block]; }
  const std::vector<uint32_t>& order() const { return order_; }

  // The tree of all stacks under `roots` (store nodes without a frame),
  // merged by frame keys.
  CallTree BuildTree(const std::vector<uint32_t>& roots) const;

 private:
  const ProfileStore& store_;
  std::vector<uint32_t> rank_;   // store block -> canonical index
  std::vector<uint32_t> order_;  // canonical index -> store block
  Index children_;
  Index slots_of_;
};

CallTree Finisher::BuildTree(const std::vector<uint32_t>& roots) const {
  CallTree tree;
  struct Work {
    uint32_t parent;  // output index (kNone for the root)
    std::vector<uint32_t> members;
  };
  std::vector<Work> work;
  work.push_back({kNone, roots});
  const auto& nodes = store_.nodes();
  const auto& slots = store_.slots();
  std::vector<std::pair<FrameKey, uint32_t>> kids;
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> counts;
  while (!work.empty()) {
    Work w = std::move(work.back());
    work.pop_back();
    const uint32_t out = static_cast<uint32_t>(tree.nodes.size());
    CallTree::Node node;
    if (w.parent != kNone) {
      node.parent = w.parent;
      node.depth = tree.nodes[w.parent].depth + 1;
      node.frame = nodes[w.members[0]].key;
    }
    counts.clear();
    kids.clear();
    for (uint32_t m : w.members) {
      node.calls += nodes[m].calls;
      node.gaps += nodes[m].gaps;
      for (uint32_t i = slots_of_.begin[m]; i < slots_of_.begin[m + 1]; ++i) {
        const SlotRecord& s = slots[slots_of_.items[i]];
        counts.emplace_back(rank_[s.block], s.count, s.time);
      }
      for (uint32_t i = children_.begin[m]; i < children_.begin[m + 1]; ++i) {
        const uint32_t c = children_.items[i];
        if (nodes[c].type == NodeType::kFrame)
          kids.emplace_back(nodes[c].key, c);
      }
    }
    std::sort(counts.begin(), counts.end());
    for (size_t i = 0; i < counts.size();) {
      CallTree::NodeBlock nb;
      nb.node = out;
      nb.block = std::get<0>(counts[i]);
      for (; i < counts.size() && std::get<0>(counts[i]) == nb.block; ++i) {
        nb.count += std::get<1>(counts[i]);
        nb.time += std::get<2>(counts[i]);
      }
      const uint64_t ninsn = store_.blocks()[order_[nb.block]].key.ninsn;
      node.self_insns += nb.count * ninsn;
      node.self_time += nb.time;
      if (nb.count != 0 || nb.time != 0) tree.node_blocks.push_back(nb);
    }
    tree.nodes.push_back(node);
    // Children in FrameKey order: push them reversed so the first pops first.
    std::sort(kids.begin(), kids.end());
    std::vector<Work> next;
    for (size_t i = 0; i < kids.size();) {
      Work child{out, {}};
      const FrameKey key = kids[i].first;
      for (; i < kids.size() && kids[i].first == key; ++i) {
        child.members.push_back(kids[i].second);
      }
      next.push_back(std::move(child));
    }
    for (size_t i = next.size(); i-- > 0;) work.push_back(std::move(next[i]));
  }
  // Subtree ends and totals, children before parents.
  std::vector<uint32_t> size(tree.nodes.size(), 1);
  for (size_t i = tree.nodes.size(); i-- > 0;) {
    CallTree::Node& n = tree.nodes[i];
    n.total_insns += n.self_insns;
    n.total_time += n.self_time;
    n.end = static_cast<uint32_t>(i + size[i]);
    if (i != 0) {
      size[n.parent] += size[i];
      tree.nodes[n.parent].total_insns += n.total_insns;
      tree.nodes[n.parent].total_time += n.total_time;
    }
  }
  return tree;
}

// The profile's function and call-edge tables: those of its merged tree.
void FunctionTables(Profile& profile) {
  TreeFunctions tables = FunctionsOfTree(profile.merged);
  profile.functions = std::move(tables.functions);
  profile.call_edges = std::move(tables.call_edges);
}

}  // namespace

Profile FinishProfile(const ProfileStore& store,
                      const std::vector<ThreadState>& threads,
                      const ProfileStats& stats, bool has_time) {
  Profile profile;
  profile.has_time = has_time;
  profile.stats = stats;
  Finisher finisher(store);

  for (uint32_t i : finisher.order()) {
    const BlockRecord& b = store.blocks()[i];
    BlockStats out;
    out.image = b.key.image;
    out.vaddr = b.key.vaddr;
    out.last_vaddr = b.key.last_vaddr;
    out.ninsn = b.key.ninsn;
    out.end = b.key.end;
    out.isa = b.key.isa;
    out.region = b.region;
    out.function = b.fn;
    out.last_function = b.last_fn;
    out.count = b.count;
    out.time = b.time;
    profile.blocks.push_back(out);
  }
  for (const EdgeRecord& e : store.edges()) {
    profile.edges.push_back(
        BlockEdge{finisher.Rank(e.from), finisher.Rank(e.to), e.count});
  }
  std::sort(profile.edges.begin(), profile.edges.end(),
            [](const BlockEdge& a, const BlockEdge& b) {
              return std::tie(a.from, a.to) < std::tie(b.from, b.to);
            });

  std::vector<const ThreadState*> sorted;
  for (const ThreadState& t : threads) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const ThreadState* a, const ThreadState* b) {
              return std::tie(a->stream, a->context) <
                     std::tie(b->stream, b->context);
            });
  std::vector<uint32_t> roots;
  for (const ThreadState* t : sorted) {
    ThreadProfile thread;
    thread.stream = t->stream;
    thread.context = t->context;
    thread.tree = finisher.BuildTree({t->root_node});
    if (thread.tree.nodes.size() <= 1) continue;
    profile.threads.push_back(std::move(thread));
    roots.push_back(t->root_node);
  }
  // One thread (every CoreSight trace of one core, every thread-mode PT
  // trace): the merged tree is that thread's, already built; building it
  // again was half of FinishProfile there.
  profile.merged = roots.size() == 1 ? profile.threads.back().tree
                                     : finisher.BuildTree(roots);
  FunctionTables(profile);

  const auto& paths = store.paths();
  for (uint32_t p = 0; p < paths.size(); ++p) {
    if (paths[p].completed == 0) continue;
    PathStats path;
    path.count = paths[p].completed;
    for (uint32_t cur = p; paths[cur].type == PathType::kStep;
         cur = paths[cur].parent) {
      path.blocks.push_back(finisher.Rank(paths[cur].block));
      path.insns += store.blocks()[paths[cur].block].key.ninsn;
    }
    std::reverse(path.blocks.begin(), path.blocks.end());
    profile.paths.push_back(std::move(path));
  }
  std::sort(profile.paths.begin(), profile.paths.end(),
            [](const PathStats& a, const PathStats& b) {
              if (a.weight() != b.weight()) return a.weight() > b.weight();
              if (a.count != b.count) return a.count > b.count;
              return a.blocks < b.blocks;
            });
  return profile;
}

}  // namespace hwt::analysis::internal
