// The address-space timeline: for every buffer and over trace position, which
// image (ELF file or raw memory dump) is mapped where. Built from the HWT
// records (EXECUTABLE resets user mappings and maps the program and its
// interpreter, MMAP adds, MUNMAP removes, KERNEL adds kernel objects), the
// manifest's memory dumps and the --image options. Decoders feed the changes
// to their memory model; analysis maps addresses back to (image, ELF vaddr).
#ifndef HWT_CAPTURE_ADDRESS_SPACE_H_
#define HWT_CAPTURE_ADDRESS_SPACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"
#include "capture/manifest.h"

namespace hwt::capture {

// An image known to the capture.
struct Image {
  std::string recorded_path;  // as recorded (or given with --image)
  std::string file;           // resolved readable file; empty when missing
  std::string build_id;       // lowercase hex; empty if none/unknown
  bool is_elf = true;         // false for raw memory dumps
  bool kernel = false;        // KERNEL record (CPU mode)
  bool persistent = false;    // --image: survives EXECUTABLE resets
};

// One contiguous range of an image mapped into memory. Decoders make one
// memory section per region (libipt: pt_iscache_add_file; OpenCSD: a binfile
// region).
struct Region {
  uint32_t image = 0;  // index into images()
  uint64_t start = 0;  // virtual range [start, end)
  uint64_t end = 0;
  uint64_t file_offset = 0;  // the file bytes backing [start, start+file_size)
  uint64_t file_size = 0;    // <= end - start (the rest is zero fill)
  uint64_t bias = 0;         // ELF vaddr = address - bias (0 for dumps: vaddr
                             // then equals the address)
  MemorySpace space = MemorySpace::kAny;
  bool executable = true;
};

// One change to one buffer's address space, in effect from `position` (a byte
// offset into that buffer's raw file) onwards.
struct AddressSpaceChange {
  enum class Kind { kMap, kUnmap, kResetUser };
  Kind kind = Kind::kMap;
  uint64_t position = 0;
  uint32_t region = 0;  // kMap / kUnmap: index into regions()
};

class AddressSpaceTimeline {
 public:
  const std::vector<Image>& images() const { return images_; }
  const std::vector<Region>& regions() const { return regions_; }
  // Ordered (by position) changes for one buffer (index into
  // manifest().buffers).
  const std::vector<AddressSpaceChange>& changes(size_t buffer_index) const {
    return changes_[buffer_index];
  }
  // Number of buffers changes() can be asked about.
  size_t buffer_count() const { return changes_.size(); }
  // Whether an EXECUTABLE reset (kResetUser) unmaps this region: user ELF
  // images mapped from records do; kernel objects, memory dumps and --image
  // images do not. Decoders replaying changes must use this.
  bool RemovedByReset(uint32_t region) const;
  // Indices of the regions mapped in a buffer at `position`.
  std::vector<uint32_t> RegionsAt(size_t buffer_index, uint64_t position) const;
  // Problems found while building, each reported once, e.g. "image
  // /lib/libc.so.7 not found (tried ...): 0x800200000-0x800400000 cannot be
  // decoded".
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Builder interface (used by BuildAddressSpaceTimeline and tests).
  uint32_t AddImage(Image image);
  uint32_t AddRegion(Region region);
  void AddChange(size_t buffer_index, AddressSpaceChange change);
  void AddWarning(std::string warning);
  void MarkPersistent(uint32_t image) { images_[image].persistent = true; }
  void SetBufferCount(size_t count) { changes_.resize(count); }

 private:
  std::vector<Image> images_;
  std::vector<Region> regions_;
  std::vector<std::vector<AddressSpaceChange>> changes_;
  std::vector<std::string> warnings_;
};

// Builds the timeline of a capture. Missing images are warnings, not errors;
// an image that exists but is not a valid ELF is an error naming the file.
absl::StatusOr<AddressSpaceTimeline> BuildAddressSpaceTimeline(
    const Capture& capture);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_ADDRESS_SPACE_H_
