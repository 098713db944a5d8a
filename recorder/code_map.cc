// CodeMap: mapping events -> executable segments -> cached instructions; see
// code_map.h.
#include "recorder/code_map.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

constexpr uint64_t kPageOffsetMask = 0xfff;
constexpr size_t kMaxInsnBytes = 15;

}  // namespace

CodeMap::CodeMap(CodeMapOptions options)
    : options_(std::move(options)), decoder_(x86::InsnDecoder::Create()) {}

CodeMap::~CodeMap() = default;

absl::StatusOr<const CodeMap::LoadedFile*> CodeMap::Load(
    const std::string& recorded_path) {
  std::string file = recorded_path;
  auto alias = options_.path_aliases.find(recorded_path);
  if (alias != options_.path_aliases.end()) file = alias->second;
  auto it = files_.find(file);
  if (it != files_.end()) return it->second.get();
  auto mapped = MappedFile::Open(file);
  if (!mapped.ok()) {
    return absl::Status(mapped.status().code(),
                        absl::StrFormat("image %s: %s", recorded_path,
                                        mapped.status().message()));
  }
  auto loaded = std::make_unique<LoadedFile>();
  loaded->mapped = std::move(*mapped);
  HWT_ASSIGN_OR_RETURN(loaded->elf,
                       capture::ParseElf(loaded->mapped.bytes(), file));
  const LoadedFile* result = loaded.get();
  files_.emplace(file, std::move(loaded));
  return result;
}

absl::Status CodeMap::Apply(const MappingEvent& event) {
  switch (event.type) {
    case capture::RecordType::kExecutable: {
      // Load both files before changing anything.
      HWT_ASSIGN_OR_RETURN(const LoadedFile* program, Load(event.path));
      std::string interp = program->elf.interpreter;
      if (event.baseaddr != 0) {
        if (interp.empty()) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: exec event has an interpreter base 0x%x but the program "
              "has no PT_INTERP",
              event.path, event.baseaddr));
        }
        HWT_RETURN_IF_ERROR(Load(interp).status());
      }
      UnmapAll();
      HWT_RETURN_IF_ERROR(MapImage(event.path, event.addr));
      if (event.baseaddr != 0) {
        HWT_RETURN_IF_ERROR(MapImage(interp, event.baseaddr));
      }
      return absl::OkStatus();
    }
    case capture::RecordType::kMmap: {
      HWT_ASSIGN_OR_RETURN(const LoadedFile* file, Load(event.path));
      auto loads = file->elf.ExecutableLoads();
      if (loads.empty()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: mapped as code but has no executable PT_LOAD segment",
            event.path));
      }
      uint64_t bias = event.addr - (loads.front().vaddr & ~kPageOffsetMask);
      return MapImage(event.path, bias);
    }
    case capture::RecordType::kMunmap: {
      if (event.addr == 0) return absl::OkStatus();  // address unknown
      uint64_t start = 0;
      if (const Region* region = FindRegion(event.addr, &start)) {
        UnmapImage(region->image);
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

absl::Status CodeMap::MapImage(const std::string& recorded_path,
                               uint64_t bias) {
  HWT_ASSIGN_OR_RETURN(const LoadedFile* file, Load(recorded_path));
  auto loads = file->elf.ExecutableLoads();
  MappedImage image;
  image.recorded_path = recorded_path;
  image.file = file->mapped.path();
  image.bias = bias;
  uint32_t index = static_cast<uint32_t>(images_.size());
  images_.push_back(image);
  for (const capture::ElfSegment& seg : loads) {
    uint64_t start = seg.vaddr + bias;
    uint64_t end = start + seg.memsz;
    if (end <= start) continue;
    // A new mapping replaces whatever it overlaps (as MAP_FIXED does).
    std::vector<uint32_t> overlapped;
    for (auto it = regions_.begin(); it != regions_.end(); ++it) {
      if (it->first < end && start < it->second.end) {
        overlapped.push_back(it->second.image);
      }
    }
    for (uint32_t victim : overlapped) UnmapImage(victim);
    Region region;
    region.end = end;
    region.image = index;
    uint64_t file_end =
        std::min<uint64_t>(seg.offset + seg.filesz, file->mapped.size());
    if (seg.offset < file_end) {
      region.bytes = file->mapped.data() + seg.offset;
      region.file_size = file_end - seg.offset;
    }
    regions_[start] = region;
  }
  Changed();
  return absl::OkStatus();
}

void CodeMap::UnmapImage(uint32_t image) {
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (it->second.image == image) {
      it = regions_.erase(it);
    } else {
      ++it;
    }
  }
  images_[image].mapped = false;
  Changed();
}

void CodeMap::UnmapAll() {
  regions_.clear();
  for (MappedImage& image : images_) image.mapped = false;
  Changed();
}

void CodeMap::Changed() {
  cache_.clear();
  ++generation_;
}

const CodeMap::Region* CodeMap::FindRegion(uint64_t addr,
                                           uint64_t* start) const {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return nullptr;
  --it;
  if (addr >= it->second.end) return nullptr;
  *start = it->first;
  return &it->second;
}

size_t CodeMap::ReadCode(uint64_t addr, absl::Span<uint8_t> out) {
  uint64_t start = 0;
  const Region* region = FindRegion(addr, &start);
  if (region == nullptr) {
    if (options_.read_memory) return options_.read_memory(addr, out);
    return 0;
  }
  uint64_t offset = addr - start;
  uint64_t available = region->end - addr;
  size_t n = static_cast<size_t>(std::min<uint64_t>(out.size(), available));
  for (size_t i = 0; i < n; ++i) {
    uint64_t at = offset + i;
    out[i] = at < region->file_size ? region->bytes[at] : 0;  // zero fill
  }
  return n;
}

std::optional<x86::Insn> CodeMap::InsnAt(uint64_t ip) {
  auto it = cache_.find(ip);
  if (it != cache_.end()) return it->second;
  uint8_t bytes[kMaxInsnBytes];
  uint64_t start = 0;
  bool from_image = FindRegion(ip, &start) != nullptr;
  size_t n = ReadCode(ip, absl::MakeSpan(bytes, kMaxInsnBytes));
  std::optional<x86::Insn> insn;
  if (n > 0) insn = decoder_->Decode(absl::MakeConstSpan(bytes, n), ip);
  if (from_image) cache_.emplace(ip, insn);
  return insn;
}

std::optional<CodeLocation> CodeMap::Locate(uint64_t addr) const {
  uint64_t start = 0;
  const Region* region = FindRegion(addr, &start);
  if (region == nullptr) return std::nullopt;
  CodeLocation location;
  location.image = region->image;
  location.vaddr = addr - images_[region->image].bias;
  return location;
}

std::string CodeMap::Disassemble(uint64_t ip) {
  uint8_t bytes[kMaxInsnBytes];
  size_t n = ReadCode(ip, absl::MakeSpan(bytes, kMaxInsnBytes));
  if (n == 0) return "(unmapped)";
  return decoder_->Disassemble(absl::MakeConstSpan(bytes, n), ip);
}

}  // namespace hwt::recorder
