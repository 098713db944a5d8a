// Rankings over a profile: the hottest call paths (the stacks that ran the
// most instructions themselves, i.e. the heaviest folded-stack lines) and
// the hottest acyclic intra-procedural paths (Profile::paths, already
// ordered by instructions executed along them).
#ifndef HWT_ANALYSIS_HOT_PATHS_H_
#define HWT_ANALYSIS_HOT_PATHS_H_

#include <cstdint>
#include <vector>

#include "analysis/profile.h"

namespace hwt::analysis {

struct HotCallPath {
  uint32_t node = 0;  // in the tree given; its root path is the stack
  uint64_t insns = 0;
  uint64_t time = 0;
};

// The `limit` nodes with the highest self weight (instructions, or time when
// `by_time`), heaviest first; ties in preorder. Nodes of weight 0 are left
// out.
std::vector<HotCallPath> HotCallPaths(const CallTree& tree, size_t limit,
                                      bool by_time = false);

// The `limit` heaviest intra-procedural paths (count x instructions).
std::vector<const PathStats*> HotPaths(const Profile& profile, size_t limit);

// The frames of a node's stack, root first.
std::vector<FrameKey> StackOf(const CallTree& tree, uint32_t node);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_HOT_PATHS_H_
