// Maps sampled addresses (SPE's PCs and data addresses) to (image, ELF
// vaddr) with the address-space timeline: per buffer, the timeline's changes
// are replayed as samples arrive in trace order, and addresses are looked up
// in sorted ranges (with a one-entry cache, since consecutive samples tend
// to hit the same image). Code addresses use the mapped (executable)
// regions; data addresses also use the image's other PT_LOAD segments at
// the same bias, so that globals in .data/.bss/.rodata resolve to their
// image.
#ifndef HWT_ANALYSIS_SAMPLE_ADDRESS_MAP_H_
#define HWT_ANALYSIS_SAMPLE_ADDRESS_MAP_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/frame.h"
#include "capture/address_space.h"
#include "capture/elf_file.h"

namespace hwt::analysis {

struct MappedAddress {
  uint32_t image = kNoImage;  // index into the timeline's images()
  uint64_t vaddr = 0;         // ELF virtual address in that image
  bool operator==(const MappedAddress&) const = default;
};

class SampleAddressMap {
 public:
  // No timeline: every address is unknown.
  SampleAddressMap() = default;
  // `buffer_count`: the capture's buffers (the timeline has changes for
  // each). `image_loads[i]`: the PT_LOAD segments of image i (may be empty
  // or shorter than images(): those images map data through their regions
  // only). The timeline must outlive the map.
  SampleAddressMap(
      const capture::AddressSpaceTimeline* timeline, size_t buffer_count,
      std::vector<std::vector<capture::ElfSegment>> image_loads = {});

  // The PT_LOAD segments of every readable ELF image of the timeline
  // (unreadable or non-ELF images get none).
  static std::vector<std::vector<capture::ElfSegment>> LoadImageSegments(
      const capture::AddressSpaceTimeline& timeline);

  // Code and data lookups for buffer `buffer` at trace `position` (a byte
  // offset in its raw file). Positions should not decrease per buffer (going
  // back replays that buffer's changes from the start).
  // `region` (may be null) receives the timeline region the address was
  // found in (the one whose bias applies).
  std::optional<MappedAddress> Code(size_t buffer, uint64_t position,
                                    uint64_t address,
                                    uint32_t* region = nullptr);
  std::optional<MappedAddress> Data(size_t buffer, uint64_t position,
                                    uint64_t address);

  const capture::AddressSpaceTimeline* timeline() const { return timeline_; }

 private:
  struct Range {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t image = 0;
    uint64_t bias = 0;
    uint32_t region = 0;
  };
  struct Ranges {
    std::vector<Range> ranges;      // sorted by start
    std::vector<uint64_t> max_end;  // max end of ranges[0..i]
    Range last;                     // one-entry cache (end == 0: empty)
  };
  struct BufferState {
    size_t next_change = 0;
    uint64_t position = 0;
    std::vector<uint32_t> mapped;  // region ids, in mapping order
    bool dirty = true;
    Ranges code;
    Ranges data;
  };

  BufferState& Seek(size_t buffer, uint64_t position);
  void Rebuild(BufferState& state);
  static void Index(Ranges& ranges);
  static std::optional<MappedAddress> Find(Ranges& ranges, uint64_t address,
                                           uint32_t* region = nullptr);

  const capture::AddressSpaceTimeline* timeline_ = nullptr;
  size_t buffer_count_ = 0;
  std::vector<std::vector<capture::ElfSegment>> image_loads_;
  std::vector<BufferState> buffers_;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SAMPLE_ADDRESS_MAP_H_
