// Interning and counters of ProfileStore.
#include "analysis/profile_store.h"

#include <algorithm>
#include <bit>

namespace hwt::analysis::internal {

ProfileStore::ProfileStore(SlotArrayLimits limits)
    : edge_cache_(size_t{1} << kCacheBits), limits_(limits) {
  paths_.push_back(PathRecord{});
}

std::pair<uint32_t, bool> ProfileStore::InternBlock(const BlockKey& key) {
  auto [it, inserted] =
      block_index_.try_emplace(key, static_cast<uint32_t>(blocks_.size()));
  if (inserted) {
    BlockRecord record;
    record.key = key;
    blocks_.push_back(record);
    memo_.emplace_back();
  }
  return {it->second, inserted};
}

uint32_t ProfileStore::FunctionNumber(const FunctionId& fn) {
  return functions_.try_emplace(fn, static_cast<uint32_t>(functions_.size()), 0)
      .first->second.first;
}

void ProfileStore::SetFunctions(uint32_t block, const FunctionId& fn,
                                const FunctionId& last_fn) {
  BlockRecord& b = blocks_[block];
  b.fn = fn;
  b.last_fn = last_fn;
  memo_[block].function = FunctionNumber(fn);
  memo_[block].last_function = FunctionNumber(last_fn);
}

void ProfileStore::CountBlocksFromSlots() {
  for (BlockRecord& b : blocks_) b.count = 0;
  for (const SlotRecord& s : slots_) blocks_[s.block].count += s.count;
}

uint32_t ProfileStore::NewNode(uint32_t parent, FrameKey key, NodeType type,
                               uint32_t ref) {
  NodeRecord node;
  node.parent = parent;
  node.key = key;
  node.type = type;
  node.ref = ref;
  nodes_.push_back(node);
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t ProfileStore::Child(uint32_t parent, const FrameKey& key) {
  auto [it, inserted] = children_.try_emplace(
      ChildKey{parent, key}, static_cast<uint32_t>(nodes_.size()));
  if (inserted) NewNode(parent, key, NodeType::kFrame, 0);
  return it->second;
}

namespace {

// The entry of `key` in a direct-mapped cache of 2^bits entries.
inline size_t CacheIndex(uint64_t key, int bits) {
  return static_cast<size_t>((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

// The home entry of `block` in a node's table: Fibonacci hashing, whose
// top bits spread the runs of nearby block ids a node has.
inline uint32_t Home(uint32_t block, uint32_t shift) {
  return (block * 0x9e3779b9u) >> shift;
}

}  // namespace

void ProfileStore::GrowTable(NodeSlots& slots) {
  const uint32_t capacity =
      slots.table == nullptr
          ? std::max<uint32_t>(2, std::bit_ceil(limits_.table_capacity))
          : 2 * (slots.mask + 1);
  auto table = std::make_unique<NodeSlotEntry[]>(capacity);
  const uint32_t mask = capacity - 1;
  const uint32_t shift = 32 - std::countr_zero(capacity);
  for (uint32_t i = 0; slots.table != nullptr && i <= slots.mask; ++i) {
    const NodeSlotEntry& old = slots.table[i];
    if (old.block == kNone) continue;
    uint32_t j = Home(old.block, shift);
    while (table[j].block != kNone) j = (j + 1) & mask;
    table[j] = old;
  }
  slots.table = std::move(table);
  slots.mask = mask;
  slots.shift = shift;
}

uint32_t ProfileStore::TableSlot(NodeSlots& slots, uint32_t node,
                                 uint32_t block) {
  if (slots.table == nullptr) GrowTable(slots);
  uint32_t i = Home(block, slots.shift);
  for (;; i = (i + 1) & slots.mask) {
    const NodeSlotEntry& entry = slots.table[i];
    if (entry.block == block) return entry.slot;
    if (entry.block == kNone) break;
  }
  // At most half full keeps the probe runs short.
  if (2 * (slots.table_used + 1) > slots.mask + 1) {
    GrowTable(slots);
    i = Home(block, slots.shift);
    while (slots.table[i].block != kNone) i = (i + 1) & slots.mask;
  }
  const uint32_t slot = static_cast<uint32_t>(slots_.size());
  slots_.push_back(SlotRecord{node, block, 0, 0});
  slots.table[i] = NodeSlotEntry{block, slot};
  ++slots.table_used;
  return slot;
}

uint32_t ProfileStore::NodeSlot(uint32_t node, uint32_t block,
                                BlockMemo& memo) {
  if (memo.local == kNone) {
    auto& [number, numbered] =
        functions_
            .try_emplace(blocks_[block].fn,
                         static_cast<uint32_t>(functions_.size()), 0)
            .first->second;
    memo.function = number;
    memo.local = numbered++;
  }
  if (node >= node_slots_.size()) node_slots_.resize(nodes_.size());
  NodeSlots& slots = node_slots_[node];
  if (slots.function == kNone) slots.function = memo.function;
  if (slots.function != memo.function || memo.local >= limits_.local_blocks) {
    return TableSlot(slots, node, block);
  }
  if (memo.local >= slots.array.size()) {
    // Growing is the one decision that depends on what came before: after
    // a refusal this array (after a refusal of the budget, every array)
    // grows no more, so a pair that went to the table is never looked for
    // in an array later.
    if (slots.frozen || node_slots_full_) return TableSlot(slots, node, block);
    const size_t old_size = slots.array.size();
    const size_t size = std::max<size_t>(
        memo.local + 1, std::min<size_t>(2 * old_size, limits_.local_blocks));
    if (size > limits_.dense_blocks &&
        size > size_t{limits_.sparsity} * (slots.array_used + 1)) {
      slots.frozen = true;
      return TableSlot(slots, node, block);
    }
    if (node_slot_entries_ + (size - old_size) > limits_.entries) {
      node_slots_full_ = true;
      return TableSlot(slots, node, block);
    }
    node_slot_entries_ += size - old_size;
    slots.array.resize(size, kNone);
  }
  uint32_t& slot = slots.array[memo.local];
  if (slot == kNone) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(SlotRecord{node, block, 0, 0});
    ++slots.array_used;
  }
  return slot;
}

uint32_t ProfileStore::Slot(uint32_t node, uint32_t block) {
  BlockMemo& memo = memo_[block];
  if (memo.slot_node[0] == node) return memo.slot[0];
  uint32_t slot;
  if (memo.slot_node[1] == node) {
    slot = memo.slot[1];
  } else {
    slot = NodeSlot(node, block, memo);
  }
  memo.slot_node[1] = memo.slot_node[0];
  memo.slot[1] = memo.slot[0];
  memo.slot_node[0] = node;
  memo.slot[0] = slot;
  return slot;
}

void ProfileStore::AddEdge(uint32_t from, uint32_t to, uint64_t count) {
  BlockMemo& memo = memo_[from];
  if (memo.edge_to[0] != to) {
    if (memo.edge_to[1] == to) {
      std::swap(memo.edge_to[0], memo.edge_to[1]);
      std::swap(memo.edge[0], memo.edge[1]);
    } else {
      const uint64_t key = (uint64_t{from} << 32) | to;
      CacheEntry& cached = edge_cache_[CacheIndex(key, kCacheBits)];
      if (cached.key != key) {
        auto [it, inserted] =
            edge_index_.try_emplace(key, static_cast<uint32_t>(edges_.size()));
        if (inserted) edges_.push_back(EdgeRecord{from, to, 0});
        cached.key = key;
        cached.value = it->second;
      }
      memo.edge_to[1] = memo.edge_to[0];
      memo.edge[1] = memo.edge[0];
      memo.edge_to[0] = to;
      memo.edge[0] = cached.value;
    }
  }
  edges_[memo.edge[0]].count += count;
}

uint32_t ProfileStore::PathChild(uint32_t parent, uint32_t block) {
  BlockMemo& memo = memo_[block];
  if (memo.path_parent == parent) return memo.path_child;
  auto [it, inserted] = path_index_.try_emplace(
      (uint64_t{parent} << 32) | block, static_cast<uint32_t>(paths_.size()));
  if (inserted) {
    PathRecord path;
    path.parent = parent;
    path.block = block;
    path.type = PathType::kStep;
    path.depth = paths_[parent].depth + 1;
    paths_.push_back(path);
  }
  memo.path_parent = parent;
  memo.path_child = it->second;
  return it->second;
}

uint32_t ProfileStore::NewContRoot(uint32_t base_id) {
  PathRecord path;
  path.type = PathType::kCont;
  path.ref = base_id;
  paths_.push_back(path);
  return static_cast<uint32_t>(paths_.size() - 1);
}

}  // namespace hwt::analysis::internal
