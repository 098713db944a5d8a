// Text form of a Profile (see profile_text.h).
#include "analysis/profile_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hwt::analysis {
namespace {

std::string FunctionText(const FunctionId& fn) {
  switch (fn.kind) {
    case FrameKind::kFunction:
      return absl::StrFormat("%u:0x%x-0x%x", fn.image, fn.start, fn.end);
    case FrameKind::kUnknownCode:
      return absl::StrFormat("%u:nosym", fn.image);
    default:
      return "none";
  }
}

}  // namespace

std::string CallTreeToText(const CallTree& tree, const FrameNameFn& name) {
  std::string out;
  size_t next_block = 0;  // node_blocks are sorted by node
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    while (next_block < tree.node_blocks.size() &&
           tree.node_blocks[next_block].node < i) {
      ++next_block;
    }
    absl::StrAppend(&out, std::string(2 * n.depth, ' '), name(n.frame));
    if (n.frame.kind == FrameKind::kGap) {
      absl::StrAppend(&out, " gaps=", n.gaps, "\n");
      continue;
    }
    absl::StrAppend(&out, " calls=", n.calls, " self=", n.self_insns,
                    " total=", n.total_insns);
    if (n.self_time != 0 || n.total_time != 0) {
      absl::StrAppend(&out, " self_time=", n.self_time,
                      " total_time=", n.total_time);
    }
    absl::StrAppend(&out, " blocks=");
    for (size_t j = next_block;
         j < tree.node_blocks.size() && tree.node_blocks[j].node == i; ++j) {
      const CallTree::NodeBlock& nb = tree.node_blocks[j];
      absl::StrAppend(&out, j == next_block ? "" : ",", "#", nb.block, "x",
                      nb.count);
      if (nb.time != 0) absl::StrAppend(&out, "t", nb.time);
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string ProfileToText(const Profile& p, const FrameNameFn& name_in) {
  const FrameNameFn name = name_in ? name_in : FrameNameFn(DescribeFrameKey);
  const ProfileStats& s = p.stats;
  std::string out;
  absl::StrAppend(&out, "stats events=", s.events, " blocks=", s.blocks,
                  " insns=", s.instructions, " time=", s.time, " gaps=", s.gaps,
                  " disables=", s.disables, " enables=", s.enables,
                  " exceptions=", s.exceptions,
                  " context_events=", s.context_events,
                  " unknown_region_blocks=", s.unknown_region_blocks,
                  " invalid_regions=", s.invalid_region_events,
                  " malformed=", s.malformed_blocks,
                  " has_time=", p.has_time ? 1 : 0, "\n");
  for (size_t r = 0; r < s.gaps_by_reason.size(); ++r) {
    if (s.gaps_by_reason[r] == 0) continue;
    absl::StrAppend(&out, "gaps ",
                    std::string(GapReasonName(static_cast<GapReason>(r))), "=",
                    s.gaps_by_reason[r], "\n");
  }
  for (const ThreadProfile& t : p.threads) {
    // Profiles of several captures (analysis/saved/) keep threads apart per
    // capture; one capture's profile has capture 0 only.
    absl::StrAppend(&out, "thread ",
                    t.capture != 0 ? absl::StrCat("capture=", t.capture, " ")
                                   : std::string(),
                    "stream=", t.stream, " context=", t.context, "\n",
                    CallTreeToText(t.tree, name));
  }
  absl::StrAppend(&out, "merged\n", CallTreeToText(p.merged, name));
  for (const FunctionStats& f : p.functions) {
    absl::StrAppend(&out, "function ", name(f.frame), " self=", f.self_insns,
                    " total=", f.total_insns, " calls=", f.calls);
    if (p.has_time) {
      absl::StrAppend(&out, " self_time=", f.self_time,
                      " total_time=", f.total_time);
    }
    absl::StrAppend(&out, "\n");
  }
  for (const CallEdge& e : p.call_edges) {
    absl::StrAppend(&out, "call ", name(e.caller), " -> ", name(e.callee), " ",
                    e.count, "\n");
  }
  for (size_t i = 0; i < p.blocks.size(); ++i) {
    const BlockStats& b = p.blocks[i];
    absl::StrAppend(
        &out, absl::StrFormat("block #%u %s:0x%x-0x%x n=%u %s %s count=%u", i,
                              b.image == kNoImage ? std::string("-")
                                                  : absl::StrCat(b.image),
                              b.vaddr, b.last_vaddr, b.ninsn,
                              BranchKindName(b.end), IsaName(b.isa), b.count));
    if (b.time != 0) absl::StrAppend(&out, " time=", b.time);
    absl::StrAppend(
        &out, " region=",
        b.region == kNoRegion ? std::string("-") : absl::StrCat(b.region),
        " fn=", FunctionText(b.function),
        " last_fn=", FunctionText(b.last_function), "\n");
  }
  for (const BlockEdge& e : p.edges) {
    absl::StrAppend(&out, "edge #", e.from, " -> #", e.to, " ", e.count, "\n");
  }
  for (const PathStats& path : p.paths) {
    absl::StrAppend(&out, "path count=", path.count, " insns=", path.insns,
                    " blocks=");
    for (size_t i = 0; i < path.blocks.size(); ++i) {
      absl::StrAppend(&out, i ? "," : "", "#", path.blocks[i]);
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace hwt::analysis
