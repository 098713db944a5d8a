// Replaying the address-space timeline for samples; see
// sample_address_map.h.
#include "analysis/sample_address_map.h"

#include <algorithm>
#include <set>
#include <utility>

namespace hwt::analysis {
namespace {

constexpr uint32_t kPtLoad = 1;

}  // namespace

SampleAddressMap::SampleAddressMap(
    const capture::AddressSpaceTimeline* timeline, size_t buffer_count,
    std::vector<std::vector<capture::ElfSegment>> image_loads)
    : timeline_(timeline),
      buffer_count_(buffer_count),
      image_loads_(std::move(image_loads)) {}

std::vector<std::vector<capture::ElfSegment>>
SampleAddressMap::LoadImageSegments(
    const capture::AddressSpaceTimeline& timeline) {
  std::vector<std::vector<capture::ElfSegment>> loads(timeline.images().size());
  for (size_t i = 0; i < timeline.images().size(); ++i) {
    const capture::Image& image = timeline.images()[i];
    if (!image.is_elf || image.file.empty()) continue;
    auto elf = capture::ReadElfFile(image.file);
    if (!elf.ok()) continue;  // the timeline already warned about it
    for (const capture::ElfSegment& segment : elf->segments) {
      if (segment.type == kPtLoad && segment.memsz > 0) {
        loads[i].push_back(segment);
      }
    }
  }
  return loads;
}

SampleAddressMap::BufferState& SampleAddressMap::Seek(size_t buffer,
                                                      uint64_t position) {
  if (buffers_.size() <= buffer) buffers_.resize(buffer + 1);
  BufferState& state = buffers_[buffer];
  if (timeline_ == nullptr || buffer >= buffer_count_) return state;
  if (position < state.position) state = BufferState();  // replay
  state.position = position;
  const auto& changes = timeline_->changes(buffer);
  while (state.next_change < changes.size() &&
         changes[state.next_change].position <= position) {
    const capture::AddressSpaceChange& change = changes[state.next_change++];
    switch (change.kind) {
      case capture::AddressSpaceChange::Kind::kMap:
        if (std::find(state.mapped.begin(), state.mapped.end(),
                      change.region) == state.mapped.end()) {
          state.mapped.push_back(change.region);
        }
        break;
      case capture::AddressSpaceChange::Kind::kUnmap:
        state.mapped.erase(std::remove(state.mapped.begin(), state.mapped.end(),
                                       change.region),
                           state.mapped.end());
        break;
      case capture::AddressSpaceChange::Kind::kResetUser:
        state.mapped.erase(
            std::remove_if(state.mapped.begin(), state.mapped.end(),
                           [this](uint32_t region) {
                             return timeline_->RemovedByReset(region);
                           }),
            state.mapped.end());
        break;
    }
    state.dirty = true;
  }
  if (state.dirty) Rebuild(state);
  return state;
}

void SampleAddressMap::Rebuild(BufferState& state) {
  state.dirty = false;
  state.code = Ranges();
  state.data = Ranges();
  std::set<std::pair<uint32_t, uint64_t>> data_instances;
  for (uint32_t id : state.mapped) {
    const capture::Region& region = timeline_->regions()[id];
    state.code.ranges.push_back(
        {region.start, region.end, region.image, region.bias, id});
    if (!data_instances.insert({region.image, region.bias}).second) continue;
    const auto* loads = region.image < image_loads_.size()
                            ? &image_loads_[region.image]
                            : nullptr;
    if (loads == nullptr || loads->empty()) {
      state.data.ranges.push_back(
          {region.start, region.end, region.image, region.bias, id});
      continue;
    }
    for (const capture::ElfSegment& segment : *loads) {
      uint64_t start = segment.vaddr + region.bias;
      state.data.ranges.push_back(
          {start, start + segment.memsz, region.image, region.bias, id});
    }
  }
  Index(state.code);
  Index(state.data);
}

void SampleAddressMap::Index(Ranges& ranges) {
  // Newest mapping last: on equal starts the stable sort keeps it last, and
  // Find() walks backwards, so it wins.
  std::stable_sort(
      ranges.ranges.begin(), ranges.ranges.end(),
      [](const Range& a, const Range& b) { return a.start < b.start; });
  ranges.max_end.resize(ranges.ranges.size());
  uint64_t max_end = 0;
  for (size_t i = 0; i < ranges.ranges.size(); ++i) {
    max_end = std::max(max_end, ranges.ranges[i].end);
    ranges.max_end[i] = max_end;
  }
}

std::optional<MappedAddress> SampleAddressMap::Find(Ranges& ranges,
                                                    uint64_t address,
                                                    uint32_t* region) {
  const Range& cache = ranges.last;
  if (address >= cache.start && address < cache.end) {
    if (region != nullptr) *region = cache.region;
    return MappedAddress{cache.image, address - cache.bias};
  }
  // Walk back from the last range starting at or below the address while
  // some earlier range still reaches past it (overlaps are rare).
  auto it =
      std::upper_bound(ranges.ranges.begin(), ranges.ranges.end(), address,
                       [](uint64_t a, const Range& r) { return a < r.start; });
  size_t i = static_cast<size_t>(it - ranges.ranges.begin());
  while (i > 0 && ranges.max_end[i - 1] > address) {
    --i;
    const Range& range = ranges.ranges[i];
    if (address < range.end) {
      ranges.last = range;
      if (region != nullptr) *region = range.region;
      return MappedAddress{range.image, address - range.bias};
    }
  }
  return std::nullopt;
}

std::optional<MappedAddress> SampleAddressMap::Code(size_t buffer,
                                                    uint64_t position,
                                                    uint64_t address,
                                                    uint32_t* region) {
  if (timeline_ == nullptr) return std::nullopt;
  return Find(Seek(buffer, position).code, address, region);
}

std::optional<MappedAddress> SampleAddressMap::Data(size_t buffer,
                                                    uint64_t position,
                                                    uint64_t address) {
  if (timeline_ == nullptr) return std::nullopt;
  return Find(Seek(buffer, position).data, address);
}

}  // namespace hwt::analysis
