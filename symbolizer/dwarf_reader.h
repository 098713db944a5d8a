// A bounds-checked reader of DWARF bytes (fixed-size numbers, LEB128,
// strings) for the pre-checks that run before LLVM parses hostile DWARF:
// dwarf_line_check (line table headers) and dwarf_unit_check (DIEs).
#ifndef HWT_SYMBOLIZER_DWARF_READER_H_
#define HWT_SYMBOLIZER_DWARF_READER_H_

#include <cstdint>
#include <string_view>

namespace hwt::symbolizer {

// Bounds-checked reads of DWARF data; any overrun, or an LEB128 that LLVM's
// decoder refuses (and would then not step over), makes ok false and reads
// return 0. LLVM's own DataExtractor is not safe once an offset is past the
// end, which is why the checks that run before LLVM parses use this.
class DwarfReader {
 public:
  DwarfReader(std::string_view data, uint64_t pos, bool little_endian)
      : data_(data), pos_(pos), le_(little_endian) {}

  bool ok() const { return ok_; }
  bool leb_too_big() const { return leb_too_big_; }
  uint64_t pos() const { return pos_; }
  // Reads stop at `end` from now on (when it is before the current end).
  void Limit(uint64_t end) {
    if (end < data_.size()) data_ = data_.substr(0, end);
  }

  uint64_t Fixed(int bytes) {
    if (!Have(bytes)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      const uint64_t b = static_cast<uint8_t>(data_[pos_ + i]);
      v |= le_ ? b << (8 * i) : b << (8 * (bytes - 1 - i));
    }
    pos_ += bytes;
    return v;
  }
  // llvm::decodeULEB128's rules: bits past 64 must be zero.
  uint64_t Uleb() {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!Have(1)) return 0;
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      const uint64_t slice = byte & 0x7f;
      if ((shift == 63 && slice > 1) || (shift > 63 && slice != 0)) {
        ok_ = false;
        leb_too_big_ = true;
        return 0;
      }
      if (shift < 64) v |= slice << shift;
      if (!(byte & 0x80)) return v;
    }
  }
  // llvm::decodeSLEB128's rules: bits past 64 must repeat the sign.
  void SkipSleb() {
    int64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (!Have(1)) return;
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      const uint64_t slice = byte & 0x7f;
      if ((shift >= 64 && slice != (v < 0 ? 0x7fu : 0u)) ||
          (shift == 63 && slice != 0 && slice != 0x7f)) {
        ok_ = false;
        leb_too_big_ = true;
        return;
      }
      if (shift < 64) v |= static_cast<int64_t>(slice << shift);
      if (!(byte & 0x80)) return;
    }
  }
  void Skip(uint64_t n) {
    if (Have(n)) pos_ += n;
  }
  void SkipCString() {
    while (Have(1)) {
      if (data_[pos_++] == '\0') return;
    }
  }

 private:
  bool Have(uint64_t n) {
    if (!ok_ || pos_ > data_.size() || n > data_.size() - pos_) ok_ = false;
    return ok_;
  }

  std::string_view data_;
  uint64_t pos_;
  bool le_;
  bool ok_ = true;
  bool leb_too_big_ = false;
};

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_DWARF_READER_H_
