// The builder half of capture::AddressSpaceTimeline, for building and testing
// analysis/ in a tree where capture/ has no library yet (analysis/CMakeLists
// uses it only when no hwt_capture target exists). It follows the contract in
// capture/address_space.h; capture/address_space.cc replaces it.
#include <algorithm>
#include <utility>

#include "capture/address_space.h"

namespace hwt::capture {

uint32_t AddressSpaceTimeline::AddImage(Image image) {
  images_.push_back(std::move(image));
  return static_cast<uint32_t>(images_.size() - 1);
}

uint32_t AddressSpaceTimeline::AddRegion(Region region) {
  regions_.push_back(region);
  return static_cast<uint32_t>(regions_.size() - 1);
}

void AddressSpaceTimeline::AddChange(size_t buffer_index,
                                     AddressSpaceChange change) {
  if (buffer_index >= changes_.size()) changes_.resize(buffer_index + 1);
  auto& list = changes_[buffer_index];
  // Keep the list ordered by position; equal positions keep insertion order.
  auto at = std::upper_bound(list.begin(), list.end(), change.position,
                             [](uint64_t pos, const AddressSpaceChange& c) {
                               return pos < c.position;
                             });
  list.insert(at, change);
}

void AddressSpaceTimeline::AddWarning(std::string warning) {
  warnings_.push_back(std::move(warning));
}

std::vector<uint32_t> AddressSpaceTimeline::RegionsAt(size_t buffer_index,
                                                      uint64_t position) const {
  std::vector<uint32_t> mapped;
  if (buffer_index >= changes_.size()) return mapped;
  for (const AddressSpaceChange& c : changes_[buffer_index]) {
    if (c.position > position) break;
    switch (c.kind) {
      case AddressSpaceChange::Kind::kMap:
        mapped.push_back(c.region);
        break;
      case AddressSpaceChange::Kind::kUnmap:
        mapped.erase(std::remove(mapped.begin(), mapped.end(), c.region),
                     mapped.end());
        break;
      case AddressSpaceChange::Kind::kResetUser:
        mapped.erase(std::remove_if(mapped.begin(), mapped.end(),
                                    [&](uint32_t r) {
                                      return !images_[regions_[r].image].kernel;
                                    }),
                     mapped.end());
        break;
    }
  }
  std::sort(mapped.begin(), mapped.end());
  mapped.erase(std::unique(mapped.begin(), mapped.end()), mapped.end());
  return mapped;
}

}  // namespace hwt::capture
