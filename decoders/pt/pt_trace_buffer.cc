// Implementation of the libipt 2.0.5 end-of-buffer guard; see
// pt_trace_buffer.h.
#include "decoders/pt/pt_trace_buffer.h"

#include <cstring>

namespace hwt::pt {
namespace {

// The two 8-byte words a PSB payload (02 82 repeated) can fill, as libipt
// compares them (little endian loads).
constexpr uint64_t kPsbWordLoHi = 0x8202820282028202ull;  // 02 82 02 82 ..
constexpr uint64_t kPsbWordHiLo = 0x0282028202820282ull;  // 82 02 82 02 ..
constexpr size_t kPadding = 16;

}  // namespace

bool PtTraceBuffer::EndsAtRisk(const uint8_t* data, size_t size) {
  if (size < sizeof(uint64_t)) return false;
  const uint8_t* end = data + size;
  if (reinterpret_cast<uintptr_t>(end) % sizeof(uint64_t) != 0) return false;
  uint64_t word;
  std::memcpy(&word, end - sizeof(word), sizeof(word));
  return word == kPsbWordLoHi || word == kPsbWordHiLo;
}

PtTraceBuffer::PtTraceBuffer(const uint8_t* data, size_t size) : size_(size) {
  if (!EndsAtRisk(data, size)) {
    // libipt takes non-const pointers but never writes to the trace.
    begin_ = const_cast<uint8_t*>(data);
    return;
  }
  // Same alignment modulo 8 as the original, so libipt's aligned PSB search
  // sees exactly the same words; the padding after the end is readable.
  copy_.reset(new uint8_t[size + kPadding + sizeof(uint64_t)]);
  const uintptr_t base = reinterpret_cast<uintptr_t>(copy_.get());
  const uintptr_t want = reinterpret_cast<uintptr_t>(data) % sizeof(uint64_t);
  const uintptr_t shift =
      (want + sizeof(uint64_t) - base % sizeof(uint64_t)) % sizeof(uint64_t);
  begin_ = copy_.get() + shift;
  std::memcpy(begin_, data, size);
  std::memset(begin_ + size, 0, kPadding);
}

}  // namespace hwt::pt
