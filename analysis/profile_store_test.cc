// ProfileStore's counters are found the same whichever way a lookup goes
// (the per-block memos, the per-node slot arrays and tables, the
// direct-mapped cache, the edge table): Slot() and AddEdge() give every
// (node, block) and (block, successor) one id, in order of first use, and
// the counts added through those ids stay each pair's own, also when the
// limits send pairs from the arrays to the tables midway and the tables
// start at 2 entries and grow and wrap around all the time.
#include "analysis/profile_store.h"

#include <map>
#include <random>
#include <utility>

#include "gtest/gtest.h"

namespace hwt::analysis::internal {
namespace {

// Interns `blocks` blocks spread over `functions` functions (and some of no
// function) and `nodes` nodes.
void Populate(ProfileStore& store, int blocks, int functions, int nodes) {
  for (int b = 0; b < blocks; ++b) {
    BlockKey key;
    key.image = 0;
    key.vaddr = 0x1000 + 16 * b;
    key.last_vaddr = key.vaddr + 8;
    key.ninsn = 3;
    const auto [id, created] = store.InternBlock(key);
    ASSERT_TRUE(created);
    BlockRecord& record = store.blocks()[id];
    if (b % 7 != 0) {
      const uint64_t start = 0x1000 + 0x100 * (b % functions);
      record.fn = {FrameKind::kFunction, 0, start, start + 0x100};
    }
  }
  for (int n = 0; n < nodes; ++n) {
    store.NewNode(kNone, FrameKey{}, NodeType::kFrame, 0);
  }
}

void ExpectIdsInOrderOfFirstUse(SlotArrayLimits limits, int kBlocks = 300,
                                int kFunctions = 5, int kNodes = 40) {
  ProfileStore store(limits);
  Populate(store, kBlocks, kFunctions, kNodes);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> slots, edges;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> counts;
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) {
    // Mostly a node's own function's blocks, as in a profile, but any pair
    // now and then; runs of the same pair for the memos.
    const uint32_t node = random() % kNodes;
    uint32_t block = random() % kBlocks;
    if (random() % 4 != 0) {
      block = (block / kFunctions) * kFunctions + node % kFunctions;
    }
    const uint32_t next = (block + 1 + random() % 2) % kBlocks;
    for (int repeat = random() % 3; repeat >= 0; --repeat) {
      const auto slot = slots.try_emplace({node, block}, slots.size()).first;
      const uint32_t id = store.Slot(node, block);
      ASSERT_EQ(id, slot->second)
          << "node " << node << " block " << block << " at " << i;
      store.slots()[id].count += i + 1;
      counts[{node, block}] += i + 1;
      edges.try_emplace({block, next}, edges.size());
      store.AddEdge(block, next, 1);
    }
  }
  ASSERT_EQ(store.slots().size(), slots.size());
  for (const auto& [pair, id] : slots) {
    EXPECT_EQ(store.slots()[id].node, pair.first);
    EXPECT_EQ(store.slots()[id].block, pair.second);
    EXPECT_EQ(store.slots()[id].count, counts[pair]);
  }
  ASSERT_EQ(store.edges().size(), edges.size());
  for (const auto& [pair, id] : edges) {
    EXPECT_EQ(store.edges()[id].from, pair.first);
    EXPECT_EQ(store.edges()[id].to, pair.second);
  }
}

TEST(ProfileStoreTest, SlotsAndEdgesInOrderOfFirstUse) {
  ExpectIdsInOrderOfFirstUse(SlotArrayLimits{});
}

TEST(ProfileStoreTest, SlotArraysPastTheirLimits) {
  // Few blocks per function in an array, and a budget that runs out midway:
  // the pairs beyond go to the tables and are found there ever after.
  ExpectIdsInOrderOfFirstUse(
      SlotArrayLimits{.local_blocks = 8, .entries = 500});
  ExpectIdsInOrderOfFirstUse(SlotArrayLimits{.local_blocks = 64, .entries = 0});
  ExpectIdsInOrderOfFirstUse(SlotArrayLimits{.local_blocks = 1, .entries = 1});
}

TEST(ProfileStoreTest, SparseArraysStopGrowingAndTinyTablesWrap) {
  // Arrays that must stay nearly full refuse growth early, per node, at
  // different times; tables of 2 entries to start with grow several times
  // and their probe runs wrap past the end.
  ExpectIdsInOrderOfFirstUse(
      SlotArrayLimits{.dense_blocks = 2, .sparsity = 2, .table_capacity = 2});
  ExpectIdsInOrderOfFirstUse(
      SlotArrayLimits{.dense_blocks = 0, .sparsity = 1, .table_capacity = 2});
  // Every pair in a table (no array grows), of a capacity rounded up.
  ExpectIdsInOrderOfFirstUse(
      SlotArrayLimits{.entries = 0, .table_capacity = 3});
}

TEST(ProfileStoreTest, FewNodesOverOneHugeFunction) {
  // Code without symbols: thousands of blocks in one function, nodes that
  // run many of them in random order, as on a CoreSight capture of memory
  // dumps: the arrays stop growing early and the tables take the rest.
  ExpectIdsInOrderOfFirstUse(SlotArrayLimits{}, 20000, 1, 6);
  ExpectIdsInOrderOfFirstUse(SlotArrayLimits{.table_capacity = 2}, 20000, 1, 6);
}

TEST(ProfileStoreTest, OneBlockUnderNodesInTurn) {
  // A block shared by callers runs under their nodes in turn: the memo of
  // the last two nodes of a block hits on either and makes room for a third
  // without giving any node another's slot.
  ProfileStore store;
  Populate(store, 4, 1, 4);
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> slots;
  const uint32_t nodes[] = {0, 1, 0, 1, 1, 2, 0, 2, 3, 1, 3, 3, 0, 2, 1, 0};
  for (uint32_t block : {0u, 1u}) {
    for (uint32_t node : nodes) {
      const auto slot = slots.try_emplace({node, block}, slots.size()).first;
      EXPECT_EQ(store.Slot(node, block), slot->second)
          << "node " << node << " block " << block;
    }
  }
  EXPECT_EQ(store.slots().size(), 8u);
}

}  // namespace
}  // namespace hwt::analysis::internal
