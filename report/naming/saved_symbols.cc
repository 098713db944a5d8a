// Names, code and totals of a saved profile; see saved_symbols.h.
#include "report/naming/saved_symbols.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capture/elf_file.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

std::string SavedProfileSymbols::FunctionName(uint32_t image, uint64_t start) {
  if (image < profile_.images.size()) {
    if (const analysis::SavedFunction* f =
            profile_.images[image].FunctionAt(start)) {
      return demangle_ || f->raw_name.empty() ? f->name : f->raw_name;
    }
  }
  return symbolizer::UnknownFunctionName(ImagePath(image), start);
}

std::string SavedProfileSymbols::ImagePath(uint32_t image) {
  return image < profile_.images.size() ? profile_.images[image].path
                                        : absl::StrCat("image", image);
}

bool SavedProfileSymbols::IsKernelImage(uint32_t image) {
  return image < profile_.images.size() && profile_.images[image].kernel;
}

std::vector<std::vector<SourceFrame>> SavedProfileSymbols::SourceFrames(
    absl::Span<const CodeAddress> addresses) {
  std::vector<std::vector<SourceFrame>> out(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    const CodeAddress& a = addresses[i];
    if (a.image >= profile_.images.size()) continue;
    const analysis::SavedAddress* saved =
        profile_.images[a.image].AddressAt(a.vaddr);
    if (saved == nullptr || saved->frames.empty()) continue;
    if (!inline_frames_) {
      // As the symbolizer without inline frames: the function, at the
      // innermost line.
      const analysis::SavedSourceFrame& inner = saved->frames.front();
      out[i].push_back(SourceFrame{saved->frames.back().function, inner.file,
                                   inner.line, false});
      continue;
    }
    for (const analysis::SavedSourceFrame& f : saved->frames) {
      out[i].push_back(SourceFrame{f.function, f.file, f.line, f.inlined});
    }
  }
  return out;
}

absl::StatusOr<absl::Span<const uint8_t>> SavedCodeReader::Read(uint32_t region,
                                                                uint64_t vaddr,
                                                                size_t size) {
  return absl::NotFoundError(
      "a saved profile keeps code by image, not by region");
}

absl::StatusOr<absl::Span<const uint8_t>> SavedCodeReader::ReadBlock(
    const analysis::BlockStats& block, size_t size) {
  if (block.image >= profile_.images.size()) {
    return absl::NotFoundError("outside every image");
  }
  const std::string_view code =
      profile_.images[block.image].CodeAt(block.vaddr, size);
  if (code.empty()) {
    return absl::NotFoundError(
        absl::StrFormat("the profile has no code bytes at 0x%x of %s",
                        block.vaddr, profile_.images[block.image].path));
  }
  return absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(code.data()), code.size());
}

std::unique_ptr<symbolizer::Symbolizer> SymbolizerForSavedImages(
    const analysis::SavedProfile& profile,
    const symbolizer::SymbolizerOptions& options,
    std::vector<std::string>* missing) {
  auto symbols = symbolizer::Symbolizer::Create(options);
  for (uint32_t i = 0; i < profile.images.size(); ++i) {
    const analysis::SavedImage& image = profile.images[i];
    std::string found;
    if (image.is_elf) {
      for (const std::string& candidate :
           {options.sysroot.empty() ? std::string()
                                    : options.sysroot + image.path,
            image.path}) {
        if (candidate.empty()) continue;
        auto elf = capture::ReadElfFile(candidate);
        if (elf.ok() &&
            (image.build_id.empty() || elf->build_id == image.build_id)) {
          found = candidate;
          break;
        }
      }
    }
    if (found.empty() && missing != nullptr) missing->push_back(image.path);
    // Registered either way (missing: its addresses print [image+0xoff]).
    (void)symbols->AddImage(i, found, image.path);
  }
  return symbols;
}

StreamStats TotalDecodeStats(const analysis::SavedProfile& profile) {
  StreamStats total;
  for (const analysis::CaptureSource& s : profile.sources) {
    total.Merge(s.TotalStats());
  }
  return total;
}

uint64_t SavedTimestampHz(const analysis::SavedProfile& profile) {
  uint64_t hz = 0;
  for (const analysis::CaptureSource& s : profile.sources) {
    if (s.cpu_frequency_hz == 0 || (hz != 0 && hz != s.cpu_frequency_hz)) {
      return 0;
    }
    hz = s.cpu_frequency_hz;
  }
  return hz;
}

}  // namespace hwt::report
