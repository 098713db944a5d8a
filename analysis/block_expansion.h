// The post-pass that turns unique blocks into instructions: each block's
// code is read from its image file (through the region's file offset) and
// decoded once, giving exact per-instruction execution counts and, for every
// conditional branch, how often it was taken and not taken (libipt blocks
// run through not-taken branches, so these are only visible here). Work is
// per unique block, never per executed instruction.
#ifndef HWT_ANALYSIS_BLOCK_EXPANSION_H_
#define HWT_ANALYSIS_BLOCK_EXPANSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/profile.h"
#include "capture/address_space.h"
#include "decoders/memory_image.h"

namespace hwt::analysis {

// Where code bytes come from.
class CodeReader {
 public:
  virtual ~CodeReader() = default;
  // Up to `size` bytes at ELF address `vaddr` of the image mapped by
  // `region` (index into the timeline's regions()); fewer at the end of the
  // mapped file bytes. The span stays valid until the reader is destroyed.
  virtual absl::StatusOr<absl::Span<const uint8_t>> Read(uint32_t region,
                                                         uint64_t vaddr,
                                                         size_t size) = 0;
  // The code of `block` (from its first instruction, up to `size` bytes).
  // By default Read() of the block's region; readers that keep code per
  // image rather than per region (a saved profile's code bytes) override
  // this.
  virtual absl::StatusOr<absl::Span<const uint8_t>> ReadBlock(
      const BlockStats& block, size_t size);
};

// Reads code through the memory model's region files (decoders/
// memory_image.h): each image file mapped once, in `files` when the caller
// shares its cache with the decoders (a fresh cache when null).
class ImageCodeReader : public CodeReader {
 public:
  explicit ImageCodeReader(const capture::AddressSpaceTimeline& timeline,
                           std::shared_ptr<ImageFileCache> files = nullptr);
  absl::StatusOr<absl::Span<const uint8_t>> Read(uint32_t region,
                                                 uint64_t vaddr,
                                                 size_t size) override;

 private:
  const capture::AddressSpaceTimeline& timeline_;
  std::shared_ptr<ImageFileCache> files_;
};

struct InstructionStats {
  uint32_t image = kNoImage;
  uint64_t vaddr = 0;
  uint8_t length = 0;
  bool conditional = false;  // a conditional branch
  uint64_t count = 0;        // executions
  uint64_t taken = 0;        // conditional branches only
  uint64_t not_taken = 0;
};

struct BlockExpansion {
  // Block b's instructions are insn_vaddrs[block_begin[b] ..
  // block_begin[b + 1]) (an empty range for a block that failed).
  std::vector<uint32_t> block_begin;
  std::vector<uint64_t> insn_vaddrs;
  std::vector<uint8_t> insn_lengths;
  // Unique instructions, sorted by (image, vaddr).
  std::vector<InstructionStats> instructions;
  uint64_t failed_blocks = 0;
  std::vector<std::string> errors;  // the first kMaxErrors problems

  static constexpr size_t kMaxErrors = 100;

  absl::Span<const uint64_t> BlockInstructions(uint32_t block) const {
    return absl::Span<const uint64_t>(insn_vaddrs)
        .subspan(block_begin[block],
                 block_begin[block + 1] - block_begin[block]);
  }
  // The stats of (image, vaddr), or null.
  const InstructionStats* Find(uint32_t image, uint64_t vaddr) const;
};

// Expands every block of `profile`. A block whose code cannot be read or
// decoded, or whose decoding does not end at its last instruction, is
// counted in failed_blocks and described in errors; it never aborts the
// pass. x86 blocks are decoded with decoders/x86; A64/A32 instructions are 4
// bytes and T32 2 or 4, without branch classes (no Arm decoder yet).
BlockExpansion ExpandBlocks(const Profile& profile, CodeReader& reader);

struct AddressCount {
  uint32_t image = kNoImage;
  uint64_t vaddr = 0;
  uint64_t count = 0;
  friend bool operator==(const AddressCount&, const AddressCount&) = default;
};

// Per-address instruction counts of one call-tree node (from its blocks),
// sorted by (image, vaddr): what report/ splits by inline frames. Blocks
// that failed to expand are left out.
std::vector<AddressCount> NodeInstructionCounts(
    const Profile& profile, const CallTree& tree, uint32_t node,
    const BlockExpansion& expansion);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_BLOCK_EXPANSION_H_
