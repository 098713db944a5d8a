// ProfileBuilder: events -> per-thread stacks and aggregates (see
// profile_builder.h). Address lookups (region, function) happen once per
// unique block; the per-block work is the stack rule plus a few counters.
#include "analysis/profile_builder.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analysis/profile_store.h"
#include "analysis/segment_data.h"
#include "analysis/stack_machine.h"

namespace hwt::analysis {

using internal::BaseHandler;
using internal::BaseOp;
using internal::BaseOpKind;
using internal::BlockKey;
using internal::BlockRecord;
using internal::Frame;
using internal::kNone;
using internal::NodeType;
using internal::PendingKind;
using internal::SegmentData;
using internal::StackMachine;
using internal::StreamSegment;
using internal::Target;
using internal::ThreadState;
using internal::TimePending;

ProfileSegment::ProfileSegment() = default;
ProfileSegment::ProfileSegment(std::unique_ptr<SegmentData> data)
    : data_(std::move(data)) {}
ProfileSegment::ProfileSegment(ProfileSegment&&) noexcept = default;
ProfileSegment& ProfileSegment::operator=(ProfileSegment&&) noexcept = default;
ProfileSegment::~ProfileSegment() = default;

namespace {

// The block as the decoder reported it, before mapping to (image, vaddr).
struct RawBlockKey {
  uint32_t region;
  uint32_t ninsn;
  uint64_t ip;
  uint64_t last_ip;
  BranchKind end;
  Isa isa;
  friend bool operator==(const RawBlockKey&, const RawBlockKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const RawBlockKey& k) {
    return H::combine(std::move(h), k.region, k.ninsn, k.ip, k.last_ip, k.end,
                      k.isa);
  }
};

// A block that followed a block, by the event's own fields: in loops the
// successor repeats, and a hit saves the lookups of BlockOf. Only for events
// that name their region (the lookup by position is not memoized).
struct SuccessorMemo {
  uint64_t ip = 0;
  uint64_t last_ip = 0;
  uint32_t ninsn = 0;
  uint32_t event_region = 0;  // 0: no memo
  BranchKind branch = BranchKind::kNone;
  Isa isa = Isa::kUnknown;
  uint32_t block = kNone;

  bool Matches(const Event& e) const {
    return event_region == e.region && ip == e.ip && last_ip == e.last_ip &&
           ninsn == e.ninsn && branch == e.branch && isa == e.isa;
  }
};

// The last two successors of a block, the most recent first: a conditional
// branch goes two ways. Events without decoder ids (CoreSight) come here
// for every block; with one successor per block a seventh of the blocks of
// a CoreSight snapshot missed, and in two thirds of those misses the block
// was the successor before the last. 64 bytes: one cache line.
struct alignas(64) Successors {
  SuccessorMemo way[2];

  // The memo that matches `e`, made the most recent; nullptr if none.
  const SuccessorMemo* Find(const Event& e) {
    if (way[0].Matches(e)) return &way[0];
    if (!way[1].Matches(e)) return nullptr;
    std::swap(way[0], way[1]);
    return &way[0];
  }
  // `memo` becomes the most recent, the older of the two goes.
  void Add(const SuccessorMemo& memo) {
    way[1] = way[0];
    way[0] = memo;
  }
};

struct StreamState {
  bool seen = false;
  size_t buffer = ~size_t{0};
  uint32_t thread = kNone;  // current thread
  bool context_known = false;
  uint64_t context = 0;
  TimePending pending;
  StreamSegment segment;  // what the merger needs (segment mode)
  // Execs of the stream's buffer (kResetUser positions, ascending), the
  // next one not yet crossed, and its position (~0: none left).
  const std::vector<uint64_t>* resets = nullptr;
  size_t next_reset = 0;
  uint64_t reset_at = ~uint64_t{0};
  // The store's block of a block event with a decoder id (kBlockDecoderId),
  // by DecoderBlockIndex(): what BlockOf() found for it, in an array, since
  // the id stands for every field BlockOf() reads but the branch. kNone:
  // not seen yet. Ids are the stream's decoder's, so the table is per stream.
  std::vector<uint32_t> decoder_blocks;
};

constexpr size_t kBranchKinds = static_cast<size_t>(BranchKind::kOther) + 1;
// Decoder ids past this are looked up as blocks without an id: the table
// stays below kMaxDecoderIds * kBranchKinds entries (192 MiB).
constexpr uint64_t kMaxDecoderIds = uint64_t{1} << 22;
constexpr size_t kNoDecoderIndex = ~size_t{0};

// The entry of a block event in StreamState::decoder_blocks, or
// kNoDecoderIndex when the event has no usable decoder id.
inline size_t DecoderBlockIndex(const Event& e) {
  if ((e.code & kBlockDecoderId) == 0 || e.value >= kMaxDecoderIds ||
      static_cast<size_t>(e.branch) >= kBranchKinds) {
    return kNoDecoderIndex;
  }
  return static_cast<size_t>(e.value) * kBranchKinds +
         static_cast<size_t>(e.branch);
}

}  // namespace

class ProfileBuilder::Impl : public BaseHandler, public StackTable {
 public:
  Impl(const capture::AddressSpaceTimeline& timeline,
       FunctionResolver& resolver, ProfileOptions options)
      : timeline_(timeline),
        resolver_(resolver),
        options_(std::move(options)),
        data_(std::make_unique<SegmentData>()),
        machine_(data_->store, this, options_.hot_paths),
        observer_(options_.segment ? nullptr : options_.observer) {
    data_->hot_paths = options_.hot_paths;
  }

