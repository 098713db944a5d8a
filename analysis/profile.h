// The result of profiling a decoded trace: call trees (per thread and
// merged), per-function self/total, call edges, unique blocks with exact
// execution counts, block successions, intra-procedural paths and counters;
// or, of a sampling trace, the same frame tree weighted by samples.
// Everything is keyed by (image, ELF vaddr) and stored in a canonical order,
// so two profiles of the same execution compare equal whatever the order of
// the work that built them (sequential, or segments merged).
#ifndef HWT_ANALYSIS_PROFILE_H_
#define HWT_ANALYSIS_PROFILE_H_

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/frame.h"
#include "decoders/event.h"

namespace hwt::analysis {

inline constexpr uint32_t kNoRegion = 0xffffffffu;

// One unique block: the same instructions run from the same start to the
// same last instruction, ending the same way. A block executed in several
// mappings of one image is one block.
struct BlockStats {
  uint32_t image = kNoImage;  // kNoImage: outside every image (vaddr = ip)
  uint64_t vaddr = 0;         // first instruction
  uint64_t last_vaddr = 0;    // last instruction
  uint32_t ninsn = 0;
  BranchKind end = BranchKind::kNone;  // how the last instruction left
  Isa isa = Isa::kUnknown;
  // The lowest timeline region index the block ran in (kNoRegion if none):
  // where a post-pass reads its code bytes.
  uint32_t region = kNoRegion;
  FunctionId function;       // of vaddr
  FunctionId last_function;  // of last_vaddr
  uint64_t count = 0;        // executions
  uint64_t time = 0;         // timing weight (docs/call-stacks.md, Timing)

  friend bool operator==(const BlockStats&, const BlockStats&) = default;
};

// Block `to` ran right after block `from` on the same thread, with no gap in
// between (indices into Profile::blocks).
struct BlockEdge {
  uint32_t from = 0;
  uint32_t to = 0;
  uint64_t count = 0;

  friend bool operator==(const BlockEdge&, const BlockEdge&) = default;
};

// A call tree. nodes[0] is a root without a frame; nodes are in preorder,
// children ordered by FrameKey, so node i's subtree is [i, nodes[i].end).
struct CallTree {
  struct Node {
    FrameKey frame;
    uint32_t parent = 0;  // nodes[0].parent = 0
    uint32_t end = 0;     // one past the last node of the subtree
    uint32_t depth = 0;   // root 0, its children 1, ...
    uint64_t calls = 0;   // near calls from the parent that entered it
    uint64_t gaps = 0;    // kGap leaves: gaps that ended this stack
    uint64_t self_insns = 0;
    uint64_t self_time = 0;
    uint64_t total_insns = 0;  // self + all descendants
    uint64_t total_time = 0;

    friend bool operator==(const Node&, const Node&) = default;
  };
  // Instructions a node ran per unique block: lets report/ split a node by
  // the inline frames of each address (after BlockExpansion) while staying
  // bounded by unique (stack, block) pairs.
  struct NodeBlock {
    uint32_t node = 0;
    uint32_t block = 0;  // index into Profile::blocks
    uint64_t count = 0;  // executions of the block in this node
    uint64_t time = 0;

    friend bool operator==(const NodeBlock&, const NodeBlock&) = default;
  };
  std::vector<Node> nodes;
  std::vector<NodeBlock> node_blocks;  // sorted by (node, block)

  // Iteration helpers over preorder nodes.
  uint32_t FirstChild(uint32_t n) const { return n + 1; }
  uint32_t NextSibling(uint32_t n) const { return nodes[n].end; }

  friend bool operator==(const CallTree&, const CallTree&) = default;
};

// One stack of execution: a thread-mode buffer, or in CPU mode one (buffer,
// context) pair. In a profile of several captures (analysis/saved/) threads
// stay apart per capture: `capture` is the index of the capture they came
// from (0 in the profile of one capture).
struct ThreadProfile {
  uint32_t capture = 0;
  uint32_t stream = 0;
  uint64_t context = 0;  // CR3 / context ID in CPU mode; 0 otherwise
  CallTree tree;

  friend bool operator==(const ThreadProfile&, const ThreadProfile&) = default;
};

struct FunctionStats {
  FrameKey frame;
  uint64_t self_insns = 0;
  uint64_t total_insns = 0;  // stacks containing it (recursion once)
  uint64_t self_time = 0;
  uint64_t total_time = 0;
  uint64_t calls = 0;  // times entered by a near call

  friend bool operator==(const FunctionStats&, const FunctionStats&) = default;
};

struct CallEdge {
  FrameKey caller;
  FrameKey callee;
  uint64_t count = 0;  // near call instructions

  friend bool operator==(const CallEdge&, const CallEdge&) = default;
};

// An acyclic intra-procedural path: the blocks one frame ran in address
// order, from the frame's entry (or from a backward transfer such as a loop
// back edge) to the next backward transfer or the frame's end. Paths cut by
// a gap or the end of the trace are not counted.
struct PathStats {
  std::vector<uint32_t> blocks;  // indices into Profile::blocks
  uint64_t count = 0;            // complete executions
  uint64_t insns = 0;            // instructions per execution
  uint64_t weight() const { return count * insns; }

  friend bool operator==(const PathStats&, const PathStats&) = default;
};

struct ProfileStats {
  uint64_t events = 0;
  uint64_t blocks = 0;  // block events
  uint64_t instructions = 0;
  uint64_t time = 0;  // attributed time
  uint64_t gaps = 0;
  std::array<uint64_t, 6> gaps_by_reason{};  // indexed by GapReason
  uint64_t disables = 0;
  uint64_t enables = 0;
  uint64_t exceptions = 0;
  uint64_t context_events = 0;         // kPaging and kContext
  uint64_t unknown_region_blocks = 0;  // blocks outside every image
  uint64_t invalid_region_events = 0;  // Event::region out of range
  uint64_t malformed_blocks = 0;       // ninsn == 0: ignored

  friend bool operator==(const ProfileStats&, const ProfileStats&) = default;
};
// Adds every counter of `from` to `into` (segments joined, profiles merged).
void AddStats(ProfileStats& into, const ProfileStats& from);

// What a profile's counts are: the instruction weights of its trees and
// functions (*_insns), ProfileStats::instructions and BlockStats::count.
enum class ProfileCounts : uint8_t {
  kInstructions,  // executed instructions: a control-flow trace, exact
  // Samples of a sampling trace (SPE, analysis/sample_profile.h): each
  // counts one where it was taken; the time weights are then the samples'
  // latency in cycles (0 for a sample without one), not timestamps.
  kSamples,
};

struct Profile {
  ProfileCounts counts = ProfileCounts::kInstructions;
  bool has_time = false;                 // some block carried a timestamp
  std::vector<ThreadProfile> threads;    // sorted by (capture, stream, context)
  CallTree merged;                       // all threads merged by stack
  std::vector<FunctionStats> functions;  // sorted by frame
  std::vector<CallEdge> call_edges;      // sorted by (caller, callee)
  std::vector<BlockStats> blocks;        // sorted by (image, vaddr, ninsn, ...)
  std::vector<BlockEdge> edges;          // sorted by (from, to)
  std::vector<PathStats> paths;  // by weight, descending (see hot_paths.h)
  ProfileStats stats;

  friend bool operator==(const Profile&, const Profile&) = default;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_PROFILE_H_
