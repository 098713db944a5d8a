// The mutable aggregates behind a Profile, shared by ProfileBuilder (which
// fills one while consuming events) and ProfileMerger (which folds segment
// stores into one): unique blocks, call-tree nodes, per-(node, block)
// counters, block successions and the trie of intra-procedural paths. Ids
// are dense indices in creation order; FinishProfile() puts everything into
// canonical order. Internal to analysis/.
#ifndef HWT_ANALYSIS_PROFILE_STORE_H_
#define HWT_ANALYSIS_PROFILE_STORE_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/frame.h"
#include "analysis/profile.h"
#include "decoders/event.h"

namespace hwt::analysis::internal {

inline constexpr uint32_t kNone = 0xffffffffu;

struct BlockKey {
  uint32_t image = kNoImage;
  uint32_t ninsn = 0;
  uint64_t vaddr = 0;
  uint64_t last_vaddr = 0;
  BranchKind end = BranchKind::kNone;
  Isa isa = Isa::kUnknown;

  friend bool operator==(const BlockKey&, const BlockKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const BlockKey& k) {
    return H::combine(std::move(h), k.image, k.ninsn, k.vaddr, k.last_vaddr,
                      k.end, k.isa);
  }
};

struct BlockRecord {
  BlockKey key;
  FunctionId fn;       // of key.vaddr
  FunctionId last_fn;  // of key.last_vaddr
  uint32_t region = kNoRegion;
  uint64_t count = 0;
  uint64_t time = 0;
};

enum class NodeType : uint8_t {
  kFrame,       // a stack frame under its parent
  kThreadRoot,  // the root of one thread's stacks
  kBase,        // segment mode: the unknown stack below a base operation
};

struct NodeRecord {
  uint32_t parent = kNone;
  FrameKey key;
  NodeType type = NodeType::kFrame;
  uint32_t ref = 0;  // kThreadRoot: thread index; kBase: base id
  uint64_t calls = 0;
  uint64_t gaps = 0;
};

enum class PathType : uint8_t {
  kRoot,  // the empty path (id 0)
  kCont,  // segment mode: the unknown path a base frame continues
  kStep,  // parent path plus one block
};

struct PathRecord {
  uint32_t parent = kNone;
  uint32_t block = kNone;
  PathType type = PathType::kRoot;
  uint32_t ref = 0;  // kCont: base id
  uint32_t depth = 0;
  uint64_t completed = 0;
};

struct SlotRecord {
  uint32_t node = 0;
  uint32_t block = 0;
  uint64_t count = 0;
  uint64_t time = 0;
};

struct EdgeRecord {
  uint32_t from = 0;
  uint32_t to = 0;
  uint64_t count = 0;
};

// How the per-node slot arrays and tables of a ProfileStore are sized (see
// ProfileStore::NodeSlots; array entries are 4 bytes). An array grows to
// `size` entries only while size <= dense_blocks or size <= sparsity *
// (slots in it + 1), never for a function's blocks beyond `local_blocks`,
// and no array grows once `entries` are spent; what an array does not
// take goes to the node's table, which starts at `table_capacity` entries
// (rounded up to a power of two, at least 2). Tests make them small.
// dense_blocks = 256 (1 KiB an array) keeps nearly every lookup of the
// synthetic PT bench in arrays, where 16 sent 17 M of its 24 M lookups to
// the slower tables; on CoreSight without symbols a node's first block
// usually has an index in the thousands, so its array never starts.
struct SlotArrayLimits {
  uint32_t local_blocks = 1u << 14;
  size_t entries = size_t{1} << 24;
  uint32_t dense_blocks = 256;
  uint32_t sparsity = 8;
  uint32_t table_capacity = 4;
};

class ProfileStore {
 public:
  static constexpr uint32_t kPathRoot = 0;

  explicit ProfileStore(SlotArrayLimits limits = {});

  // Returns the id of the block with this key, creating an empty record
  // (second = true) when new. Give a new block its functions with
  // SetFunctions() before it is counted or compared.
  std::pair<uint32_t, bool> InternBlock(const BlockKey& key);
  // Sets the functions of a block's first and last instruction.
  void SetFunctions(uint32_t block, const FunctionId& fn,
                    const FunctionId& last_fn);
  // Whether `to` starts in the function `from` ends in (BlockRecord::last_fn
  // of `from` == fn of `to`), by the blocks' function numbers: the block
  // records themselves stay out of the CPU caches.
  bool SameFunctionAcross(uint32_t from, uint32_t to) const {
    return memo_[from].last_function == memo_[to].function;
  }
  // Sets every block's count to the sum of its slots' counts. A builder
  // counts a block event once in its slot only (not also in the block's
  // record, a cache miss per block), so this is each block's count.
  void CountBlocksFromSlots();

  uint32_t NewNode(uint32_t parent, FrameKey key, NodeType type, uint32_t ref);
  // The frame node `key` under `parent`, created on first use.
  uint32_t Child(uint32_t parent, const FrameKey& key);

  // The counters of (node, block), created on first use.
  uint32_t Slot(uint32_t node, uint32_t block);

  void AddEdge(uint32_t from, uint32_t to, uint64_t count);

  // The path `parent` extended by `block`, created on first use.
  uint32_t PathChild(uint32_t parent, uint32_t block);
  uint32_t NewContRoot(uint32_t base_id);

