// Hands trace bytes to libipt so that libipt 2.0.5 can never read past their
// end. libipt 2.0.5's PSB search (pt_find_psb, used by every sync and by the
// packet decoder) looks at the byte right after an 8-byte aligned word of PSB
// payload without checking that it is inside the buffer; when that word ends
// exactly at the end of the buffer (a trace that stops inside or right after
// a PSB, which is how ring-buffer snapshots end) it reads one byte past the
// end, which faults when the buffer ends at an unmapped page (fixed in
// libipt 2.0.6). In that one case the bytes are copied to memory with the
// same alignment and readable padding after the end; otherwise the caller's
// bytes are used as they are.
#ifndef HWT_DECODERS_PT_PT_TRACE_BUFFER_H_
#define HWT_DECODERS_PT_PT_TRACE_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace hwt::pt {

class PtTraceBuffer {
 public:
  PtTraceBuffer(const uint8_t* data, size_t size);
  PtTraceBuffer(const PtTraceBuffer&) = delete;
  PtTraceBuffer& operator=(const PtTraceBuffer&) = delete;

  // The bytes to give libipt (pt_config::begin/end).
  uint8_t* begin() const { return begin_; }
  uint8_t* end() const { return begin_ + size_; }
  size_t size() const { return size_; }
  // Whether the bytes had to be copied.
  bool copied() const { return copy_ != nullptr; }

  // Whether libipt 2.0.5 would read past the end of [data, data+size): the
  // end is 8-byte aligned and the 8 bytes before it are PSB payload
  // (02 82 02 82 ... in either phase).
  static bool EndsAtRisk(const uint8_t* data, size_t size);

 private:
  std::unique_ptr<uint8_t[]> copy_;
  uint8_t* begin_ = nullptr;
  size_t size_ = 0;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_TRACE_BUFFER_H_
