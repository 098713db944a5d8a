// A call tree being merged (internal to analysis/saved/): a trie of frames
// under their parents with added counters, fed with trees whose image and
// block indices are translated on the way in, and finished into a canonical
// CallTree (siblings by frame, preorder, totals) once the final image and
// block orders are known.
#ifndef HWT_ANALYSIS_SAVED_MERGE_TREE_H_
#define HWT_ANALYSIS_SAVED_MERGE_TREE_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/profile.h"

namespace hwt::analysis::internal {

class MergeTree {
 public:
  MergeTree();

  // Adds `tree`: image i of its frames is image_map[i] here (kNoImage stays),
  // block b of its node blocks is block_map[b]. An empty map keeps ids as
  // they are (as do the maps of Finish).
  void Add(const CallTree& tree, const std::vector<uint32_t>& image_map,
           const std::vector<uint32_t>& block_map);

  // The canonical tree, with this trie's image and block ids translated by
  // final_image / final_block.
  CallTree Finish(const std::vector<uint32_t>& final_image,
                  const std::vector<uint32_t>& final_block) const;

  size_t size() const { return nodes_.size(); }
  template <typename Fn>
  void ForEachFrame(Fn fn) const {
    for (const Node& n : nodes_) fn(n.frame);
  }

 private:
  struct Node {
    uint32_t parent = 0;
    FrameKey frame;
    uint64_t calls = 0;
    uint64_t gaps = 0;
    uint64_t self_insns = 0;
    uint64_t self_time = 0;
  };
  struct ChildKey {
    uint32_t parent;
    FrameKey frame;
    friend bool operator==(const ChildKey&, const ChildKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const ChildKey& k) {
      return H::combine(std::move(h), k.parent, k.frame);
    }
  };
  struct Counts {
    uint64_t count = 0;
    uint64_t time = 0;
  };

  std::vector<Node> nodes_;
  absl::flat_hash_map<ChildKey, uint32_t> children_;
  // (node << 32 | block) -> counts.
  absl::flat_hash_map<uint64_t, Counts> node_blocks_;
};

// A frame key with its image translated.
inline FrameKey MapFrame(const FrameKey& key,
                         const std::vector<uint32_t>& image_map) {
  FrameKey out = key;
  if (key.image != kNoImage && key.image < image_map.size()) {
    out.image = image_map[key.image];
  }
  return out;
}

}  // namespace hwt::analysis::internal

#endif  // HWT_ANALYSIS_SAVED_MERGE_TREE_H_
