// ProfileMerger: applies segments in order. For each thread it takes the
// state the previous segments left, replays the segment's operations on
// that (now known) stack with the same StackMachine the builder uses, maps
// the segment's nodes, paths and blocks into the merged store, and adds its
// counters. The result equals a sequential build (tested with random splits).
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/profile_builder.h"
#include "analysis/profile_store.h"
#include "analysis/segment_data.h"
#include "analysis/stack_machine.h"

namespace hwt::analysis {

using internal::BaseOp;
using internal::BaseOpKind;
using internal::Frame;
using internal::kNone;
using internal::NodeType;
using internal::PathType;
using internal::ProfileStore;
using internal::SegmentData;
using internal::StackMachine;
using internal::Target;
using internal::ThreadState;
using internal::TimePending;

namespace {

// Maps a segment's ids into the merged store.
class Remap {
 public:
  Remap(const SegmentData& seg, ProfileStore& store)
      : seg_(seg),
        store_(store),
        blocks_(seg.store.blocks().size(), kNone),
        nodes_(seg.store.nodes().size(), kNone),
        paths_(seg.store.paths().size(), kNone),
        base_node_(seg.bases.size(), kNone),
        base_path_(seg.bases.size(), kNone) {
    paths_[ProfileStore::kPathRoot] = ProfileStore::kPathRoot;
    for (uint32_t n = 0; n < seg.store.nodes().size(); ++n) {
      const auto& node = seg.store.nodes()[n];
      if (node.type == NodeType::kBase) base_node_[node.ref] = n;
    }
    for (uint32_t p = 0; p < seg.store.paths().size(); ++p) {
      const auto& path = seg.store.paths()[p];
      if (path.type == PathType::kCont) base_path_[path.ref] = p;
    }
  }

  void SetBlock(uint32_t seg_block, uint32_t block) {
    blocks_[seg_block] = block;
  }
  void SetNode(uint32_t seg_node, uint32_t node) { nodes_[seg_node] = node; }
  // A base operation is resolved: its base frame is `frame`.
  void ResolveBase(uint32_t base_id, const Frame& frame) {
    nodes_[base_node_[base_id]] = frame.node;
    paths_[base_path_[base_id]] = frame.path;
  }

  uint32_t Block(uint32_t b) const { return b == kNone ? kNone : blocks_[b]; }

  uint32_t Node(uint32_t n) {
    if (nodes_[n] != kNone) return nodes_[n];
    // Thread roots and base nodes are set before use; map the chain of frame
    // nodes below the first mapped ancestor, top down.
    std::vector<uint32_t> chain;
    for (uint32_t cur = n; nodes_[cur] == kNone;
         cur = seg_.store.nodes()[cur].parent) {
      chain.push_back(cur);
    }
    for (size_t i = chain.size(); i-- > 0;) {
      const auto& node = seg_.store.nodes()[chain[i]];
      nodes_[chain[i]] = store_.Child(nodes_[node.parent], node.key);
    }
    return nodes_[n];
  }

  uint32_t Path(uint32_t p) {
    if (paths_[p] != kNone) return paths_[p];
    std::vector<uint32_t> chain;
    for (uint32_t cur = p; paths_[cur] == kNone;
         cur = seg_.store.paths()[cur].parent) {
      chain.push_back(cur);
    }
    for (size_t i = chain.size(); i-- > 0;) {
      const auto& path = seg_.store.paths()[chain[i]];
      paths_[chain[i]] =
          store_.PathChild(paths_[path.parent], blocks_[path.block]);
    }
    return paths_[p];
  }

  Frame Concrete(const Frame& f) {
    Frame out = f;
    out.node = Node(f.node);
    out.path = Path(f.path);
    out.last_block = Block(f.last_block);
    out.saved_from_block = Block(f.saved_from_block);
    return out;
  }

  // `frames` is a segment stack whose bottom is a base frame standing for
  // the top of `stack`: make `stack` the concrete stack it stands for.
  void Rebuild(std::vector<Frame>& stack, const std::vector<Frame>& frames) {
    Frame& top = stack.back();
    top.path = Path(frames[0].path);
    top.last_block = Block(frames[0].last_block);
    top.last_ip = frames[0].last_ip;
    for (size_t i = 1; i < frames.size(); ++i) {
      stack.push_back(Concrete(frames[i]));
    }
  }

