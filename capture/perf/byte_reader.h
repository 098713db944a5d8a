// Bounds-checked little-endian reads over a byte span, for the perf.data
// tokenizer and record decoders: every read says whether the bytes were
// there, so a short or hostile record can never be read past its end.
#ifndef HWT_CAPTURE_PERF_BYTE_READER_H_
#define HWT_CAPTURE_PERF_BYTE_READER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace hwt::capture::perf {

inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;  // the tree builds only for little-endian hosts (x86-64, arm64)
}
inline uint32_t LoadLe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint16_t LoadLe16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// A cursor over `bytes`. Reads past the end fail (return false) and leave the
// cursor where it was.
class ByteReader {
 public:
  explicit ByteReader(absl::Span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  absl::Span<const uint8_t> rest() const { return bytes_.subspan(pos_); }

  bool U64(uint64_t* out) { return Fixed(out, 8); }
  bool U32(uint32_t* out) { return Fixed(out, 4); }
  bool U16(uint16_t* out) { return Fixed(out, 2); }
  bool U8(uint8_t* out) { return Fixed(out, 1); }
  bool I32(int32_t* out) { return Fixed(out, 4); }
  bool Skip(size_t n) {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }
  bool Bytes(size_t n, absl::Span<const uint8_t>* out) {
    if (n > remaining()) return false;
    *out = bytes_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  // A NUL-padded string field of `n` bytes (the text stops at the first NUL).
  bool PaddedString(size_t n, std::string* out) {
    absl::Span<const uint8_t> field;
    if (!Bytes(n, &field)) return false;
    *out = CString(field);
    return true;
  }
  // The text of `field` up to its first NUL (or all of it).
  static std::string CString(absl::Span<const uint8_t> field) {
    const char* p = reinterpret_cast<const char*>(field.data());
    size_t len = 0;
    while (len < field.size() && p[len] != '\0') ++len;
    return std::string(p, len);
  }

 private:
  template <typename T>
  bool Fixed(T* out, size_t n) {
    if (n > remaining()) return false;
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }

  absl::Span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_BYTE_READER_H_
