// The one memory model of the decoders and the analysis: which code bytes are
// visible at which address in one buffer's address space, replayed from the
// address-space timeline as decoding moves through the buffer. Image files
// are mapped once per run (ImageFileCache) and shared by every decoder,
// thread and reader. PT reads it for instruction sizes (a block's last
// instruction, its return address) and its instruction and block caches;
// CoreSight serves OpenCSD's memory callback from it (memory spaces: the
// region's secure state and exception level); block expansion reads a
// region's code through RegionFileBytes. libipt keeps its own sections
// (decoders/pt); both follow the same timeline.
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
#include "absl/types/span.h"
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

// The bytes of the file that back `region` (index into the timeline's
// regions()): [file_offset, file_offset + file_size) of its image's file,
// cut at the end of the file (empty when the file is shorter than
// file_offset). Errors: no such region, the image has no file ("image X not
// found"), or the file cannot be mapped.
absl::StatusOr<absl::Span<const uint8_t>> RegionFileBytes(
    const capture::AddressSpaceTimeline& timeline, uint32_t region,
    ImageFileCache& files);

// Memory spaces as bits: a region belongs to the spaces of its mask, a read
// asks for the spaces of its mask, and a region is visible to a read when
// the two share a bit. The values are OpenCSD's (ocsd_mem_space_acc_t), so
// the CoreSight decoder passes them through unchanged.
using SpaceMask = uint32_t;
inline constexpr SpaceMask kSpaceEL1S = 0x1;  // secure EL1/EL0
inline constexpr SpaceMask kSpaceEL1N = 0x2;  // non-secure EL1/EL0
inline constexpr SpaceMask kSpaceEL2N = 0x4;  // non-secure EL2
inline constexpr SpaceMask kSpaceEL3 = 0x8;
inline constexpr SpaceMask kSpaceEL2S = 0x10;  // secure EL2
inline constexpr SpaceMask kSpaceSecure =
    kSpaceEL1S | kSpaceEL3 | kSpaceEL2S;                               // 0x19
inline constexpr SpaceMask kSpaceNonSecure = kSpaceEL1N | kSpaceEL2N;  // 0x6
inline constexpr SpaceMask kSpaceAny = 0x1f;

// The bits of a region's memory space (kAny: every space).
SpaceMask SpaceMaskOf(capture::MemorySpace space);

// How far one read goes.
enum class ReadExtent {
  // Into the regions mapped right after (an instruction may straddle two
  // sections): what the CPU sees.
  kAcrossRegions,
  // Up to the end of the region found at the address: what one OpenCSD
  // memory accessor returns, so that the CoreSight decode matches
  // OpenCSD's own decoders on the same memory layout.
  kOneRegion,
};

// The code visible in one buffer's address space. Not thread-safe (reads
// cache the last region found): one per decoded stream.
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
  // The position of the first change not applied yet (UINT64_MAX: none);
  // 0 before the first AdvanceTo().
  uint64_t next_change_position() const { return next_position_; }
  void Rewind();

  // Direct edits (tests, raw inputs). A mapping hides what it overlaps in
  // its own memory spaces, for good: unmapping it later leaves a hole, as
  // munmap does after a MAP_FIXED mapping (and as libipt's image does).
  void Map(uint32_t region);
  void Unmap(uint32_t region);
  void ResetUser();

  // Copies up to `size` bytes of code at `address` into `out` and returns
  // how many were copied: 0 when nothing is mapped there. The part of a
  // region beyond its file bytes reads as zeros; a region whose file is
  // missing or shorter than the region says ends the read where its known
  // bytes end. The first form reads every memory space across regions.
  size_t Read(uint64_t address, uint8_t* out, size_t size) const {
    return Read(address, out, size, kSpaceAny, ReadExtent::kAcrossRegions);
  }
  size_t Read(uint64_t address, uint8_t* out, size_t size, SpaceMask spaces,
              ReadExtent extent) const;

  // The timeline region mapped at `address` in one of `spaces`. Where
  // regions of several spaces cover the address, the one found last for an
  // overlapping request wins, else the one of the lowest space bits.
  std::optional<uint32_t> RegionAt(uint64_t address,
                                   SpaceMask spaces = kSpaceAny) const;

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
  // A visible piece of a region: [start, end) of region `region`.
  struct Piece {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t region = 0;
  };
  // The regions of one memory space, cut so that the most recently mapped
  // one wins where they overlap.
  struct Layer {
    SpaceMask spaces = 0;
    std::map<uint64_t, Piece> pieces;  // by start, disjoint
  };
  // A piece found by a read, with its layer's spaces.
  struct Found {
    Piece piece;
    SpaceMask spaces = 0;
  };

  bool ApplyChangesUpTo(uint64_t position);
  Layer& LayerFor(SpaceMask spaces);
  // Removes every visible piece of `layer` in [start, end); true if any.
  static bool Carve(Layer& layer, uint64_t start, uint64_t end);
  bool AnyPieceIn(uint64_t start, uint64_t end) const;
  std::optional<Found> Find(uint64_t address, SpaceMask spaces) const;
  // The region's file bytes (empty when the file cannot be read).
  absl::Span<const uint8_t> RegionBytes(uint32_t region) const;

  const capture::AddressSpaceTimeline& timeline_;
  size_t buffer_index_;
  std::shared_ptr<ImageFileCache> files_;
  size_t next_change_ = 0;
  uint64_t next_position_ = 0;  // position of changes()[next_change_]
  std::vector<Layer> layers_;   // by ascending space bits
  std::vector<uint32_t> order_;
  uint64_t generation_ = 0;
  mutable std::optional<Found> last_found_;
  // Per region: its file bytes, resolved on first use.
  mutable std::vector<absl::Span<const uint8_t>> region_bytes_;
  mutable std::vector<bool> region_bytes_resolved_;
};

}  // namespace hwt

#endif  // HWT_DECODERS_MEMORY_IMAGE_H_
