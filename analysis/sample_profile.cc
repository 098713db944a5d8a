// The shared profile of a sampling trace; see sample_profile.h.
#include "analysis/sample_profile.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "analysis/tree_functions.h"

namespace hwt::analysis {

// The stacks the observer is told about: one frame each, numbered in the
// order first seen.
class SampleProfileBuilder::Stacks : public StackTable {
 public:
  uint32_t Of(const FrameKey& frame) {
    auto [it, added] =
        ids_.try_emplace(frame, static_cast<uint32_t>(frames_.size()));
    if (added) frames_.push_back(frame);
    return it->second;
  }
  uint32_t Parent(uint32_t) const override { return kNoStack; }
  FrameKey TopFrame(uint32_t stack) const override { return frames_[stack]; }

 private:
  absl::flat_hash_map<FrameKey, uint32_t> ids_;
  std::vector<FrameKey> frames_;
};

SampleProfileBuilder::SampleProfileBuilder(
    const capture::AddressSpaceTimeline& timeline, size_t buffer_count,
    FunctionResolver& resolver, SampleProfileOptions options)
    : timeline_(timeline),
      resolver_(resolver),
      options_(std::move(options)),
      addresses_(&timeline, buffer_count),
      stacks_(std::make_unique<Stacks>()) {}

SampleProfileBuilder::~SampleProfileBuilder() = default;

void SampleProfileBuilder::OnEvents(uint32_t stream,
                                    absl::Span<const Event> events) {
  for (const Event& e : events) {
    ++stats_.events;
    if (e.kind == EventKind::kSample) {
      AddSample(stream, e);
    } else if (e.kind == EventKind::kGap) {
      AddGap(stream, e);
    }
  }
}

const SampleProfileBuilder::Sampled& SampleProfileBuilder::Place(
    uint32_t stream, const Event& sample) {
  const size_t buffer = stream < options_.stream_buffers.size()
                            ? options_.stream_buffers[stream]
                            : stream;
  uint32_t region = 0;
  const std::optional<MappedAddress> mapped =
      addresses_.Code(buffer, sample.offset, sample.ip, &region);
  const std::pair<uint32_t, uint64_t> key =
      mapped ? std::make_pair(mapped->image, mapped->vaddr)
             : std::make_pair(kNoImage, sample.ip);
  auto [it, added] = sampled_.try_emplace(key);
  if (!added) return it->second;
  BlockStats block;
  block.image = key.first;
  block.vaddr = block.last_vaddr = key.second;
  block.ninsn = 1;
  block.isa = sample.isa;
  if (mapped) {
    block.region = region;
    if (auto range = resolver_.FunctionAt(mapped->image, mapped->vaddr)) {
      block.function = {FrameKind::kFunction, mapped->image, range->start,
                        range->end};
      it->second.frame = {FrameKind::kFunction, mapped->image, range->start};
    } else {
      // The image's code no symbol covers is one function; with no entry
      // to name its frame by, the frame is entered where the mapping starts.
      const capture::Region& mapping = timeline_.regions()[region];
      block.function = {FrameKind::kUnknownCode, mapped->image, 0, 0};
      it->second.frame = {FrameKind::kUnknownCode, mapped->image,
                          mapping.start - mapping.bias};
    }
  }
  block.last_function = block.function;
  it->second.block = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(block);
  return it->second;
}

void SampleProfileBuilder::AddSample(uint32_t stream, const Event& sample) {
  const Sampled& sampled = Place(stream, sample);
  BlockStats& block = blocks_[sampled.block];
  const uint64_t latency = sample.value;
  ++block.count;
  block.time += latency;
  ++stats_.blocks;
  ++stats_.instructions;
  stats_.time += latency;
  has_time_ = has_time_ || latency != 0;
  if (block.image == kNoImage) ++stats_.unknown_region_blocks;
  for (Tree* tree : {&threads_[stream], &merged_}) {
    Node& node = (*tree)[sampled.frame];
    ++node.self;
    node.time += latency;
    auto& [count, time] = node.blocks[sampled.block];
    ++count;
    time += latency;
  }
  if (options_.observer != nullptr) {
    Event as_block = sample;
    as_block.kind = EventKind::kBlock;
    as_block.ninsn = 1;
    as_block.last_ip = sample.ip;
    as_block.value = 0;
    as_block.code = 0;
    options_.observer->OnBlock(*stacks_, stream, /*context=*/0,
                               stacks_->Of(sampled.frame), as_block);
  }
}

void SampleProfileBuilder::AddGap(uint32_t stream, const Event& gap) {
  ++stats_.gaps;
  const size_t reason = static_cast<size_t>(gap.reason);
  if (reason < stats_.gaps_by_reason.size()) ++stats_.gaps_by_reason[reason];
  for (Tree* tree : {&threads_[stream], &merged_}) {
    ++(*tree)[FrameKey::Gap()].gaps;
  }
  if (options_.observer != nullptr) {
    options_.observer->OnGap(*stacks_, stream, /*context=*/0,
                             StackTable::kNoStack, gap);
  }
}

CallTree SampleProfileBuilder::Finished(
    const Tree& tree, const std::vector<uint32_t>& block_order) const {
  CallTree out;
  out.nodes.emplace_back();
  for (const auto& [frame, node] : tree) {
    const uint32_t id = static_cast<uint32_t>(out.nodes.size());
    CallTree::Node n;
    n.frame = frame;
    n.end = id + 1;
    n.depth = 1;
    n.gaps = node.gaps;
    n.self_insns = n.total_insns = node.self;
    n.self_time = n.total_time = node.time;
    out.nodes[0].total_insns += node.self;
    out.nodes[0].total_time += node.time;
    out.nodes.push_back(n);
    for (const auto& [block, counts] : node.blocks) {
      out.node_blocks.push_back(
          {id, block_order[block], counts.first, counts.second});
    }
  }
  out.nodes[0].end = static_cast<uint32_t>(out.nodes.size());
  std::sort(out.node_blocks.begin(), out.node_blocks.end(),
            [](const CallTree::NodeBlock& a, const CallTree::NodeBlock& b) {
              return std::tie(a.node, a.block) < std::tie(b.node, b.block);
            });
  return out;
}

Profile SampleProfileBuilder::Finish() {
  // Blocks in the canonical order of every profile.
  std::vector<uint32_t> order(blocks_.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [this](uint32_t i) {
    const BlockStats& b = blocks_[i];
    return std::make_tuple(b.image, b.vaddr, b.ninsn, b.last_vaddr, b.end,
                           b.isa);
  };
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  std::vector<uint32_t> block_order(blocks_.size());
  Profile profile;
  profile.counts = ProfileCounts::kSamples;
  profile.has_time = has_time_;
  profile.stats = stats_;
  for (uint32_t i = 0; i < order.size(); ++i) {
    block_order[order[i]] = i;
    profile.blocks.push_back(blocks_[order[i]]);
  }
  for (const auto& [stream, tree] : threads_) {
    ThreadProfile thread;
    thread.stream = stream;
    thread.tree = Finished(tree, block_order);
    profile.threads.push_back(std::move(thread));
  }
  profile.merged = Finished(merged_, block_order);
  TreeFunctions tables = FunctionsOfTree(profile.merged);
  profile.functions = std::move(tables.functions);
  profile.call_edges = std::move(tables.call_edges);
  return profile;
}

}  // namespace hwt::analysis