  void OnEvents(uint32_t stream_id, absl::Span<const Event> events);
  std::unique_ptr<SegmentData> TakeData();
  uint64_t resolver_calls() const { return resolver_calls_; }
  bool segment() const { return options_.segment; }

  // StackTable (for the observer): stacks are frame nodes of the store.
  uint32_t Parent(uint32_t stack) const override {
    const uint32_t parent = data_->store.nodes()[stack].parent;
    return parent != kNone &&
                   data_->store.nodes()[parent].type == NodeType::kFrame
               ? parent
               : kNoStack;
  }
  FrameKey TopFrame(uint32_t stack) const override {
    return data_->store.nodes()[stack].key;
  }

  // BaseHandler.
  void OnBase(ThreadState& t, BaseOpKind kind, const Target& target) override;

 private:
  StreamState& Stream(uint32_t id, uint64_t first_offset);
  // The exec positions of a buffer (empty without a timeline for it).
  const std::vector<uint64_t>& ResetsOf(size_t buffer);
  // An event at `offset` came after s.reset_at: the stack starts afresh.
  void CrossResets(StreamState& s, uint64_t offset);
  uint32_t Thread(uint32_t stream, uint64_t context, bool inherit);
  void OnBlock(StreamState& s, const Event& e);
  void OnGap(StreamState& s, const Event& e);
  // A block, disable or gap: settles the timing weight of the last block.
  void ResolveTime(StreamState& s, const Event& e);
  uint32_t RegionOf(const StreamState& s, const Event& e);
  // The unique block of a block event, and the region it ran in.
  std::pair<uint32_t, uint32_t> BlockOf(const StreamState& s, const Event& e);
  // The entry record (a block of no instructions) of the address e.ip, for a
  // branch target that did not execute (Pending::interrupted).
  uint32_t EntryOf(const StreamState& s, const Event& e);
  // Interns a block record for `raw` (`region` already looked up).
  uint32_t Intern(const RawBlockKey& raw, uint32_t region);
  FunctionId FunctionOf(uint32_t image, uint64_t vaddr);

  const capture::AddressSpaceTimeline& timeline_;
  FunctionResolver& resolver_;
  const ProfileOptions options_;
  std::unique_ptr<SegmentData> data_;
  StackMachine machine_;
  ProfileObserver* observer_;
  // The block being applied (the path a base operation continues with).
  Target current_;

