// libipt's view of the address-space timeline: ONE pt_image_section_cache
// per run holding a file-backed section per region (pt_iscache_add_file;
// never a read callback, which defeats libipt's block cache and is 3-7x
// slower), and per decoded stream a pt_image that holds the sections of the
// regions currently mapped (pt_image_add_cached), kept in step with the
// stream's MemoryImage.
#ifndef HWT_DECODERS_PT_PT_SECTIONS_H_
#define HWT_DECODERS_PT_PT_SECTIONS_H_

#include <intel-pt.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "capture/address_space.h"

namespace hwt::pt {

// The run-wide section cache. Thread-safe.
class PtSectionCache {
 public:
  explicit PtSectionCache(const capture::AddressSpaceTimeline& timeline);
  ~PtSectionCache();
  PtSectionCache(const PtSectionCache&) = delete;
  PtSectionCache& operator=(const PtSectionCache&) = delete;

  // The section of `region` (added on first use), or a negative pte_ error
  // when its image file is missing or cannot be read.
  int SectionOf(uint32_t region);
  // The region a section was added for.
  std::optional<uint32_t> RegionOf(int isid) const;

  struct pt_image_section_cache* iscache() const {
    return iscache_;
  }
  const capture::AddressSpaceTimeline& timeline() const { return timeline_; }

 private:
  const capture::AddressSpaceTimeline& timeline_;
  struct pt_image_section_cache* iscache_;
  mutable std::mutex mutex_;
  std::vector<int> isid_by_region_;      // 0 = not added yet
  std::vector<int64_t> region_by_isid_;  // -1 = unknown
};

// One stream's pt_image. Not thread-safe.
class PtStreamImage {
 public:
  explicit PtStreamImage(PtSectionCache* sections);
  ~PtStreamImage();
  PtStreamImage(const PtStreamImage&) = delete;
  PtStreamImage& operator=(const PtStreamImage&) = delete;

  // Makes the image hold exactly the sections of `mapped` (regions in
  // mapping order: later ones hide earlier ones where they overlap).
  void Sync(const std::vector<uint32_t>& mapped);

  struct pt_image* image() const {
    return image_;
  }

 private:
  void Add(uint32_t region);

  PtSectionCache* sections_;
  struct pt_image* image_;
  std::vector<uint32_t> current_;  // regions in the image, in order added
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_SECTIONS_H_
