// The memory model shared by the decoders: which code bytes are visible at
// which address in one buffer's address space, replayed from the
// address-space timeline as decoding moves through the buffer. Image files
// are mapped once per run (ImageFileCache) and shared by every decoder. Used
// for instruction sizes (a block's last instruction, its return address) and
// to expand blocks into instructions (InsnWalker). libipt keeps its own
// sections (decoders/pt); both follow the same timeline.
#ifndef HWT_DECODERS_MEMORY_IMAGE_H_
#define HWT_DECODERS_MEMORY_IMAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"
#include "capture/address_space.h"

namespace hwt {

// Maps each image file once and keeps it mapped for the whole run. Safe to
// share between threads.
class ImageFileCache {
 public:
  // The mapped file, or the error naming it (errors are remembered, so a
  // missing file is tried once).
  absl::StatusOr<const MappedFile*> Get(const std::string& path);

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<MappedFile>> files_;
  std::map<std::string, absl::Status> errors_;
};

// The code visible in one buffer's address space. Not thread-safe: one per
// decoded stream.
class MemoryImage {
 public:
  MemoryImage(const capture::AddressSpaceTimeline& timeline,
              size_t buffer_index, std::shared_ptr<ImageFileCache> files);

  // Applies, in order, every change of the buffer whose position is <=
  // `position` and that was not applied yet. Returns true if anything
  // changed. Positions only move forward; Rewind() starts over (empty).
  bool AdvanceTo(uint64_t position) {
    return position >= next_position_ && ApplyChangesUpTo(position);
  }
  void Rewind();

  // Direct edits (tests, raw inputs): a later mapping hides what it overlaps.
  void Map(uint32_t region);
  void Unmap(uint32_t region);
  void ResetUser();

  // Copies up to `size` bytes of code at `address` into `out` and returns
  // how many were copied: 0 when nothing is mapped there. Continues into a
  // region mapped right after (an instruction may straddle two sections);
  // the part of a region beyond its file bytes reads as zeros.
  size_t Read(uint64_t address, uint8_t* out, size_t size) const;

  // The timeline region mapped at `address`.
  std::optional<uint32_t> RegionAt(uint64_t address) const;

  // Regions currently mapped, in the order they were mapped (later ones hide
  // earlier ones where they overlap).
  const std::vector<uint32_t>& mapped_regions() const { return order_; }

  // Incremented whenever bytes at an already mapped address may have changed
  // (unmap, reset, a mapping over mapped code): caches keyed by address must
  // be dropped when it changes.
  uint64_t generation() const { return generation_; }

  const capture::AddressSpaceTimeline& timeline() const { return timeline_; }
  size_t buffer_index() const { return buffer_index_; }

 private:
  // A piece of a region that is visible: [start, end) of region `region`.
  struct Piece {
    uint64_t end = 0;
    uint32_t region = 0;
  };

  bool ApplyChangesUpTo(uint64_t position);
  // Bytes of the region's file (nullptr when the file cannot be read).
  const MappedFile* RegionFile(uint32_t region) const;
  // Removes every visible piece in [start, end); returns true if any.
  bool Carve(uint64_t start, uint64_t end);

  const capture::AddressSpaceTimeline& timeline_;
  size_t buffer_index_;
  std::shared_ptr<ImageFileCache> files_;
  size_t next_change_ = 0;
  uint64_t next_position_ = 0;        // position of changes()[next_change_]
  std::map<uint64_t, Piece> pieces_;  // by start address, non-overlapping
  std::vector<uint32_t> order_;
  uint64_t generation_ = 0;
  // Per region: the mapped file (resolved lazily), or nullptr.
  mutable std::vector<const MappedFile*> region_files_;
  mutable std::vector<bool> region_file_resolved_;
};

}  // namespace hwt

#endif  // HWT_DECODERS_MEMORY_IMAGE_H_
