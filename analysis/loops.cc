// Loop detection and statistics from block edges and the block expansion
// (see loops.h).
#include "analysis/loops.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace hwt::analysis {
namespace {

bool IsJump(BranchKind k) {
  return k == BranchKind::kCondTaken || k == BranchKind::kJump ||
         k == BranchKind::kJumpIndirect;
}

bool IsCallOrReturn(BranchKind k) {
  return k == BranchKind::kCall || k == BranchKind::kCallIndirect ||
         k == BranchKind::kReturn;
}

}  // namespace

std::vector<Loop> FindLoops(const Profile& profile,
                            const BlockExpansion& expansion) {
  std::map<std::pair<uint32_t, uint64_t>, Loop> loops;
  for (const BlockEdge& e : profile.edges) {
    const BlockStats& from = profile.blocks[e.from];
    const BlockStats& to = profile.blocks[e.to];
    if (!IsJump(from.end) || from.image != to.image || from.image == kNoImage ||
        from.last_function != to.function || to.vaddr > from.last_vaddr) {
      continue;
    }
    Loop& loop = loops[{to.image, to.vaddr}];
    loop.image = to.image;
    loop.header = to.vaddr;
    loop.function = to.function;
    loop.back_edges += e.count;
    if (std::find(loop.latches.begin(), loop.latches.end(), from.last_vaddr) ==
        loop.latches.end()) {
      loop.latches.push_back(from.last_vaddr);
    }
    const InstructionStats* latch = expansion.Find(from.image, from.last_vaddr);
    loop.end =
        std::max(loop.end, from.last_vaddr + (latch ? latch->length : 1));
  }

  std::vector<Loop> out;
  for (auto& [key, loop] : loops) {
    std::sort(loop.latches.begin(), loop.latches.end());
    auto inside = [&loop](uint32_t image, uint64_t vaddr) {
      return image == loop.image && vaddr >= loop.header && vaddr < loop.end;
    };
    // Entries across block boundaries.
    for (const BlockEdge& e : profile.edges) {
      const BlockStats& from = profile.blocks[e.from];
      const BlockStats& to = profile.blocks[e.to];
      if (IsCallOrReturn(from.end) || from.last_function != loop.function ||
          to.function != loop.function || inside(from.image, from.last_vaddr) ||
          !inside(to.image, to.vaddr)) {
        continue;
      }
      loop.entries += e.count;
    }
    // Entries inside blocks (falling into the body) and the body's
    // instructions.
    for (uint32_t b = 0; b < profile.blocks.size(); ++b) {
      const BlockStats& block = profile.blocks[b];
      if (block.image != loop.image) continue;
      const auto insns = expansion.BlockInstructions(b);
      for (size_t i = 0; i < insns.size(); ++i) {
        if (!inside(block.image, insns[i])) continue;
        loop.instructions += block.count;
        if (i > 0 && !inside(block.image, insns[i - 1])) {
          loop.entries += block.count;
        }
      }
    }
    out.push_back(std::move(loop));
  }
  std::sort(out.begin(), out.end(), [](const Loop& a, const Loop& b) {
    if (a.instructions != b.instructions) {
      return a.instructions > b.instructions;
    }
    return std::tie(a.image, a.header) < std::tie(b.image, b.header);
  });
  return out;
}

}  // namespace hwt::analysis
