// Implementation of the shared memory model; see memory_image.h.
#include "decoders/memory_image.h"

#include <algorithm>
#include <cstring>

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

MemoryImage::MemoryImage(const capture::AddressSpaceTimeline& timeline,
                         size_t buffer_index,
                         std::shared_ptr<ImageFileCache> files)
    : timeline_(timeline),
      buffer_index_(buffer_index),
      files_(files ? std::move(files) : std::make_shared<ImageFileCache>()),
      region_files_(timeline.regions().size(), nullptr),
      region_file_resolved_(timeline.regions().size(), false) {}

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
  if (!pieces_.empty()) ++generation_;
  pieces_.clear();
  order_.clear();
}

bool MemoryImage::Carve(uint64_t start, uint64_t end) {
  std::vector<std::pair<uint64_t, Piece>> hit;
  auto it = pieces_.upper_bound(start);
  if (it != pieces_.begin()) --it;
  for (; it != pieces_.end() && it->first < end; ++it) {
    if (it->second.end <= start) continue;
    hit.emplace_back(it->first, it->second);
  }
  for (const auto& [piece_start, piece] : hit) {
    pieces_.erase(piece_start);
    if (piece_start < start) pieces_[piece_start] = Piece{start, piece.region};
    if (piece.end > end) pieces_[end] = Piece{piece.end, piece.region};
  }
  return !hit.empty();
}

void MemoryImage::Map(uint32_t region) {
  if (region >= timeline_.regions().size()) return;
  const capture::Region& r = timeline_.regions()[region];
  if (r.end <= r.start) return;
  if (std::find(order_.begin(), order_.end(), region) != order_.end()) {
    Unmap(region);
  }
  if (Carve(r.start, r.end)) ++generation_;
  pieces_[r.start] = Piece{r.end, region};
  order_.push_back(region);
}

void MemoryImage::Unmap(uint32_t region) {
  auto pos = std::find(order_.begin(), order_.end(), region);
  if (pos == order_.end()) return;
  order_.erase(pos);
  for (auto it = pieces_.begin(); it != pieces_.end();) {
    if (it->second.region == region) {
      it = pieces_.erase(it);
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

const MappedFile* MemoryImage::RegionFile(uint32_t region) const {
  if (!region_file_resolved_[region]) {
    region_file_resolved_[region] = true;
    const capture::Image& image =
        timeline_.images()[timeline_.regions()[region].image];
    if (!image.file.empty()) {
      auto file = files_->Get(image.file);
      if (file.ok()) region_files_[region] = *file;
    }
  }
  return region_files_[region];
}

size_t MemoryImage::Read(uint64_t address, uint8_t* out, size_t size) const {
  size_t done = 0;
  while (done < size) {
    auto it = pieces_.upper_bound(address);
    if (it == pieces_.begin()) break;
    --it;
    if (address >= it->second.end) break;
    const uint32_t region = it->second.region;
    const capture::Region& r = timeline_.regions()[region];
    const MappedFile* file = RegionFile(region);
    if (file == nullptr) break;
    const uint64_t want =
        std::min<uint64_t>(size - done, it->second.end - address);
    const uint64_t offset = address - r.start;
    uint64_t copied = 0;
    if (offset < r.file_size) {
      const uint64_t file_pos = r.file_offset + offset;
      if (file_pos >= file->size()) break;
      copied = std::min<uint64_t>(
          {want, r.file_size - offset, file->size() - file_pos});
      std::memcpy(out + done, file->data() + file_pos, copied);
      if (copied < want && offset + copied < r.file_size) {
        // The file is shorter than its program header says.
        done += copied;
        break;
      }
    }
    // Beyond the file bytes of a region: zero fill (.bss-like).
    std::memset(out + done + copied, 0, want - copied);
    done += want;
    address += want;
  }
  return done;
}

std::optional<uint32_t> MemoryImage::RegionAt(uint64_t address) const {
  auto it = pieces_.upper_bound(address);
  if (it == pieces_.begin()) return std::nullopt;
  --it;
  if (address >= it->second.end) return std::nullopt;
  return it->second.region;
}

}  // namespace hwt
