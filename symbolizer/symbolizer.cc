// The Symbolizer implementation: images loaded once per file, a function
// table per file for the fast path, DWARF opened on first full lookup, and a
// cache of symbolized frames per unique (image, vaddr).
#include "symbolizer/symbolizer.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"
#include "symbolizer/debug_file_finder.h"
#include "symbolizer/dwarf_frames.h"
#include "symbolizer/elf_image.h"
#include "symbolizer/image_functions.h"

namespace hwt::symbolizer {
namespace {

// One image file, shared by every image id that maps it.
struct LoadedFile {
  std::unique_ptr<ElfImage> elf;
  std::unique_ptr<ElfImage> debug;  // separate debug file, may be null
  std::string debug_path;
  ImageFunctions functions;
  const ElfImage* dwarf_source = nullptr;  // elf, debug or null
  std::unique_ptr<DwarfFrames> dwarf;      // opened on first use
};

struct ImageSlot {
  mutable ImageInfo info;            // DWARF error counts refreshed on reading
  std::shared_ptr<LoadedFile> file;  // null when missing
};

struct AddressKey {
  uint32_t image;
  uint64_t vaddr;
  bool operator==(const AddressKey& o) const {
    return image == o.image && vaddr == o.vaddr;
  }
  template <typename H>
  friend H AbslHashValue(H h, const AddressKey& k) {
    return H::combine(std::move(h), k.image, k.vaddr);
  }
};

class SymbolizerImpl : public Symbolizer {
 public:
  explicit SymbolizerImpl(SymbolizerOptions options)
      : options_(std::move(options)) {}

  absl::Status AddImage(uint32_t image_id, const std::string& file,
                        const std::string& display_path) override;
  const ImageInfo* GetImageInfo(uint32_t image_id) const override;
  const FunctionSymbol* FunctionFor(uint32_t image_id,
                                    uint64_t vaddr) const override;
  bool HasFunctions(uint32_t image_id) const override;
  const std::vector<Frame>& Symbolize(uint32_t image_id,
                                      uint64_t vaddr) override;
  std::vector<const std::vector<Frame>*> SymbolizeBatch(
      absl::Span<const ImageAddress> addresses) override;
  absl::StatusOr<std::vector<FunctionMatch>> FindFunctions(
      const std::string& pattern, NameMatch match) const override;
  absl::StatusOr<std::vector<uint8_t>> ReadCode(uint32_t image_id,
                                                uint64_t vaddr,
                                                uint64_t size) const override;

 private:
  absl::StatusOr<std::shared_ptr<LoadedFile>> Load(
      const std::string& file, const std::string& display_path);
  std::vector<Frame> Compute(uint32_t image_id, uint64_t vaddr);
  DwarfFrames* Dwarf(LoadedFile& file);
  bool WantDwarf() const {
    return options_.inline_frames || options_.line_info;
  }

