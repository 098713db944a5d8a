// Block -> instruction expansion (see block_expansion.h).
#include "analysis/block_expansion.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "decoders/x86/x86_insn.h"

namespace hwt::analysis {

absl::StatusOr<absl::Span<const uint8_t>> CodeReader::ReadBlock(
    const BlockStats& block, size_t size) {
  if (block.region == kNoRegion) {
    return absl::NotFoundError("outside every image");
  }
  return Read(block.region, block.vaddr, size);
}

ImageCodeReader::ImageCodeReader(const capture::AddressSpaceTimeline& timeline,
                                 std::shared_ptr<ImageFileCache> files)
    : timeline_(timeline),
      files_(files ? std::move(files) : std::make_shared<ImageFileCache>()) {}

absl::StatusOr<absl::Span<const uint8_t>> ImageCodeReader::Read(
    uint32_t region_index, uint64_t vaddr, size_t size) {
  HWT_ASSIGN_OR_RETURN(absl::Span<const uint8_t> bytes,
                       RegionFileBytes(timeline_, region_index, *files_));
  const capture::Region& region = timeline_.regions()[region_index];
  const std::string& file = timeline_.images()[region.image].file;
  const uint64_t address = vaddr + region.bias;
  if (address < region.start || address >= region.start + region.file_size) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: 0x%x is not backed by the file", file, vaddr));
  }
  const uint64_t in_region = address - region.start;
  if (in_region >= bytes.size()) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: offset 0x%x of 0x%x is past the end of the file",
                        file, region.file_offset + in_region, vaddr));
  }
  return bytes.subspan(in_region,
                       std::min<uint64_t>(size, bytes.size() - in_region));
}

const InstructionStats* BlockExpansion::Find(uint32_t image,
                                             uint64_t vaddr) const {
  auto it = std::lower_bound(
      instructions.begin(), instructions.end(), std::make_pair(image, vaddr),
      [](const InstructionStats& s, const std::pair<uint32_t, uint64_t>& k) {
        return std::make_pair(s.image, s.vaddr) < k;
      });
  if (it == instructions.end() || it->image != image || it->vaddr != vaddr) {
    return nullptr;
  }
  return &*it;
}

namespace {

constexpr size_t kMaxInsnLength = 15;

struct Decoded {
  uint64_t vaddr;
  uint8_t length;
  bool conditional;
};

class Expander {
 public:
  explicit Expander(CodeReader& reader) : reader_(reader) {}

  // Decodes the block's instructions; an error message on failure.
  std::string Expand(const BlockStats& block, std::vector<Decoded>& out);

 private:
  x86::InsnDecoder& Decoder(x86::Mode mode) {
    auto& d = decoders_[static_cast<int>(mode)];
    if (d == nullptr) d = x86::InsnDecoder::Create(mode);
    return *d;
  }

  CodeReader& reader_;
  std::unique_ptr<x86::InsnDecoder> decoders_[3];
};

std::string Expander::Expand(const BlockStats& block,
                             std::vector<Decoded>& out) {
  out.clear();
  if (block.image == kNoImage) return "outside every image";
  if (block.last_vaddr < block.vaddr) return "last instruction before first";
  const uint64_t span = block.last_vaddr - block.vaddr + kMaxInsnLength;
  absl::StatusOr<absl::Span<const uint8_t>> code =
      reader_.ReadBlock(block, span);
  if (!code.ok()) return std::string(code.status().message());
  const absl::Span<const uint8_t> bytes = *code;
  uint64_t at = 0;
  for (uint32_t i = 0; i < block.ninsn; ++i) {
    if (at >= bytes.size()) return "code ends inside the block";
    const uint64_t vaddr = block.vaddr + at;
    uint8_t length = 0;
    bool conditional = false;
    switch (block.isa) {
      case Isa::kA64:
      case Isa::kA32:
        length = 4;
        break;
      case Isa::kT32:
        // A halfword 0b11101/0b11110/0b11111 xxx... starts a 32-bit one.
        length =
            (bytes.size() - at >= 2 && (bytes[at + 1] >> 3) >= 0x1d) ? 4 : 2;
        break;
      default: {
        // libipt always reports a mode; unknown is taken as 64-bit.
        const x86::Mode mode = block.isa == Isa::kX86_32   ? x86::Mode::k32
                               : block.isa == Isa::kX86_16 ? x86::Mode::k16
                                                           : x86::Mode::k64;
        std::optional<x86::Insn> insn = Decoder(mode).Decode(
            bytes.subspan(
                at, std::min<uint64_t>(kMaxInsnLength, bytes.size() - at)),
            vaddr);
        if (!insn) {
          return absl::StrFormat("no valid instruction at 0x%x", vaddr);
        }
        length = insn->length;
        conditional = insn->cls == x86::InsnClass::kCondJump;
        break;
      }
    }
    if (at + length > bytes.size()) return "code ends inside the block";
    out.push_back({vaddr, length, conditional});
    at += length;
  }
  if (out.back().vaddr != block.last_vaddr) {
    return absl::StrFormat(
        "%u instructions end at 0x%x, not at the last instruction 0x%x",
        block.ninsn, out.back().vaddr, block.last_vaddr);
  }
  return "";
}

}  // namespace

