// libipt sections for the address-space timeline; see pt_sections.h.
#include "decoders/pt/pt_sections.h"

#include <algorithm>
#include <limits>

namespace hwt::pt {
namespace {

// Keeps recently used sections mapped (and their block caches alive) while
// decoding moves between images.
constexpr uint64_t kSectionCacheLimit = 1ull << 30;

}  // namespace

PtSectionCache::PtSectionCache(const capture::AddressSpaceTimeline& timeline)
    : timeline_(timeline),
      iscache_(pt_iscache_alloc("hwt")),
      isid_by_region_(timeline.regions().size(), 0) {
  if (iscache_ != nullptr) pt_iscache_set_limit(iscache_, kSectionCacheLimit);
}

PtSectionCache::~PtSectionCache() { pt_iscache_free(iscache_); }

int PtSectionCache::SectionOf(uint32_t region) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (region >= isid_by_region_.size()) return -pte_invalid;
  int& isid = isid_by_region_[region];
  if (isid != 0) return isid;
  const capture::Region& r = timeline_.regions()[region];
  const capture::Image& image = timeline_.images()[r.image];
  if (iscache_ == nullptr) {
    isid = -pte_nomem;
  } else if (image.file.empty() || r.file_size == 0) {
    isid = -pte_nomap;
  } else {
    isid = pt_iscache_add_file(iscache_, image.file.c_str(), r.file_offset,
                               r.file_size, r.start);
  }
  if (isid > 0) {
    if (region_by_isid_.size() <= static_cast<size_t>(isid)) {
      region_by_isid_.resize(isid + 1, -1);
    }
    // Identical sections share an isid: the first region keeps it.
    if (region_by_isid_[isid] < 0) region_by_isid_[isid] = region;
  }
  return isid;
}

std::optional<uint32_t> PtSectionCache::RegionOf(int isid) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (isid <= 0 || static_cast<size_t>(isid) >= region_by_isid_.size() ||
      region_by_isid_[isid] < 0) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(region_by_isid_[isid]);
}

PtStreamImage::PtStreamImage(PtSectionCache* sections)
    : sections_(sections), image_(pt_image_alloc(nullptr)) {}

PtStreamImage::~PtStreamImage() { pt_image_free(image_); }

void PtStreamImage::Add(uint32_t region) {
  const int isid = sections_->SectionOf(region);
  if (isid > 0 &&
      pt_image_add_cached(image_, sections_->iscache(), isid, nullptr) >= 0) {
    current_.push_back(region);
  }
}

void PtStreamImage::Sync(const std::vector<uint32_t>& mapped) {
  const auto& timeline = sections_->timeline();
  auto contains = [](const std::vector<uint32_t>& v, uint32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // libipt removes sections by file name only: drop every section of a file
  // that lost a region, then add back the regions of that file still mapped.
  std::vector<std::string> dropped_files;
  for (uint32_t region : current_) {
    if (contains(mapped, region)) continue;
    const std::string& file =
        timeline.images()[timeline.regions()[region].image].file;
    if (std::find(dropped_files.begin(), dropped_files.end(), file) ==
        dropped_files.end()) {
      dropped_files.push_back(file);
    }
  }
  for (const std::string& file : dropped_files) {
    pt_image_remove_by_filename(image_, file.c_str(), nullptr);
    current_.erase(
        std::remove_if(
            current_.begin(), current_.end(),
            [&](uint32_t region) {
              return timeline.images()[timeline.regions()[region].image].file ==
                     file;
            }),
        current_.end());
  }
  for (uint32_t region : mapped) {
    if (!contains(current_, region)) Add(region);
  }
}

}  // namespace hwt::pt
