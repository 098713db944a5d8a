// Taken branch edges by instruction, for reports and PGO inputs (BOLT,
// AutoFDO, llvm-profgen): from a block's final near branch to where control
// went, summed over unique blocks. Not-taken conditional branches (also
// those inside blocks) are in BlockExpansion's InstructionStats.
#ifndef HWT_ANALYSIS_BRANCHES_H_
#define HWT_ANALYSIS_BRANCHES_H_

#include <cstdint>
#include <vector>

#include "analysis/profile.h"

namespace hwt::analysis {

struct BranchEdge {
  uint32_t from_image = kNoImage;
  uint64_t from = 0;  // ELF vaddr of the branch instruction
  uint32_t to_image = kNoImage;
  uint64_t to = 0;  // ELF vaddr of the target
  BranchKind kind = BranchKind::kNone;
  uint64_t count = 0;
};

// Whether a block that ended this way left by a taken near branch (taken
// conditional, jump, call or return; not a far transfer).
bool IsTakenNearBranch(BranchKind kind);

// Edges of taken near branches (taken conditionals, jumps, calls,
// returns), sorted by (from_image, from, to_image, to). Far transfers are
// left out: with user-only tracing their successor is only where the
// thread resumed.
std::vector<BranchEdge> TakenBranches(const Profile& profile);

// The counts AutoFDO-style profiles are made of (simpleperf inject,
// create_llvm_prof, llvm-profgen):
// - ranges: per unique (image, first instruction, last instruction), how
//   often that straight-line range ran (a CoreSight block ends at every
//   branch, taken or not, as OpenCSD's instruction ranges do);
// - branches: per taken near branch, how often it went to each target, and
//   how often its target is unknown (no block followed: the trace ended,
//   lost sync or left the traced address ranges): those are edges with
//   to_image kNoImage and to 0.
struct RangeCount {
  uint32_t image = kNoImage;
  uint64_t begin = 0;  // ELF vaddr of the first instruction
  uint64_t end = 0;    // ELF vaddr of the last instruction
  uint64_t count = 0;
};
// Sorted by (image, begin, end).
std::vector<RangeCount> RangeCounts(const Profile& profile);
// TakenBranches plus the executions without a known target; sorted like it.
std::vector<BranchEdge> TakenBranchCounts(const Profile& profile);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_BRANCHES_H_