BlockExpansion ExpandBlocks(const Profile& profile, CodeReader& reader) {
  BlockExpansion x;
  Expander expander(reader);
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, InstructionStats> stats;
  std::vector<Decoded> decoded;
  x.block_begin.push_back(0);
  for (size_t b = 0; b < profile.blocks.size(); ++b) {
    const BlockStats& block = profile.blocks[b];
    const std::string error = expander.Expand(block, decoded);
    if (!error.empty()) {
      ++x.failed_blocks;
      if (x.errors.size() < BlockExpansion::kMaxErrors) {
        x.errors.push_back(absl::StrFormat(
            "block #%u (image %d, 0x%x-0x%x, %u instructions): %s", b,
            block.image == kNoImage ? -1 : static_cast<int>(block.image),
            block.vaddr, block.last_vaddr, block.ninsn, error));
      }
      x.block_begin.push_back(static_cast<uint32_t>(x.insn_vaddrs.size()));
      continue;
    }
    for (size_t i = 0; i < decoded.size(); ++i) {
      const Decoded& d = decoded[i];
      x.insn_vaddrs.push_back(d.vaddr);
      x.insn_lengths.push_back(d.length);
      InstructionStats& s = stats[{block.image, d.vaddr}];
      s.image = block.image;
      s.vaddr = d.vaddr;
      s.length = d.length;
      s.conditional = s.conditional || d.conditional;
      s.count += block.count;
      if (i + 1 < decoded.size()) {
        // A conditional branch inside a block fell through.
        if (d.conditional) s.not_taken += block.count;
      } else if (block.end == BranchKind::kCondTaken) {
        s.conditional = true;
        s.taken += block.count;
      } else if (block.end == BranchKind::kCondNotTaken) {
        s.conditional = true;
        s.not_taken += block.count;
      }
    }
    x.block_begin.push_back(static_cast<uint32_t>(x.insn_vaddrs.size()));
  }
  x.instructions.reserve(stats.size());
  for (auto& [key, s] : stats) x.instructions.push_back(s);
  std::sort(x.instructions.begin(), x.instructions.end(),
            [](const InstructionStats& a, const InstructionStats& b) {
              return std::tie(a.image, a.vaddr) < std::tie(b.image, b.vaddr);
            });
  return x;
}

std::vector<AddressCount> NodeInstructionCounts(
    const Profile& profile, const CallTree& tree, uint32_t node,
    const BlockExpansion& expansion) {
  auto first = std::lower_bound(
      tree.node_blocks.begin(), tree.node_blocks.end(), node,
      [](const CallTree::NodeBlock& nb, uint32_t n) { return nb.node < n; });
  std::vector<AddressCount> out;
  for (auto it = first; it != tree.node_blocks.end() && it->node == node;
       ++it) {
    const uint32_t image = profile.blocks[it->block].image;
    for (uint64_t vaddr : expansion.BlockInstructions(it->block)) {
      out.push_back({image, vaddr, it->count});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const AddressCount& a, const AddressCount& b) {
              return std::tie(a.image, a.vaddr) < std::tie(b.image, b.vaddr);
            });
  std::vector<AddressCount> merged;
  for (const AddressCount& a : out) {
    if (!merged.empty() && merged.back().image == a.image &&
        merged.back().vaddr == a.vaddr) {
      merged.back().count += a.count;
    } else {
      merged.push_back(a);
    }
  }
  return merged;
}

}  // namespace hwt::analysis
