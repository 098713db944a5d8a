// Implementation of the shared memory model; see memory_image.h.
#include "decoders/memory_image.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hwt {

absl::StatusOr<const MappedFile*> ImageFileCache::Get(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = files_.find(path);
  if (it != files_.end()) return it->second.get();
  auto error = errors_.find(path);
  if (error != errors_.end()) return error->second;
  auto mapped = MappedFile::Open(path);
  if (!mapped.ok()) {
    errors_.emplace(path, mapped.status());
    return mapped.status();
  }
  auto file = std::make_unique<MappedFile>(std::move(*mapped));
  const MappedFile* result = file.get();
  files_.emplace(path, std::move(file));
  return result;
}

absl::StatusOr<absl::Span<const uint8_t>> RegionFileBytes(
    const capture::AddressSpaceTimeline& timeline, uint32_t region_index,
    ImageFileCache& files) {
  const auto& regions = timeline.regions();
  if (region_index >= regions.size()) {
    return absl::InvalidArgumentError(absl::StrCat("no region ", region_index));
  }
  const capture::Region& region = regions[region_index];
  const capture::Image& image = timeline.images()[region.image];
  if (image.file.empty()) {
    return absl::NotFoundError(
        absl::StrCat("image ", image.recorded_path, " not found"));
  }
  absl::StatusOr<const MappedFile*> file = files.Get(image.file);
  if (!file.ok()) return file.status();
  const MappedFile& mapped = **file;
  if (region.file_offset >= mapped.size()) return absl::Span<const uint8_t>();
  return mapped.bytes().subspan(
      region.file_offset,
      std::min<uint64_t>(region.file_size, mapped.size() - region.file_offset));
}

SpaceMask SpaceMaskOf(capture::MemorySpace space) {
  switch (space) {
    case capture::MemorySpace::kAny:
      return kSpaceAny;
    case capture::MemorySpace::kEL1N:
      return kSpaceEL1N;
    case capture::MemorySpace::kEL1S:
      return kSpaceEL1S;
    case capture::MemorySpace::kEL2N:
      return kSpaceEL2N;
    case capture::MemorySpace::kEL2S:
      return kSpaceEL2S;
    case capture::MemorySpace::kEL3:
      return kSpaceEL3;
    case capture::MemorySpace::kNonSecure:
      return kSpaceNonSecure;
    case capture::MemorySpace::kSecure:
      return kSpaceSecure;
  }
  return kSpaceAny;
}

MemoryImage::MemoryImage(const capture::AddressSpaceTimeline& timeline,
                         size_t buffer_index,
                         std::shared_ptr<ImageFileCache> files)
    : timeline_(timeline),
      buffer_index_(buffer_index),
      files_(files ? std::move(files) : std::make_shared<ImageFileCache>()),
      region_bytes_(timeline.regions().size()),
      region_bytes_resolved_(timeline.regions().size(), false) {}

bool MemoryImage::ApplyChangesUpTo(uint64_t position) {
  if (buffer_index_ >= timeline_.buffer_count()) {
    next_position_ = UINT64_MAX;
    return false;
  }
  const auto& changes = timeline_.changes(buffer_index_);
  bool changed = false;
  while (next_change_ < changes.size() &&
         changes[next_change_].position <= position) {
    const capture::AddressSpaceChange& change = changes[next_change_++];
    switch (change.kind) {
      case capture::AddressSpaceChange::Kind::kMap:
        Map(change.region);
        break;
      case capture::AddressSpaceChange::Kind::kUnmap:
        Unmap(change.region);
        break;
      case capture::AddressSpaceChange::Kind::kResetUser:
        ResetUser();
        break;
    }
    changed = true;
  }
  next_position_ = next_change_ < changes.size()
                       ? changes[next_change_].position
                       : UINT64_MAX;
  return changed;
}

void MemoryImage::Rewind() {
  next_change_ = 0;
  next_position_ = 0;
  const bool any =
      std::any_of(layers_.begin(), layers_.end(),
                  [](const Layer& l) { return !l.pieces.empty(); });
  if (any) ++generation_;
  layers_.clear();
  order_.clear();
  last_found_.reset();
}

MemoryImage::Layer& MemoryImage::LayerFor(SpaceMask spaces) {
  auto it = std::lower_bound(
      layers_.begin(), layers_.end(), spaces,
      [](const Layer& layer, SpaceMask s) { return layer.spaces < s; });
  if (it == layers_.end() || it->spaces != spaces) {
    it = layers_.insert(it, Layer{spaces, {}});
  }
  return *it;
}

