// The code memory an OpenCSD decode tree reads opcodes from: the address-space
// timeline's regions (ELF segments and raw memory dumps) mapped for one
// buffer, replayed as the decode advances through the buffer. Served through
// one OpenCSD callback accessor rather than binfile accessors because 1.3.3
// keeps file accessors in a process-wide table keyed by path (not safe for
// trees decoding in parallel, and unable to map one file at two addresses),
// re-reads each opcode with an ifstream seek, and cannot unmap or remap a
// region in the middle of a buffer.
#ifndef HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_
#define HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"
#include "capture/address_space.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

// Read-only maps of every image file the timeline's regions use, shared by
// all memory views (and threads) of one decoder.
class ImageFiles {
 public:
  // Maps every readable image; unreadable ones stay unmapped (the timeline
  // already warned about them) and read as inaccessible memory.
  static ImageFiles Open(const capture::AddressSpaceTimeline& timeline);

  // The bytes of `region` that its file backs, or an empty span.
  absl::Span<const uint8_t> RegionBytes(const capture::Region& region) const;

 private:
  std::vector<std::shared_ptr<MappedFile>> files_;  // by image index
};

// OCSD_MEM_SPACE_* bits a region's memory space covers.
uint32_t OcsdSpaceMask(capture::MemorySpace space);

class MemoryView {
 public:
  MemoryView(const capture::AddressSpaceTimeline& timeline,
             const ImageFiles& files, size_t buffer_index);

  // Applies the timeline's changes for this buffer up to and including
  // `position`. Returns the position of the next change after it (or
  // UINT64_MAX).
  uint64_t AdvanceTo(uint64_t position);

  // OpenCSD's memory callback: copies up to `size` bytes at `address` in
  // memory space `space`; 0 when no region is mapped there.
  uint32_t Read(uint64_t address, ocsd_mem_space_acc_t space, uint32_t size,
                uint8_t* out);

  // 1 + the timeline region index mapped at `address` (any memory space), 0
  // if none.
  uint32_t RegionAt(uint64_t address);

 private:
  // A piece of one region: overlapping regions are cut so that the most
  // recently mapped one wins.
  struct Piece {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t region = 0;
  };
  struct SpaceGroup {
    uint32_t mask = 0;          // OCSD_MEM_SPACE_* bits
    std::vector<Piece> pieces;  // sorted by start, disjoint
  };

  void Rebuild();
  const Piece* Find(uint64_t address, uint32_t space_mask);

  const capture::AddressSpaceTimeline& timeline_;
  const ImageFiles& files_;
  size_t buffer_index_;
  size_t next_change_ = 0;
  std::vector<uint32_t> mapped_;  // region indices, in mapping order
  std::vector<SpaceGroup> groups_;
  const Piece* cached_ = nullptr;
  uint32_t cached_mask_ = 0;
};

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_MEMORY_VIEW_H_
