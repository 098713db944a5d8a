// PSB search; see pt_sync.h.
#include "decoders/pt/pt_sync.h"

#include <algorithm>
#include <cstring>

namespace hwt::pt {
namespace {

constexpr uint8_t kPsbHi = 0x02;
constexpr uint8_t kPsbLo = 0x82;

bool IsPsbAt(const uint8_t* data, size_t size, uint64_t offset) {
  if (offset + kPsbSize > size) return false;
  for (size_t i = 0; i < kPsbSize; i += 2) {
    if (data[offset + i] != kPsbHi || data[offset + i + 1] != kPsbLo) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<uint64_t> FindNextPsb(const uint8_t* data, size_t size,
                                    uint64_t from) {
  if (size < kPsbSize) return std::nullopt;
  for (uint64_t offset = from; offset + kPsbSize <= size;) {
    const uint8_t* hit = static_cast<const uint8_t*>(
        memchr(data + offset, kPsbHi, size - kPsbSize + 1 - offset));
    if (hit == nullptr) return std::nullopt;
    offset = hit - data;
    if (IsPsbAt(data, size, offset)) {
      while (IsPsbAt(data, size, offset + 2)) offset += 2;
      return offset;
    }
    ++offset;
  }
  return std::nullopt;
}

uint64_t ResyncSearchStart(uint64_t error_offset, uint64_t last_sync) {
  const uint64_t early =
      error_offset >= kPsbSize - 1 ? error_offset - (kPsbSize - 1) : 0;
  return std::max(early, last_sync + 1);
}

std::vector<uint64_t> FindAllPsbs(const uint8_t* data, size_t size) {
  std::vector<uint64_t> psbs;
  for (uint64_t from = 0;;) {
    const std::optional<uint64_t> psb = FindNextPsb(data, size, from);
    if (!psb) return psbs;
    psbs.push_back(*psb);
    from = *psb + 1;
  }
}

}  // namespace hwt::pt