bool MemoryImage::Carve(Layer& layer, uint64_t start, uint64_t end) {
  std::vector<Piece> hit;
  auto it = layer.pieces.upper_bound(start);
  if (it != layer.pieces.begin()) --it;
  for (; it != layer.pieces.end() && it->first < end; ++it) {
    if (it->second.end <= start) continue;
    hit.push_back(it->second);
  }
  for (const Piece& piece : hit) {
    layer.pieces.erase(piece.start);
    if (piece.start < start) {
      layer.pieces[piece.start] = Piece{piece.start, start, piece.region};
    }
    if (piece.end > end)
      layer.pieces[end] = Piece{end, piece.end, piece.region};
  }
  return !hit.empty();
}

bool MemoryImage::AnyPieceIn(uint64_t start, uint64_t end) const {
  for (const Layer& layer : layers_) {
    auto it = layer.pieces.lower_bound(start);
    if (it != layer.pieces.end() && it->first < end) return true;
    if (it != layer.pieces.begin() && std::prev(it)->second.end > start) {
      return true;
    }
  }
  return false;
}

void MemoryImage::Map(uint32_t region) {
  if (region >= timeline_.regions().size()) return;
  const capture::Region& r = timeline_.regions()[region];
  if (r.end <= r.start) return;
  if (std::find(order_.begin(), order_.end(), region) != order_.end()) {
    Unmap(region);
  }
  last_found_.reset();
  // Code already visible there (in any space) may read differently now.
  if (AnyPieceIn(r.start, r.end)) ++generation_;
  Layer& layer = LayerFor(SpaceMaskOf(r.space));
  Carve(layer, r.start, r.end);
  layer.pieces[r.start] = Piece{r.start, r.end, region};
  order_.push_back(region);
}

void MemoryImage::Unmap(uint32_t region) {
  auto pos = std::find(order_.begin(), order_.end(), region);
  if (pos == order_.end()) return;
  order_.erase(pos);
  last_found_.reset();
  Layer& layer = LayerFor(SpaceMaskOf(timeline_.regions()[region].space));
  for (auto it = layer.pieces.begin(); it != layer.pieces.end();) {
    if (it->second.region == region) {
      it = layer.pieces.erase(it);
    } else {
      ++it;
    }
  }
  ++generation_;
}

void MemoryImage::ResetUser() {
  std::vector<uint32_t> mapped = order_;
  for (uint32_t region : mapped) {
    if (timeline_.RemovedByReset(region)) Unmap(region);
  }
}

std::optional<MemoryImage::Found> MemoryImage::Find(uint64_t address,
                                                    SpaceMask spaces) const {
  if (last_found_ && address >= last_found_->piece.start &&
      address < last_found_->piece.end && (last_found_->spaces & spaces) != 0) {
    return last_found_;
  }
  for (const Layer& layer : layers_) {
    if ((layer.spaces & spaces) == 0) continue;
    auto it = layer.pieces.upper_bound(address);
    if (it == layer.pieces.begin()) continue;
    --it;
    if (address < it->second.end) {
      last_found_ = Found{it->second, layer.spaces};
      return last_found_;
    }
  }
  return std::nullopt;
}

absl::Span<const uint8_t> MemoryImage::RegionBytes(uint32_t region) const {
  if (!region_bytes_resolved_[region]) {
    region_bytes_resolved_[region] = true;
    auto bytes = RegionFileBytes(timeline_, region, *files_);
    if (bytes.ok()) region_bytes_[region] = *bytes;
  }
  return region_bytes_[region];
}

size_t MemoryImage::Read(uint64_t address, uint8_t* out, size_t size,
                         SpaceMask spaces, ReadExtent extent) const {
  size_t done = 0;
  while (done < size) {
    std::optional<Found> found = Find(address, spaces);
    if (!found) break;
    const Piece& piece = found->piece;
    const capture::Region& region = timeline_.regions()[piece.region];
    const absl::Span<const uint8_t> bytes = RegionBytes(piece.region);
    const uint64_t want = std::min<uint64_t>(size - done, piece.end - address);
    const uint64_t in_region = address - region.start;
    // The file backs the start of the region; the rest is zero fill (.bss).
    const uint64_t from_file =
        in_region < bytes.size()
            ? std::min<uint64_t>(want, bytes.size() - in_region)
            : 0;
    if (from_file > 0) {
      std::memcpy(out + done, bytes.data() + in_region, from_file);
    }
    if (want > from_file && in_region + from_file < region.file_size) {
      // The image file is missing or shorter than the region says: the
      // bytes are unknown, not zeros.
      return done + from_file;
    }
    std::memset(out + done + from_file, 0, want - from_file);
    done += want;
    address += want;
    if (extent == ReadExtent::kOneRegion) break;
  }
  return done;
}

std::optional<uint32_t> MemoryImage::RegionAt(uint64_t address,
                                              SpaceMask spaces) const {
  std::optional<Found> found = Find(address, spaces);
  if (!found) return std::nullopt;
  return found->piece.region;
}

}  // namespace hwt
