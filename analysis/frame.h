// Frame identity for call stacks and profiles, without names: a frame is a
// function of an image (by its ELF start address), code no symbol covers (by
// the address the frame was entered at), an address outside every image, or a
// trace gap. report/ turns keys into names by the rules of
// docs/call-stacks.md; analysis/ never needs a name.
#ifndef HWT_ANALYSIS_FRAME_H_
#define HWT_ANALYSIS_FRAME_H_

#include <compare>
#include <cstdint>
#include <string>
#include <utility>

namespace hwt::analysis {

// Image index of addresses that lie in no image.
inline constexpr uint32_t kNoImage = 0xffffffffu;

enum class FrameKind : uint8_t {
  kFunction,     // a symbol (or PLT entry) of `image` starting at `start`
  kUnknownCode,  // code of `image` no symbol covers, entered at `start`
  kUnknown,      // outside every image: "[unknown]"
  kGap,          // the "[gap]" leaf that ends a stack cut by a trace gap
};

struct FrameKey {
  FrameKind kind = FrameKind::kUnknown;
  uint32_t image = kNoImage;  // kFunction, kUnknownCode
  uint64_t start = 0;         // ELF vaddr: symbol start, or entry address

  friend bool operator==(const FrameKey&, const FrameKey&) = default;
  friend auto operator<=>(const FrameKey&, const FrameKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const FrameKey& k) {
    return H::combine(std::move(h), k.kind, k.image, k.start);
  }

  static FrameKey Gap() { return {FrameKind::kGap, kNoImage, 0}; }
};

// The function an address lies in, for same-function tests (tail calls, loop
// back edges). All code of one image that no symbol covers is one function
// (kUnknownCode, start = end = 0), all addresses outside images another
// (kUnknown).
struct FunctionId {
  FrameKind kind = FrameKind::kUnknown;
  uint32_t image = kNoImage;
  uint64_t start = 0;
  uint64_t end = 0;

  friend bool operator==(const FunctionId&, const FunctionId&) = default;
  friend auto operator<=>(const FunctionId&, const FunctionId&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const FunctionId& f) {
    return H::combine(std::move(h), f.kind, f.image, f.start, f.end);
  }
};

// The key of a frame of function `fn` entered at `entry_vaddr`.
inline FrameKey FrameKeyFor(const FunctionId& fn, uint64_t entry_vaddr) {
  switch (fn.kind) {
    case FrameKind::kFunction:
      return {FrameKind::kFunction, fn.image, fn.start};
    case FrameKind::kUnknownCode:
      return {FrameKind::kUnknownCode, fn.image, entry_vaddr};
    default:
      return {FrameKind::kUnknown, kNoImage, 0};
  }
}

// For tests and debugging: "fn 0:0x401000", "code 1:0x2000", "[unknown]",
// "[gap]".
std::string DescribeFrameKey(const FrameKey& key);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_FRAME_H_
