// Taken branch edges from block edges (see branches.h).
#include "analysis/branches.h"

#include <map>
#include <tuple>

namespace hwt::analysis {

bool IsTakenNearBranch(BranchKind kind) {
  switch (kind) {
    case BranchKind::kCondTaken:
    case BranchKind::kJump:
    case BranchKind::kJumpIndirect:
    case BranchKind::kCall:
    case BranchKind::kCallIndirect:
    case BranchKind::kReturn:
      return true;
    default:
      return false;
  }
}

std::vector<BranchEdge> TakenBranches(const Profile& profile) {
  std::map<std::tuple<uint32_t, uint64_t, uint32_t, uint64_t>, BranchEdge>
      edges;
  for (const BlockEdge& e : profile.edges) {
    const BlockStats& from = profile.blocks[e.from];
    const BlockStats& to = profile.blocks[e.to];
    if (!IsTakenNearBranch(from.end)) continue;
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

std::vector<RangeCount> RangeCounts(const Profile& profile) {
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, uint64_t> counts;
  for (const BlockStats& b : profile.blocks) {
    counts[{b.image, b.vaddr, b.last_vaddr}] += b.count;
  }
  std::vector<RangeCount> out;
  out.reserve(counts.size());
  for (const auto& [key, count] : counts) {
    out.push_back(
        {std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
  }
  return out;
}

std::vector<BranchEdge> TakenBranchCounts(const Profile& profile) {
  // Executions of each taken-branch block that some edge accounts for.
  std::vector<uint64_t> followed(profile.blocks.size(), 0);
  for (const BlockEdge& e : profile.edges) followed[e.from] += e.count;
  std::map<std::tuple<uint32_t, uint64_t, uint32_t, uint64_t>, BranchEdge>
      edges;
  for (const BranchEdge& e : TakenBranches(profile)) {
    edges[{e.from_image, e.from, e.to_image, e.to}] = e;
  }
  for (size_t i = 0; i < profile.blocks.size(); ++i) {
    const BlockStats& b = profile.blocks[i];
    if (!IsTakenNearBranch(b.end) || b.count <= followed[i]) continue;
    BranchEdge& edge = edges[{b.image, b.last_vaddr, kNoImage, 0}];
    edge.from_image = b.image;
    edge.from = b.last_vaddr;
    edge.to_image = kNoImage;
    edge.to = 0;
    edge.kind = b.end;
    edge.count += b.count - followed[i];
  }
  std::vector<BranchEdge> out;
  out.reserve(edges.size());
  for (const auto& [key, edge] : edges) out.push_back(edge);
  return out;
}

}  // namespace hwt::analysis
