// Taken branch edges from block edges (see branches.h).
#include "analysis/branches.h"

#include <map>
#include <tuple>

namespace hwt::analysis {

std::vector<BranchEdge> TakenBranches(const Profile& profile) {
  std::map<std::tuple<uint32_t, uint64_t, uint32_t, uint64_t>, BranchEdge>
      edges;
  for (const BlockEdge& e : profile.edges) {
    const BlockStats& from = profile.blocks[e.from];
    const BlockStats& to = profile.blocks[e.to];
    switch (from.end) {
      case BranchKind::kCondTaken:
      case BranchKind::kJump:
      case BranchKind::kJumpIndirect:
      case BranchKind::kCall:
      case BranchKind::kCallIndirect:
      case BranchKind::kReturn:
        break;
      default:
        continue;
    }
    BranchEdge& edge = edges[{from.image, from.last_vaddr, to.image, to.vaddr}];
    edge.from_image = from.image;
    edge.from = from.last_vaddr;
    edge.to_image = to.image;
    edge.to = to.vaddr;
    edge.kind = from.end;
    edge.count += e.count;
  }
  std::vector<BranchEdge> out;
  out.reserve(edges.size());
  for (const auto& [key, edge] : edges) out.push_back(edge);
  return out;
}

}  // namespace hwt::analysis