  std::vector<BlockRecord>& blocks() { return blocks_; }
  const std::vector<BlockRecord>& blocks() const { return blocks_; }
  std::vector<NodeRecord>& nodes() { return nodes_; }
  const std::vector<NodeRecord>& nodes() const { return nodes_; }
  std::vector<SlotRecord>& slots() { return slots_; }
  const std::vector<SlotRecord>& slots() const { return slots_; }
  std::vector<PathRecord>& paths() { return paths_; }
  const std::vector<PathRecord>& paths() const { return paths_; }
  const std::vector<EdgeRecord>& edges() const { return edges_; }

 private:
  struct ChildKey {
    uint32_t parent;
    FrameKey key;
    friend bool operator==(const ChildKey&, const ChildKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const ChildKey& k) {
      return H::combine(std::move(h), k.parent, k.key);
    }
  };

  // Per block, the last two answers of Slot (a block shared by two callers
  // runs under two nodes in turn: on a CoreSight snapshot a one-entry memo
  // missed a fifth of the lookups, and the second entry catches two fifths
  // of those), the last of PathChild and the last two of AddEdge (a conditional
  // branch goes two ways): in loops the same (node, block), (path, block) and
  // (block, successor) come back over and over, and a memo hit saves a probe of
  // a node's table or a hash table.
  struct BlockMemo {
    uint32_t slot_node[2] = {kNone, kNone};  // [0]: the most recent
    uint32_t slot[2] = {kNone, kNone};
    uint32_t path_parent = kNone;
    uint32_t path_child = kNone;
    uint32_t edge_to[2] = {kNone, kNone};  // [0]: the most recent
    uint32_t edge[2] = {kNone, kNone};
    // The numbers (indices into functions_) of the block's functions
    // (BlockRecord::fn and last_fn), set by SetFunctions(); and the block's
    // index among its function's blocks, for NodeSlots, kNone until Slot()
    // needs it.
    uint32_t function = kNone;
    uint32_t last_function = kNone;
    uint32_t local = kNone;
  };

  // Per node, its slots, in two parts. An array, for the blocks of one
  // function (the one of the first block counted under the node: a frame's
  // blocks are its function's), indexed by the block's index in that
  // function: two loads, and consecutive blocks share cache lines. It grows
  // only while it stays dense (SlotArrayLimits), since a function can be
  // huge: without symbols a whole image is one function of thousands of
  // blocks, of which a node may run a few with large indices. Whatever the
  // array does not take goes to a small open-addressed table of (block,
  // slot), linear probing, at most half full, sized by what it holds. Once
  // an array has refused to grow it never grows again (nor any array, once
  // the entry budget is spent), so every (node, block) pair is always found
  // in the same part.
  struct NodeSlotEntry {
    uint32_t block = kNone;  // kNone: empty
    uint32_t slot = 0;
  };
  struct NodeSlots {
    uint32_t function = kNone;
    bool frozen = false;                     // the array grows no more
    uint32_t array_used = 0;                 // slots in the array
    std::vector<uint32_t> array;             // kNone: not counted yet
    std::unique_ptr<NodeSlotEntry[]> table;  // null until first needed
    uint32_t mask = 0;                       // table capacity - 1
    uint32_t shift = 0;                      // 32 - log2(table capacity)
    uint32_t table_used = 0;
  };
  // The slot of (node, block), created on first use.
  uint32_t NodeSlot(uint32_t node, uint32_t block, BlockMemo& memo);
  // The slot of `block` in the table of `slots`, created on first use.
  uint32_t TableSlot(NodeSlots& slots, uint32_t node, uint32_t block);
  // Doubles a node's table (or makes its first) and reinserts its entries.
  void GrowTable(NodeSlots& slots);

  // In front of the (block, successor) table: a direct-mapped cache of
  // recent keys, for what the per-block memo misses (a branch that goes
  // both ways). 2^12 entries of 16 bytes stay in the L1/L2 cache.
  struct CacheEntry {
    uint64_t key = ~uint64_t{0};  // no (block, successor) has this key
    uint32_t value = 0;
  };
  static constexpr int kCacheBits = 12;

  std::vector<BlockRecord> blocks_;
  std::vector<BlockMemo> memo_;
  std::vector<CacheEntry> edge_cache_;
  absl::flat_hash_map<BlockKey, uint32_t> block_index_;
  std::vector<NodeRecord> nodes_;
  absl::flat_hash_map<ChildKey, uint32_t> children_;
  std::vector<SlotRecord> slots_;
  SlotArrayLimits limits_;
  std::vector<NodeSlots> node_slots_;  // by node, grown on demand
  size_t node_slot_entries_ = 0;       // of every NodeSlots::array
  bool node_slots_full_ = false;       // the budget refused a growth
  // The number of a function (its index here) and how many of its blocks
  // NodeSlot() has numbered.
  uint32_t FunctionNumber(const FunctionId& fn);
  // A function -> (its number, blocks of it numbered so far).
  absl::flat_hash_map<FunctionId, std::pair<uint32_t, uint32_t>> functions_;
  std::vector<EdgeRecord> edges_;
  absl::flat_hash_map<uint64_t, uint32_t> edge_index_;
  std::vector<PathRecord> paths_;
  absl::flat_hash_map<uint64_t, uint32_t> path_index_;
};

}  // namespace hwt::analysis::internal

#endif  // HWT_ANALYSIS_PROFILE_STORE_H_