  // By stream id (ids come from decoders; a map keeps a stray id cheap).
  absl::flat_hash_map<uint32_t, StreamState> streams_;
  struct ThreadKey {
    uint32_t stream;
    uint64_t context;
    bool inherit;
    friend bool operator==(const ThreadKey&, const ThreadKey&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const ThreadKey& k) {
      return H::combine(std::move(h), k.stream, k.context, k.inherit);
    }
  };
  absl::flat_hash_map<ThreadKey, uint32_t> thread_index_;
  absl::flat_hash_map<RawBlockKey, uint32_t> raw_blocks_;
  std::vector<Successors> successors_;  // by block id
  // (buffer, changes applied, ip) -> region, for events without a region.
  absl::flat_hash_map<std::tuple<size_t, size_t, uint64_t>, uint32_t>
      region_cache_;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, FunctionId> functions_;
  // By image: whether the resolver may know functions there
  // (FunctionResolver::HasFunctions), asked once per image.
  enum class ImageFunctions : uint8_t { kUnknown, kSome, kNone };
  std::vector<ImageFunctions> image_functions_;
  absl::flat_hash_map<size_t, std::vector<uint64_t>> resets_;  // by buffer
  uint64_t resolver_calls_ = 0;
};

StreamState& ProfileBuilder::Impl::Stream(uint32_t id, uint64_t first_offset) {
  StreamState& s = streams_[id];
  if (!s.seen) {
    s.seen = true;
    s.buffer = options_.stream_buffers.empty() ? id
               : id < options_.stream_buffers.size()
                   ? options_.stream_buffers[id]
                   : ~size_t{0};
    s.segment.id = id;
    s.segment.first_offset = first_offset;
    // Execs reset thread stacks; a CPU-mode stack belongs to an address
    // space (CR3, context ID), which an exec replaces by a new one.
    if (!options_.per_context) {
      s.resets = &ResetsOf(s.buffer);
      const std::vector<uint64_t>& resets = *s.resets;
      s.next_reset =
          std::lower_bound(resets.begin(), resets.end(), first_offset) -
          resets.begin();
      if (s.next_reset < resets.size()) s.reset_at = resets[s.next_reset];
      // An exec before the first event: a sequential build has no stack
      // yet; a segment leaves it to the merge (see StreamSegment).
      if (options_.segment && s.next_reset > 0) {
        s.segment.lead_reset = true;
        s.segment.lead_reset_position = resets[s.next_reset - 1];
      }
    }
    // Thread mode, or the first segment of a stream: context 0. A CPU-mode
    // segment continues the previous segment's context until told.
    const bool inherit = options_.segment && options_.per_context;
    s.context_known = !inherit;
    s.thread = Thread(id, 0, inherit);
  }
  return s;
}

uint32_t ProfileBuilder::Impl::Thread(uint32_t stream, uint64_t context,
                                      bool inherit) {
  auto [it, inserted] =
      thread_index_.try_emplace(ThreadKey{stream, context, inherit},
                                static_cast<uint32_t>(data_->threads.size()));
  if (inserted) {
    ThreadState t;
    t.index = it->second;
    t.stream = stream;
    t.context = context;
    t.inherit_context = inherit;
    t.unknown_start = options_.segment;
    t.root_node =
        data_->store.NewNode(kNone, FrameKey{}, NodeType::kThreadRoot, t.index);
    data_->threads.push_back(std::move(t));
  }
  return it->second;
}

const std::vector<uint64_t>& ProfileBuilder::Impl::ResetsOf(size_t buffer) {
  auto [it, inserted] = resets_.try_emplace(buffer);
  if (inserted && buffer < timeline_.buffer_count()) {
    for (const capture::AddressSpaceChange& c : timeline_.changes(buffer)) {
      if (c.kind == capture::AddressSpaceChange::Kind::kResetUser) {
        it->second.push_back(c.position);
      }
    }
  }
  return it->second;
}

void ProfileBuilder::Impl::CrossResets(StreamState& s, uint64_t offset) {
  const std::vector<uint64_t>& resets = *s.resets;
  while (s.next_reset < resets.size() && resets[s.next_reset] < offset) {
    ++s.next_reset;
  }
  s.reset_at =
      s.next_reset < resets.size() ? resets[s.next_reset] : ~uint64_t{0};
  ThreadState& t = data_->threads[s.thread];
  if (t.unknown_start) {
    // Ends the previous segment's stack at the merge, as a lead gap does
    // but without a [gap] leaf; what came before it no longer matters.
    t.unknown_start = false;
    t.lead_reset = true;
    t.lead = internal::PendingEdit{};
  }
  StackMachine::Reset(t);
}

void ProfileBuilder::Impl::OnEvents(uint32_t stream_id,
                                    absl::Span<const Event> events) {
  if (events.empty()) return;
  StreamState& s = Stream(stream_id, events.front().offset);
  s.segment.last_offset = events.back().offset;
  ProfileStats& stats = data_->stats;
  for (const Event& e : events) {
    ++stats.events;
    // A mapping record at position P applies to events after P (event.h).
    if (e.offset > s.reset_at) CrossResets(s, e.offset);
    switch (e.kind) {
      case EventKind::kBlock:
        OnBlock(s, e);
        break;
      case EventKind::kGap:
        OnGap(s, e);
        break;
      case EventKind::kDisabled: {
        ++stats.disables;
        ResolveTime(s, e);
        ThreadState& t = data_->threads[s.thread];
        if (t.unknown_start) {
          t.lead.disabled = true;
        } else {
          t.disabled = true;
          if (observer_ != nullptr) {
            observer_->OnDisabled(s.segment.id, t.context, e);
          }
        }
        if ((e.code & kDisabledInterrupted) && e.ip != 0) {
          const uint32_t entry = EntryOf(s, e);
          if (t.unknown_start) {
            t.lead.interrupted = std::make_pair(entry, e.ip);
          } else {
            t.pending.is_interrupted = true;
            t.pending.interrupted.block = entry;
            t.pending.interrupted.ip = e.ip;
          }
        }
        break;
      }
      case EventKind::kEnabled:
        ++stats.enables;
        break;
      case EventKind::kException: {
        ++stats.exceptions;
        ThreadState& t = data_->threads[s.thread];
        const uint64_t ra = e.ip != 0 ? e.ip : internal::kNoAddress;
        if (t.unknown_start) {
          t.lead.far_entry = std::make_pair(true, ra);
        } else {
          t.pending.far_entry = true;
          t.pending.far_ra = ra;
        }
        break;
      }
      case EventKind::kExceptionReturn: {
        ThreadState& t = data_->threads[s.thread];
        if (t.unknown_start) {
          t.lead.kind = PendingKind::kFarReturn;
          t.lead.far_entry = std::make_pair(false, internal::kNoAddress);
        } else {
          t.pending.kind = PendingKind::kFarReturn;
          t.pending.far_entry = false;
          t.pending.far_ra = internal::kNoAddress;
        }
        break;
      }
      case EventKind::kPaging:
      case EventKind::kContext:
        ++stats.context_events;
        if (options_.per_context &&
            (!s.context_known || s.context != e.value)) {
          s.context_known = true;
          s.context = e.value;
          s.segment.context_seen = true;
          s.segment.context = e.value;
          s.thread = Thread(stream_id, e.value, false);
        }
        break;
      default:
        break;
    }
  }
}

void ProfileBuilder::Impl::ResolveTime(StreamState& s, const Event& e) {
  if (!s.segment.resolver_seen) {
    s.segment.resolver_seen = true;
    s.segment.first_resolver = e.kind;
    s.segment.first_resolver_time = e.time;
  }
  if (e.kind != EventKind::kGap && e.time != 0) {
    internal::AddPendingTime(data_->store, s.pending, e.time, data_->stats);
  }
  s.pending = TimePending{};
}

void ProfileBuilder::Impl::OnGap(StreamState& s, const Event& e) {
  ProfileStats& stats = data_->stats;
  ++stats.gaps;
  const size_t reason = static_cast<size_t>(e.reason);
  if (reason < stats.gaps_by_reason.size()) ++stats.gaps_by_reason[reason];
  ResolveTime(s, e);
  ThreadState& t = data_->threads[s.thread];
  if (t.unknown_start) {
    // Ends the previous segment's stack (at the merge); from here on this
    // thread's state is known: no stack.
    t.unknown_start = false;
    t.lead_gap = true;
    t.stack.clear();
    return;
  }
  if (observer_ != nullptr) {
    observer_->OnGap(*this, s.segment.id, t.context,
                     t.stack.empty() ? kNoStack : t.stack.back().node, e);
  }
  machine_.Gap(t);
}

void ProfileBuilder::Impl::OnBlock(StreamState& s, const Event& e) {
  ProfileStats& stats = data_->stats;
  if (e.ninsn == 0) {
    ++stats.malformed_blocks;
    return;
  }
  ++stats.blocks;
  stats.instructions += e.ninsn;
  ThreadState& t = data_->threads[s.thread];
  uint32_t block = kNone;
  const size_t by_id = DecoderBlockIndex(e);
  if (by_id < s.decoder_blocks.size()) block = s.decoder_blocks[by_id];
  Successors* successors = nullptr;
  if (block == kNone && t.last_block != kNone && e.region != 0) {
    if (t.last_block >= successors_.size()) {
      successors_.resize(data_->store.blocks().size());
    }
    successors = &successors_[t.last_block];
    if (const SuccessorMemo* memo = successors->Find(e)) block = memo->block;
  }
  if (block == kNone) {
    const auto [found, region] = BlockOf(s, e);
    block = found;
    if (region == kNoRegion) ++stats.unknown_region_blocks;
    // Only a region the event named and that holds its ip is memoized, so a
    // hit needs neither the check nor the statistics again.
    if (e.region != 0 && region == e.region - 1) {
      if (successors != nullptr) {
        successors->Add(SuccessorMemo{e.ip, e.last_ip, e.ninsn, e.region,
                                      e.branch, e.isa, block});
      }
      if (by_id != kNoDecoderIndex) {
        if (by_id >= s.decoder_blocks.size()) {
          s.decoder_blocks.resize(
              std::max(by_id + 1, 2 * s.decoder_blocks.size()), kNone);
        }
        s.decoder_blocks[by_id] = block;
      }
    }
  }
  // The block's own count is the sum of its slots' (CountBlocksFromSlots).
  ResolveTime(s, e);

  const Target target{block, e.ip, e.last_ip};
  // Field by field, from registers: a copy of `target` read it back from the
  // stack in 16-byte pieces over the smaller stores that wrote it, which
  // the CPU cannot forward (a stall on every block).
  current_.block = block;
  current_.ip = e.ip;
  current_.last_ip = e.last_ip;
  if (t.unknown_start) {
    t.unknown_start = false;
    OnBase(t, BaseOpKind::kContinue, target);
  } else {
    machine_.Transition(t, target);
  }
  Frame& top = t.stack.back();
  if (observer_ != nullptr) {
    observer_->OnBlock(*this, s.segment.id, t.context, top.node, e);
  }
  const uint32_t slot = data_->store.Slot(top.node, block);
  ++data_->store.slots()[slot].count;
  machine_.AppendToPath(top, target);
  t.last_block = block;
  StackMachine::SetPendingAfter(t.pending, e.branch, e.next_ip, block);
  t.disabled = false;
  if (e.time != 0) {
    data_->has_time = true;
    s.pending = TimePending{slot, block, e.time};
  }
}

void ProfileBuilder::Impl::OnBase(ThreadState& t, BaseOpKind kind,
                                  const Target& target) {
  const uint32_t id = static_cast<uint32_t>(data_->bases.size());
  BaseOp op;
  op.kind = kind;
  op.target = target;
  op.appended = current_;
  op.snapshot = std::move(t.stack);
  if (kind == BaseOpKind::kContinue) op.lead = t.lead;
  data_->bases.push_back(std::move(op));
  t.base_ids.push_back(id);
  Frame base;
  base.base = true;
  base.node = data_->store.NewNode(kNone, FrameKey{}, NodeType::kBase, id);
  base.path = internal::kPathPendingCont;
  t.stack.clear();
  t.stack.push_back(base);
}

uint32_t ProfileBuilder::Impl::RegionOf(const StreamState& s, const Event& e) {
  const auto& regions = timeline_.regions();
  if (e.region != 0) {
    const uint32_t index = e.region - 1;
    if (index < regions.size() && e.ip >= regions[index].start &&
        e.ip < regions[index].end) {
      return index;
    }
    ++data_->stats.invalid_region_events;
  }
  if (s.buffer >= timeline_.buffer_count()) return kNoRegion;
  const auto& changes = timeline_.changes(s.buffer);
  const size_t applied =
      std::upper_bound(changes.begin(), changes.end(), e.offset,
                       [](uint64_t offset, const auto& change) {
                         return offset < change.position;
                       }) -
      changes.begin();
  auto [it, inserted] =
      region_cache_.try_emplace({s.buffer, applied, e.ip}, kNoRegion);
  if (inserted) {
    // Among overlapping regions the newest (highest index) wins.
    for (uint32_t r : timeline_.RegionsAt(s.buffer, e.offset)) {
      if (r < regions.size() && e.ip >= regions[r].start &&
          e.ip < regions[r].end &&
          (it->second == kNoRegion || r > it->second)) {
        it->second = r;
      }
    }
  }
  return it->second;
}

std::pair<uint32_t, uint32_t> ProfileBuilder::Impl::BlockOf(
    const StreamState& s, const Event& e) {
  const uint32_t region = RegionOf(s, e);
  const RawBlockKey raw{region, e.ninsn, e.ip, e.last_ip, e.branch, e.isa};
  return {Intern(raw, region), region};
}

uint32_t ProfileBuilder::Impl::EntryOf(const StreamState& s, const Event& e) {
  Event entry = e;
  entry.region = 0;  // a disable names no region: look it up by position
  const uint32_t region = RegionOf(s, entry);
  return Intern(
      RawBlockKey{region, 0, e.ip, e.ip, BranchKind::kNone, Isa::kUnknown},
      region);
}

uint32_t ProfileBuilder::Impl::Intern(const RawBlockKey& raw, uint32_t region) {
  auto [it, inserted] = raw_blocks_.try_emplace(raw, 0);
  if (!inserted) return it->second;

  BlockKey key;
  key.ninsn = raw.ninsn;
  key.end = raw.end;
  key.isa = raw.isa;
  if (region == kNoRegion) {
    key.image = kNoImage;
    key.vaddr = raw.ip;
    key.last_vaddr = raw.last_ip;
  } else {
    const capture::Region& r = timeline_.regions()[region];
    key.image = r.image;
    key.vaddr = raw.ip - r.bias;
    key.last_vaddr = raw.last_ip - r.bias;
  }
  auto [id, created] = data_->store.InternBlock(key);
  it->second = id;
  if (created) {
    data_->store.SetFunctions(id, FunctionOf(key.image, key.vaddr),
                              FunctionOf(key.image, key.last_vaddr));
    data_->store.blocks()[id].region = region;
  } else {
    BlockRecord& b = data_->store.blocks()[id];
    b.region = std::min(b.region, region);
  }
  return id;
}

FunctionId ProfileBuilder::Impl::FunctionOf(uint32_t image, uint64_t vaddr) {
  if (image == kNoImage) return FunctionId{};
  if (image >= image_functions_.size()) {
    image_functions_.resize(image + 1, ImageFunctions::kUnknown);
  }
  ImageFunctions& known = image_functions_[image];
  if (known == ImageFunctions::kUnknown) {
    known = resolver_.HasFunctions(image) ? ImageFunctions::kSome
                                          : ImageFunctions::kNone;
  }
  // What FunctionAt() would answer for every address of such an image.
  if (known == ImageFunctions::kNone) {
    return {FrameKind::kUnknownCode, image, 0, 0};
  }
  auto [it, inserted] = functions_.try_emplace({image, vaddr});
  if (inserted) {
    ++resolver_calls_;
    const std::optional<FunctionRange> range =
        resolver_.FunctionAt(image, vaddr);
    if (range && range->start <= vaddr && vaddr < range->end) {
      it->second = {FrameKind::kFunction, image, range->start, range->end};
    } else {
      it->second = {FrameKind::kUnknownCode, image, 0, 0};
    }
  }
  return it->second;
}

std::unique_ptr<SegmentData> ProfileBuilder::Impl::TakeData() {
  data_->store.CountBlocksFromSlots();
  for (auto& [id, s] : streams_) {
    s.segment.pending = s.pending;
    data_->streams.push_back(s.segment);
  }
  // Map order is arbitrary; the merger treats streams independently, but
  // keep segment data deterministic.
  std::sort(data_->streams.begin(), data_->streams.end(),
            [](const StreamSegment& a, const StreamSegment& b) {
              return a.id < b.id;
            });
  return std::move(data_);
}

ProfileBuilder::ProfileBuilder(const capture::AddressSpaceTimeline& timeline,
                               FunctionResolver& resolver,
                               ProfileOptions options)
    : impl_(std::make_unique<Impl>(timeline, resolver, std::move(options))) {}

ProfileBuilder::~ProfileBuilder() = default;

void ProfileBuilder::OnEvents(uint32_t stream, absl::Span<const Event> events) {
  impl_->OnEvents(stream, events);
}

uint64_t ProfileBuilder::resolver_calls() const {
  return impl_->resolver_calls();
}

Profile ProfileBuilder::Finish() {
  if (impl_->segment()) {
    // A segment merged onto nothing: its unknown start is no stack.
    ProfileMerger merger;
    merger.Append(FinishSegment());
    return merger.Finish();
  }
  std::unique_ptr<SegmentData> data = impl_->TakeData();
  return internal::FinishProfile(data->store, data->threads, data->stats,
                                 data->has_time);
}

ProfileSegment ProfileBuilder::FinishSegment() {
  return ProfileSegment(impl_->TakeData());
}

}  // namespace hwt::analysis
