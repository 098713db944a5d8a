// The "symbolized profile" layer every renderer shares: frames of a profile
// named once per unique frame key (and inline frames once per unique
// address), each with its image and a category for colouring (user code,
// libc, ld.so, other libraries, kernel, [unknown], [gap]); and the named
// call tree the flame graph, speedscope and call-graph renderers draw, with
// DWARF inline frames expanded below their function and a choice of weight
// (instructions or time).
#ifndef HWT_REPORT_NAMING_SYMBOLIZED_PROFILE_H_
#define HWT_REPORT_NAMING_SYMBOLIZED_PROFILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/block_expansion.h"
#include "analysis/frame.h"
#include "analysis/profile.h"
#include "report/naming/profile_symbols.h"

namespace hwt::report {

enum class FrameCategory : uint8_t {
  kUser,     // the program's own image(s)
  kLibc,     // the C library
  kLoader,   // the dynamic linker
  kLibrary,  // other shared objects (and the vDSO)
  kKernel,   // kernel images
  kUnknown,  // [unknown]: outside every image
  kGap,      // [gap]
};
inline constexpr int kFrameCategoryCount = 7;
// "user", "libc", "ld.so", "library", "kernel", "unknown", "gap".
std::string_view FrameCategoryName(FrameCategory category);
// By the image's base name: ld-*.so* / ld.so / ld-elf.so -> loader,
// libc.so* / libc-*.so -> libc, other *.so* and [vdso] -> library.
FrameCategory CategoryOfImage(std::string_view path, bool kernel);

struct NamedFrame {
  std::string name;
  std::string image;  // base name; empty for [unknown] and [gap]
  FrameCategory category = FrameCategory::kUnknown;
  bool inlined = false;
  // Where the function's first instruction (an inline frame: its code) is
  // in the source; empty/0 when unknown.
  std::string file;
  uint32_t line = 0;
};

// Frames interned by (name, image, inlined): equal names of one image are
// one frame.
class FrameTable {
 public:
  uint32_t Intern(NamedFrame frame);
  const NamedFrame& operator[](uint32_t id) const { return frames_[id]; }
  size_t size() const { return frames_.size(); }
  const std::vector<NamedFrame>& frames() const { return frames_; }

 private:
  std::vector<NamedFrame> frames_;
  absl::flat_hash_map<std::tuple<std::string, std::string, bool>, uint32_t>
      index_;
};

// Names a profile's frames and addresses, each once.
class ProfileNames {
 public:
  // `source_lines`: give function frames their file:line (speedscope).
  explicit ProfileNames(ProfileSymbols& symbols, bool source_lines = false)
      : symbols_(symbols), source_lines_(source_lines) {}

  // The frame of a key (docs/call-stacks.md names), interned.
  uint32_t Frame(const analysis::FrameKey& key);
  std::string Name(const analysis::FrameKey& key) {
    return frames_[Frame(key)].name;
  }
  // Base name of an image's path.
  std::string ImageName(uint32_t image);
  FrameCategory ImageCategory(uint32_t image);

  // Inline frames at each address, outermost first, the real function left
  // out (interned ids); looked up in one batch for all new addresses.
  void PrefetchInlineFrames(absl::Span<const CodeAddress> addresses);
  const std::vector<uint32_t>& InlineFrames(uint32_t image, uint64_t vaddr);
  // file:line of the innermost frame at an address ("" when unknown).
  std::string SourceLine(uint32_t image, uint64_t vaddr);

  // "fib+0x12", "[app+0x401038]+0x4" for code no symbol covers (fn of kind
  // kUnknownCode), or "0x7fff0000" outside every image.
  std::string AddressName(uint32_t image, uint64_t vaddr,
                          const analysis::FunctionId& fn);

  FrameTable& frames() { return frames_; }
  const FrameTable& frames() const { return frames_; }
  ProfileSymbols& symbols() { return symbols_; }

 private:
  struct AddressInfo {
    std::vector<uint32_t> inline_frames;
    std::string source_line;
  };
  const AddressInfo& Address(uint32_t image, uint64_t vaddr);

  ProfileSymbols& symbols_;
  bool source_lines_;
  FrameTable frames_;
  absl::flat_hash_map<analysis::FrameKey, uint32_t> by_key_;
  absl::flat_hash_map<uint32_t, std::pair<std::string, FrameCategory>> images_;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, AddressInfo> addresses_;
};

enum class Weight { kInstructions, kTime };

// A call tree of named frames: nodes[0] is the root (no frame), nodes in
// preorder, siblings merged by frame and ordered by name, so a subtree is
// [i, nodes[i].end).
struct NamedTree {
  static constexpr uint32_t kNoFrame = 0xffffffffu;
  struct Node {
    uint32_t frame = kNoFrame;  // into the ProfileNames' FrameTable
    uint32_t parent = 0;
    uint32_t end = 0;
    uint32_t depth = 0;
    uint64_t calls = 0;  // near calls that entered it
    uint64_t gaps = 0;   // [gap] leaves: stacks cut here
    uint64_t self = 0;
    uint64_t total = 0;
  };
  std::vector<Node> nodes;
  uint64_t total() const { return nodes.empty() ? 0 : nodes[0].total; }
};

struct NamedTreeOptions {
  Weight weight = Weight::kInstructions;
  // Split each node's own instructions by the DWARF inline frames of their
  // addresses (instruction weight only; needs `profile` and `expansion`).
  bool inline_frames = false;
  const analysis::Profile* profile = nullptr;
  const analysis::BlockExpansion* expansion = nullptr;
  // Keep [gap] leaves (weight 0, with their gap counts).
  bool keep_gaps = true;
};

NamedTree BuildNamedTree(const analysis::CallTree& tree, ProfileNames& names,
                         const NamedTreeOptions& options);

// A named tree from stacks of frame names (root first) and their weights;
// frames are interned with `category_of(root frame name)` as their category.
NamedTree NamedTreeFromStacks(
    const std::vector<std::pair<std::vector<std::string>, uint64_t>>& stacks,
    FrameTable& frames,
    const std::function<FrameCategory(std::string_view root)>& category_of);

// A named tree from folded-stack text ("a;b;c 12"), as NamedTreeFromStacks
// (for folded files from elsewhere; our own outputs build their trees from
// their models). Lines that do not parse are skipped and counted in
// `*bad_lines`.
NamedTree NamedTreeFromFolded(
    std::string_view folded, FrameTable& frames,
    const std::function<FrameCategory(std::string_view root)>& category_of,
    size_t* bad_lines = nullptr);

// The stack of a node, root first, as frame ids.
std::vector<uint32_t> NamedStack(const NamedTree& tree, uint32_t node);

}  // namespace hwt::report

#endif  // HWT_REPORT_NAMING_SYMBOLIZED_PROFILE_H_
