// Region bookkeeping and opcode reads for the CoreSight decoder.
#include "decoders/coresight/memory_view.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

namespace hwt::coresight {

ImageFiles ImageFiles::Open(const capture::AddressSpaceTimeline& timeline) {
  ImageFiles files;
  files.files_.resize(timeline.images().size());
  std::map<std::string, std::shared_ptr<MappedFile>> by_path;
  for (size_t i = 0; i < timeline.images().size(); ++i) {
    const std::string& path = timeline.images()[i].file;
    if (path.empty()) continue;
    auto it = by_path.find(path);
    if (it == by_path.end()) {
      auto mapped = MappedFile::Open(path);
      std::shared_ptr<MappedFile> file;
      if (mapped.ok()) file = std::make_shared<MappedFile>(std::move(*mapped));
      it = by_path.emplace(path, std::move(file)).first;
    }
    files.files_[i] = it->second;
  }
  return files;
}

absl::Span<const uint8_t> ImageFiles::RegionBytes(
    const capture::Region& region) const {
  if (region.image >= files_.size() || !files_[region.image]) return {};
  const MappedFile& file = *files_[region.image];
  if (region.file_offset >= file.size()) return {};
  uint64_t n =
      std::min<uint64_t>(region.file_size, file.size() - region.file_offset);
  return {file.data() + region.file_offset, static_cast<size_t>(n)};
}

uint32_t OcsdSpaceMask(capture::MemorySpace space) {
  switch (space) {
    case capture::MemorySpace::kAny:
      return OCSD_MEM_SPACE_ANY;
    case capture::MemorySpace::kEL1N:
      return OCSD_MEM_SPACE_EL1N;
    case capture::MemorySpace::kEL1S:
      return OCSD_MEM_SPACE_EL1S;
    case capture::MemorySpace::kEL2N:
      return OCSD_MEM_SPACE_EL2;
    case capture::MemorySpace::kEL2S:
      return OCSD_MEM_SPACE_EL2S;
    case capture::MemorySpace::kEL3:
      return OCSD_MEM_SPACE_EL3;
    case capture::MemorySpace::kNonSecure:
      return OCSD_MEM_SPACE_N;
    case capture::MemorySpace::kSecure:
      return OCSD_MEM_SPACE_S;
  }
  return OCSD_MEM_SPACE_ANY;
}

MemoryView::MemoryView(const capture::AddressSpaceTimeline& timeline,
                       const ImageFiles& files, size_t buffer_index)
    : timeline_(timeline), files_(files), buffer_index_(buffer_index) {}

uint64_t MemoryView::AdvanceTo(uint64_t position) {
  const auto& changes = timeline_.changes(buffer_index_);
  bool changed = false;
  while (next_change_ < changes.size() &&
         changes[next_change_].position <= position) {
    const capture::AddressSpaceChange& c = changes[next_change_++];
    changed = true;
    switch (c.kind) {
      case capture::AddressSpaceChange::Kind::kMap:
        mapped_.erase(std::remove(mapped_.begin(), mapped_.end(), c.region),
                      mapped_.end());
        mapped_.push_back(c.region);
        break;
      case capture::AddressSpaceChange::Kind::kUnmap:
        mapped_.erase(std::remove(mapped_.begin(), mapped_.end(), c.region),
                      mapped_.end());
        break;
      case capture::AddressSpaceChange::Kind::kResetUser:
        mapped_.erase(std::remove_if(mapped_.begin(), mapped_.end(),
                                     [this](uint32_t r) {
                                       return timeline_.RemovedByReset(r);
                                     }),
                      mapped_.end());
        break;
    }
  }
  if (changed) Rebuild();
  return next_change_ < changes.size() ? changes[next_change_].position
                                       : std::numeric_limits<uint64_t>::max();
}

void MemoryView::Rebuild() {
  groups_.clear();
  cached_ = nullptr;
  // Per memory space: lay regions down in mapping order, later ones
  // overwriting earlier ones where they overlap.
  std::map<uint32_t, std::map<uint64_t, Piece>> layers;
  for (uint32_t r : mapped_) {
    const capture::Region& region = timeline_.regions()[r];
    if (region.end <= region.start) continue;
    auto& layer = layers[OcsdSpaceMask(region.space)];
    Piece piece{region.start, region.end, r};
    // Cut the pieces that overlap [start, end).
    auto it = layer.lower_bound(piece.start);
    if (it != layer.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > piece.start) {
        Piece tail = prev->second;
        prev->second.end = piece.start;
        if (tail.end > piece.end) {
          tail.start = piece.end;
          layer[tail.start] = tail;
        }
      }
    }
    it = layer.lower_bound(piece.start);
    while (it != layer.end() && it->second.start < piece.end) {
      Piece rest = it->second;
      it = layer.erase(it);
      if (rest.end > piece.end) {
        rest.start = piece.end;
        layer[rest.start] = rest;
        break;
      }
    }
    layer[piece.start] = piece;
  }
  for (auto& [mask, layer] : layers) {
    SpaceGroup group;
    group.mask = mask;
    for (auto& [start, piece] : layer) {
      if (piece.end > piece.start) group.pieces.push_back(piece);
    }
    groups_.push_back(std::move(group));
  }
}

const MemoryView::Piece* MemoryView::Find(uint64_t address,
                                          uint32_t space_mask) {
  if (cached_ != nullptr && address >= cached_->start &&
      address < cached_->end && (cached_mask_ & space_mask) != 0) {
    return cached_;
  }
  for (const SpaceGroup& group : groups_) {
    if ((group.mask & space_mask) == 0) continue;
    auto it = std::upper_bound(
        group.pieces.begin(), group.pieces.end(), address,
        [](uint64_t a, const Piece& p) { return a < p.start; });
    if (it == group.pieces.begin()) continue;
    --it;
    if (address < it->end) {
      cached_ = &*it;
      cached_mask_ = group.mask;
      return cached_;
    }
  }
  return nullptr;
}

uint32_t MemoryView::Read(uint64_t address, ocsd_mem_space_acc_t space,
                          uint32_t size, uint8_t* out) {
  const Piece* piece = Find(address, static_cast<uint32_t>(space));
  if (piece == nullptr) return 0;
  const capture::Region& region = timeline_.regions()[piece->region];
  uint64_t n = std::min<uint64_t>(size, piece->end - address);
  absl::Span<const uint8_t> bytes = files_.RegionBytes(region);
  uint64_t rel = address - region.start;
  // The file backs the start of the region; the rest is zero fill (.bss).
  uint64_t from_file =
      rel < bytes.size() ? std::min<uint64_t>(n, bytes.size() - rel) : 0;
  if (from_file > 0) std::memcpy(out, bytes.data() + rel, from_file);
  if (n > from_file) {
    if (rel + from_file < region.file_size) {
      // The image file is missing or shorter than the region says: the
      // bytes are unknown (inaccessible), not zeros.
      return static_cast<uint32_t>(from_file);
    }
    std::memset(out + from_file, 0, n - from_file);
  }
  return static_cast<uint32_t>(n);
}

uint32_t MemoryView::RegionAt(uint64_t address) {
  const Piece* piece = Find(address, OCSD_MEM_SPACE_ANY);
  return piece == nullptr ? 0 : piece->region + 1;
}

}  // namespace hwt::coresight