  const SymbolizerOptions options_;
  absl::flat_hash_map<uint32_t, ImageSlot> images_;
  absl::flat_hash_map<std::string, std::shared_ptr<LoadedFile>> files_;
  absl::node_hash_map<AddressKey, std::vector<Frame>> cache_;
};

absl::StatusOr<std::shared_ptr<LoadedFile>> SymbolizerImpl::Load(
    const std::string& file, const std::string& display_path) {
  auto it = files_.find(file);
  if (it != files_.end()) return it->second;
  auto elf = ElfImage::Open(file);
  if (!elf.ok()) return elf.status();
  auto loaded = std::make_shared<LoadedFile>();
  loaded->elf = std::move(*elf);
  const ElfImage& image = *loaded->elf;
  // A separate debug file adds nothing when the image has both a .symtab and
  // DWARF, or when neither its symbols nor its DWARF would be used.
  if (!(image.has_symtab() && image.has_debug_info()) &&
      (options_.debug_file_symbols || WantDwarf())) {
    DebugFileQuery query{file, display_path, image.build_id(),
                         image.debug_link()};
    auto found = FindDebugFile(query, {options_.sysroot, options_.debug_dirs});
    if (found) {
      loaded->debug_path = std::move(found->path);
      loaded->debug = std::move(found->image);
    }
  }
  loaded->functions =
      BuildImageFunctions(image, loaded->debug.get(),
                          options_.debug_file_symbols, options_.demangle);
  if (loaded->debug && loaded->debug->has_debug_info()) {
    loaded->dwarf_source = loaded->debug.get();
  } else if (image.has_debug_info()) {
    loaded->dwarf_source = &image;
  }
  files_.emplace(file, loaded);
  return loaded;
}

absl::Status SymbolizerImpl::AddImage(uint32_t image_id,
                                      const std::string& file,
                                      const std::string& display_path) {
  if (image_id == kNoImage) {
    return absl::InvalidArgumentError("image id 0xffffffff is reserved");
  }
  if (images_.contains(image_id)) {
    return absl::AlreadyExistsError(absl::StrFormat(
        "image %d (%s) was already added", image_id, display_path));
  }
  ImageSlot& slot = images_[image_id];
  slot.info.display_path = display_path.empty() ? file : display_path;
  slot.info.file = file;
  if (file.empty()) {
    slot.info.missing_reason = "no file for this image";
    return absl::OkStatus();
  }
  auto loaded = Load(file, slot.info.display_path);
  if (!loaded.ok()) {
    slot.info.missing_reason = std::string(loaded.status().message());
    // A file that is not there is an expected kind of missing image; a file
    // that is there but unusable is an error the caller should report.
    if (absl::IsNotFound(loaded.status())) return absl::OkStatus();
    return loaded.status();
  }
  slot.file = *std::move(loaded);
  const LoadedFile& f = *slot.file;
  ImageInfo& info = slot.info;
  info.missing = false;
  info.arch = f.elf->arch();
  info.machine = f.elf->machine();
  info.build_id = f.elf->build_id();
  info.debug_file = f.debug_path;
  info.symbol_source = f.functions.source;
  info.function_count = f.functions.symbol_count;
  info.plt_count = f.functions.plt_count;
  info.has_dwarf = f.dwarf_source != nullptr;
  return absl::OkStatus();
}

const ImageInfo* SymbolizerImpl::GetImageInfo(uint32_t image_id) const {
  auto it = images_.find(image_id);
  if (it == images_.end()) return nullptr;
  const ImageSlot& slot = it->second;
  if (slot.file != nullptr && slot.file->dwarf != nullptr) {
    slot.info.dwarf_errors = slot.file->dwarf->error_count();
    slot.info.first_dwarf_error = slot.file->dwarf->first_error();
  }
  return &slot.info;
}

const FunctionSymbol* SymbolizerImpl::FunctionFor(uint32_t image_id,
                                                  uint64_t vaddr) const {
  auto it = images_.find(image_id);
  if (it == images_.end() || it->second.file == nullptr) return nullptr;
  return it->second.file->functions.table.Find(vaddr);
}

bool SymbolizerImpl::HasFunctions(uint32_t image_id) const {
  auto it = images_.find(image_id);
  return it != images_.end() && it->second.file != nullptr &&
         !it->second.file->functions.table.functions().empty();
}

DwarfFrames* SymbolizerImpl::Dwarf(LoadedFile& file) {
  if (file.dwarf_source == nullptr) return nullptr;
  if (!file.dwarf)
    file.dwarf = std::make_unique<DwarfFrames>(*file.dwarf_source);
  return file.dwarf.get();
}

std::vector<Frame> SymbolizerImpl::Compute(uint32_t image_id, uint64_t vaddr) {
  auto it = images_.find(image_id);
  if (it == images_.end()) return {Frame{"[unknown]"}};
  ImageSlot& slot = it->second;
  const FunctionSymbol* function = FunctionFor(image_id, vaddr);
  Frame outer;
  outer.function = function != nullptr
                       ? function->name
                       : UnknownFunctionName(slot.info.display_path, vaddr);
  DwarfFrames* dwarf =
      slot.file != nullptr && WantDwarf() ? Dwarf(*slot.file) : nullptr;
  if (dwarf == nullptr) return {std::move(outer)};
  if (!options_.inline_frames) {
    if (std::optional<Frame> line = dwarf->LineAt(vaddr)) {
      outer.file = std::move(line->file);
      outer.line = line->line;
      outer.discriminator = line->discriminator;
    }
    return {std::move(outer)};
  }
  std::vector<Frame> frames =
      dwarf->InlineFrames(vaddr, options_.line_info, options_.demangle);
  if (frames.empty()) return {std::move(outer)};
  // Names agree between the fast and the full path: the real function is
  // named by the symbol table, not by DWARF.
  frames.back().function = std::move(outer.function);
  return frames;
}

const std::vector<Frame>& SymbolizerImpl::Symbolize(uint32_t image_id,
                                                    uint64_t vaddr) {
  if (image_id == kNoImage) vaddr = 0;  // one "[unknown]" entry
  const AddressKey key{image_id, vaddr};
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(key, Compute(image_id, vaddr)).first->second;
}

std::vector<const std::vector<Frame>*> SymbolizerImpl::SymbolizeBatch(
    absl::Span<const ImageAddress> addresses) {
  std::vector<size_t> order(addresses.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(addresses[a].image, addresses[a].vaddr) <
           std::tie(addresses[b].image, addresses[b].vaddr);
  });
  std::vector<const std::vector<Frame>*> out(addresses.size());
  for (size_t i : order) {
    out[i] = &Symbolize(addresses[i].image, addresses[i].vaddr);
  }
  return out;
}

absl::StatusOr<std::vector<FunctionMatch>> SymbolizerImpl::FindFunctions(
    const std::string& pattern, NameMatch match) const {
  std::optional<llvm::Regex> regex;
  if (match == NameMatch::kRegex) {
    regex.emplace(llvm::StringRef(pattern), llvm::Regex::NoFlags);
    std::string error;
    if (!regex->isValid(error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid regex '", pattern, "': ", error));
    }
  }
  auto matches = [&](const FunctionSymbol& f) {
    if (regex) return regex->match(f.name) || regex->match(f.raw_name);
    return f.name == pattern || f.raw_name == pattern;
  };
  std::vector<FunctionMatch> out;
  for (const auto& [id, slot] : images_) {
    if (slot.file == nullptr) continue;
    for (const FunctionSymbol& f : slot.file->functions.table.functions()) {
      if (matches(f)) out.push_back({id, &f});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const FunctionMatch& a, const FunctionMatch& b) {
              return std::tie(a.image_id, a.symbol->start, a.symbol->raw_name) <
                     std::tie(b.image_id, b.symbol->start, b.symbol->raw_name);
            });
  return out;
}

absl::StatusOr<std::vector<uint8_t>> SymbolizerImpl::ReadCode(
    uint32_t image_id, uint64_t vaddr, uint64_t size) const {
  auto it = images_.find(image_id);
  if (it == images_.end()) {
    return absl::NotFoundError(absl::StrFormat("no image %d", image_id));
  }
  if (it->second.file == nullptr) {
    return absl::NotFoundError(absl::StrFormat(
        "image %d (%s) is missing: %s", image_id, it->second.info.display_path,
        it->second.info.missing_reason));
  }
  return it->second.file->elf->Read(vaddr, size);
}

}  // namespace

std::unique_ptr<Symbolizer> Symbolizer::Create(SymbolizerOptions options) {
  return std::make_unique<SymbolizerImpl>(std::move(options));
}

std::string UnknownFunctionName(const std::string& display_path,
                                uint64_t vaddr) {
  const size_t slash = display_path.find_last_of('/');
  std::string base = slash == std::string::npos
                         ? display_path
                         : display_path.substr(slash + 1);
  if (base.empty()) base = display_path;
  return absl::StrFormat("[%s+0x%x]", base, vaddr);
}

}  // namespace hwt::symbolizer
