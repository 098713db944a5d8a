// The control flow of one image, from the profile's blocks and successions.
#include "report/export/control_flow.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/branches.h"
#include "base/file_util.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {

using analysis::BlockStats;
using analysis::kNoImage;
using hwt::BranchKind;

std::optional<uint64_t> FileOffsetOf(const ExportImage& image, uint64_t vaddr) {
  for (const ExportSegment& s : image.segments) {
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz) {
      return s.file_offset + (vaddr - s.vaddr);
    }
  }
  return std::nullopt;
}

const ExportSegment* FirstExecutableSegment(const ExportImage& image) {
  for (const ExportSegment& s : image.segments) {
    if (s.executable()) return &s;
  }
  return nullptr;
}

absl::StatusOr<uint32_t> SelectExportImage(ExportInput& input,
                                           std::string_view only_image) {
  std::vector<std::string> known;
  for (uint32_t i = 0; i < input.image_count(); ++i) {
    known.push_back(BaseName(input.image(i).path));
  }
  if (!only_image.empty()) {
    for (uint32_t i = 0; i < input.image_count(); ++i) {
      const std::string& path = input.image(i).path;
      if (path == only_image || BaseName(path) == only_image) return i;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "--only-image: the profile has no image '", std::string(only_image),
        "' (it has: ", absl::StrJoin(known, ", "), ")"));
  }
  std::vector<uint64_t> instructions(input.image_count(), 0);
  for (const BlockStats& b : input.profile().blocks) {
    if (b.image < instructions.size()) {
      instructions[b.image] += b.count * b.ninsn;
    }
  }
  std::optional<uint32_t> best;
  for (uint32_t i = 0; i < input.image_count(); ++i) {
    const ExportImage& image = input.image(i);
    if (!image.is_elf ||
        CategoryOfImage(image.path, image.kernel) != FrameCategory::kUser) {
      continue;
    }
    if (!best || instructions[i] > instructions[*best]) best = i;
  }
  if (!best) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no executable among the profile's images (",
        absl::StrJoin(known, ", "), "): choose one with --only-image"));
  }
  return *best;
}

namespace {

// The address right after a block's last instruction, when its expansion
// knows that instruction's length.
std::optional<uint64_t> EndOfBlock(const analysis::BlockExpansion& expansion,
                                   uint32_t block) {
  if (block + 1 >= expansion.block_begin.size()) return std::nullopt;
  const uint32_t begin = expansion.block_begin[block];
  const uint32_t end = expansion.block_begin[block + 1];
  if (begin == end) return std::nullopt;
  return expansion.insn_vaddrs[end - 1] + expansion.insn_lengths[end - 1];
}

}  // namespace

ImageFlow CollectImageFlow(const analysis::Profile& profile,
                           const analysis::BlockExpansion& expansion,
                           uint32_t image) {
  ImageFlow flow;
  flow.image = image;
  const std::vector<BlockStats>& blocks = profile.blocks;
  std::vector<uint64_t> after_return(blocks.size(), 0);
  std::vector<uint64_t> followed(blocks.size(), 0);  // taken, target seen
  std::map<std::pair<uint64_t, uint64_t>, FlowContinuation> continuations;
  std::map<std::tuple<uint64_t, uint64_t, uint32_t, uint32_t>, FlowBranch>
      branches;
  for (const analysis::BlockEdge& e : profile.edges) {
    const BlockStats& from = blocks[e.from];
    const BlockStats& to = blocks[e.to];
    if (from.image != image && to.image != image) continue;
    if (from.end == BranchKind::kReturn) after_return[e.to] += e.count;
    if (analysis::IsTakenNearBranch(from.end)) {
      followed[e.from] += e.count;
      FlowBranch& b =
          branches[{from.last_vaddr, to.vaddr, from.image, to.image}];
      b.from_image = from.image;
      b.from = from.last_vaddr;
      b.to_image = to.image;
      b.to = to.vaddr;
      b.kind = from.end;
      b.count += e.count;
      continue;
    }
    // Not a branch: a continuation when `to` starts right after `from`
    // (a block cut by an event, a not-taken conditional, a system call).
    if (from.image != image || to.image != image) continue;
    const std::optional<uint64_t> next = EndOfBlock(expansion, e.from);
    if (!next || *next != to.vaddr) continue;
    FlowContinuation& c = continuations[{from.last_vaddr, to.vaddr}];
    c.from = from.last_vaddr;
    c.to = to.vaddr;
    c.count += e.count;
  }
  std::map<std::pair<uint64_t, uint64_t>, FlowRange> ranges;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    const BlockStats& b = blocks[i];
    if (b.image != image || b.count == 0) continue;
    FlowRange& r = ranges[{b.vaddr, b.last_vaddr}];
    r.begin = b.vaddr;
    r.end = b.last_vaddr;
    r.count += b.count;
    r.after_return += after_return[i];
    flow.instructions += b.count * b.ninsn;
  }
  std::map<uint64_t, UnfollowedBranch> unfollowed;
  for (uint32_t i = 0; i < blocks.size(); ++i) {
    const BlockStats& b = blocks[i];
    if (b.image != image || !analysis::IsTakenNearBranch(b.end) ||
        b.count <= followed[i]) {
      continue;
    }
    UnfollowedBranch& u = unfollowed[b.last_vaddr];
    u.from = b.last_vaddr;
    u.kind = b.end;
    u.count += b.count - followed[i];
  }
  for (auto& [key, u] : unfollowed) flow.unfollowed.push_back(u);
  for (auto& [key, r] : ranges) flow.ranges.push_back(r);
  for (auto& [key, b] : branches) flow.branches.push_back(b);
  for (auto& [key, c] : continuations) flow.continuations.push_back(c);
  return flow;
}

}  // namespace hwt::report