  TimePending Pending(const TimePending& p) {
    if (p.slot == kNone) return TimePending{};
    const auto& slot = seg_.store.slots()[p.slot];
    const uint32_t node = Node(slot.node);
    return TimePending{store_.Slot(node, Block(slot.block)), Block(p.block),
                       p.time};
  }

 private:
  const SegmentData& seg_;
  ProfileStore& store_;
  std::vector<uint32_t> blocks_;
  std::vector<uint32_t> nodes_;
  std::vector<uint32_t> paths_;
  std::vector<uint32_t> base_node_;
  std::vector<uint32_t> base_path_;
};

}  // namespace

class ProfileMerger::Impl {
 public:
  void Append(const SegmentData& seg);
  Profile Finish() {
    return internal::FinishProfile(store_, threads_, stats_, has_time_);
  }

 private:
  struct MergedStream {
    uint64_t context = 0;
    TimePending pending;
    bool seen = false;
    uint64_t last_offset = 0;  // of the stream's last event so far
  };

  uint32_t Thread(uint32_t stream, uint64_t context);
  void MergeThread(const SegmentData& seg, const ThreadState& t, Remap& rm);

  ProfileStore store_;
  StackMachine machine_{store_, nullptr};
  std::vector<ThreadState> threads_;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint32_t> thread_index_;
  absl::flat_hash_map<uint32_t, MergedStream> streams_;
  ProfileStats stats_;
  bool has_time_ = false;
};

uint32_t ProfileMerger::Impl::Thread(uint32_t stream, uint64_t context) {
  auto [it, inserted] = thread_index_.try_emplace(
      {stream, context}, static_cast<uint32_t>(threads_.size()));
  if (inserted) {
    ThreadState t;
    t.index = it->second;
    t.stream = stream;
    t.context = context;
    t.root_node =
        store_.NewNode(kNone, FrameKey{}, NodeType::kThreadRoot, t.index);
    threads_.push_back(std::move(t));
  }
  return it->second;
}

void ProfileMerger::Impl::Append(const SegmentData& seg) {
  // Paths go on across the seam only when the segments counted them.
  machine_.set_track_paths(seg.hot_paths);
  Remap rm(seg, store_);
  for (uint32_t b = 0; b < seg.store.blocks().size(); ++b) {
    const internal::BlockRecord& from = seg.store.blocks()[b];
    auto [id, created] = store_.InternBlock(from.key);
    internal::BlockRecord& to = store_.blocks()[id];
    if (created) {
      store_.SetFunctions(id, from.fn, from.last_fn);
      to.region = from.region;
    } else {
      to.region = std::min(to.region, from.region);
    }
    to.count += from.count;
    to.time += from.time;
    rm.SetBlock(b, id);
  }
  for (const internal::EdgeRecord& e : seg.store.edges()) {
    store_.AddEdge(rm.Block(e.from), rm.Block(e.to), e.count);
  }

  // The first block, disable or gap of a stream settles the timing weight
  // of the previous segment's last block.
  for (const internal::StreamSegment& s : seg.streams) {
    MergedStream& m = streams_[s.id];
    if (!s.resolver_seen) continue;
    if (s.first_resolver != EventKind::kGap && s.first_resolver_time != 0) {
      internal::AddPendingTime(store_, m.pending, s.first_resolver_time,
                               stats_);
    }
    m.pending = TimePending{};
  }

  // An exec between the previous segment's last event and this segment's
  // first one: the stack the previous segments left ends there.
  for (const internal::StreamSegment& s : seg.streams) {
    MergedStream& m = streams_[s.id];
    if (s.lead_reset && (!m.seen || m.last_offset <= s.lead_reset_position)) {
      StackMachine::Reset(threads_[Thread(s.id, m.context)]);
    }
  }

  // A CPU-mode thread that continues the previous segment's context goes
  // first: the segment's other threads come after it in trace order.
  for (const ThreadState& t : seg.threads) {
    if (t.inherit_context) MergeThread(seg, t, rm);
  }
  for (const ThreadState& t : seg.threads) {
    if (!t.inherit_context) MergeThread(seg, t, rm);
  }

  for (uint32_t n = 0; n < seg.store.nodes().size(); ++n) {
    const internal::NodeRecord& node = seg.store.nodes()[n];
    if (node.type != NodeType::kFrame || (node.calls == 0 && node.gaps == 0)) {
      continue;
    }
    const uint32_t to = rm.Node(n);
    store_.nodes()[to].calls += node.calls;
    store_.nodes()[to].gaps += node.gaps;
  }
  for (const internal::SlotRecord& slot : seg.store.slots()) {
    const uint32_t node = rm.Node(slot.node);
    const uint32_t to = store_.Slot(node, rm.Block(slot.block));
    store_.slots()[to].count += slot.count;
    store_.slots()[to].time += slot.time;
  }
  for (uint32_t p = 0; p < seg.store.paths().size(); ++p) {
    const uint64_t completed = seg.store.paths()[p].completed;
    if (completed == 0) continue;
    const uint32_t to = rm.Path(p);
    store_.paths()[to].completed += completed;
  }

  for (const internal::StreamSegment& s : seg.streams) {
    MergedStream& m = streams_[s.id];
    if (s.resolver_seen) m.pending = rm.Pending(s.pending);
    if (s.context_seen) m.context = s.context;
    m.seen = true;
    m.last_offset = s.last_offset;
  }
  AddStats(stats_, seg.stats);
  has_time_ = has_time_ || seg.has_time;
}

void ProfileMerger::Impl::MergeThread(const SegmentData& seg,
                                      const ThreadState& t, Remap& rm) {
  const uint64_t context =
      t.inherit_context ? streams_[t.stream].context : t.context;
  ThreadState& m = threads_[Thread(t.stream, context)];
  rm.SetNode(t.root_node, m.root_node);
  const auto map_block = [&rm](uint32_t block) { return rm.Block(block); };

  if (t.lead_gap) {
    machine_.Gap(m);
  } else if (t.lead_reset) {
    StackMachine::Reset(m);
  } else if (t.unknown_start) {
    // The segment saw no block or gap of this thread, only events that
    // change what the previous block's transition will do.
    if (t.lead.disabled) m.disabled = true;
    t.lead.ApplyTo(m.pending, map_block);
    return;
  }

  for (uint32_t id : t.base_ids) {
    const BaseOp& op = seg.bases[id];
    const Target target{rm.Block(op.target.block), op.target.ip,
                        op.target.last_ip};
    switch (op.kind) {
      case BaseOpKind::kContinue:
        if (op.lead.disabled) m.disabled = true;
        op.lead.ApplyTo(m.pending, map_block);
        machine_.Transition(m, target);
        break;
      case BaseOpKind::kReturn:
        rm.Rebuild(m.stack, op.snapshot);
        machine_.Return(m, target);
        break;
      case BaseOpKind::kReplace:
        rm.Rebuild(m.stack, op.snapshot);
        machine_.Replace(m, target);
        break;
      case BaseOpKind::kFarReturn:
        rm.Rebuild(m.stack, op.snapshot);
        machine_.FarReturn(m, target);
        break;
      case BaseOpKind::kJump:
        rm.Rebuild(m.stack, op.snapshot);
        machine_.Jump(m, target);
        break;
    }
    const Target appended{rm.Block(op.appended.block), op.appended.ip,
                          op.appended.last_ip};
    machine_.AppendToPath(m.stack.back(), appended);
    rm.ResolveBase(id, m.stack.back());
  }

  if (!t.stack.empty() && t.stack[0].base) {
    rm.Rebuild(m.stack, t.stack);
  } else {
    m.stack.clear();
    for (const Frame& f : t.stack) m.stack.push_back(rm.Concrete(f));
  }
  m.pending = t.pending;
  m.pending.from_block = rm.Block(t.pending.from_block);
  m.pending.interrupted.block = rm.Block(t.pending.interrupted.block);
  m.last_block = rm.Block(t.last_block);
  m.disabled = t.disabled;
}

ProfileMerger::ProfileMerger() : impl_(std::make_unique<Impl>()) {}
ProfileMerger::~ProfileMerger() = default;

void ProfileMerger::Append(ProfileSegment segment) {
  impl_->Append(segment.data());
}

Profile ProfileMerger::Finish() { return impl_->Finish(); }

}  // namespace hwt::analysis
