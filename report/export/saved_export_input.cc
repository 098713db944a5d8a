// SavedExportInput: the export input of a saved profile.
#include "report/export/saved_export_input.h"

#include "absl/strings/str_format.h"

namespace hwt::report {

absl::Status CheckExportable(const analysis::SavedProfile& saved) {
  if (saved.format_minor >= 1) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "the profile is of format %d.%d, which does not keep the linkage names "
      "and function start lines the exports need (1.1 does); save it again "
      "from its capture with this hwt",
      analysis::kProfileMajorVersion, saved.format_minor));
}

SavedExportInput::SavedExportInput(const analysis::SavedProfile& saved,
                                   const analysis::BlockExpansion& expansion,
                                   ProfileSymbols& symbols)
    : saved_(saved), expansion_(expansion), symbols_(symbols) {
  for (const analysis::SavedImage& image : saved.images) {
    ExportImage out;
    out.path = image.path;
    out.build_id = image.build_id;
    out.kernel = image.kernel;
    out.is_elf = image.is_elf;
    for (const analysis::ImageSegment& s : image.segments) {
      // The profile does not keep a segment's alignment; no exporter uses
      // it (llvm-profgen assumes 4 KiB pages whatever the ELF says).
      out.segments.push_back(
          {s.vaddr, s.memsz, s.file_offset, s.filesz, s.flags, 0});
    }
    images_.push_back(std::move(out));
  }
}

const analysis::SavedAddress* SavedExportInput::AddressAt(
    uint32_t image, uint64_t vaddr) const {
  if (image >= saved_.images.size()) return nullptr;
  return saved_.images[image].AddressAt(vaddr);
}

std::optional<ExportFunction> SavedExportInput::Function(uint32_t image,
                                                         uint64_t start) {
  if (image >= saved_.images.size()) return std::nullopt;
  const analysis::SavedFunction* f = saved_.images[image].FunctionAt(start);
  // A function the symbol table did not name is saved under a made-up name
  // with no symbol-table name: as for a capture, there is no symbol.
  if (f == nullptr || f->raw_name.empty()) return std::nullopt;
  ExportFunction out;
  out.name = f->name;
  out.linkage_name = f->raw_name;
  out.start = f->start;
  out.size = f->size;
  if (const analysis::SavedAddress* a = AddressAt(image, start);
      a != nullptr && !a->frames.empty()) {
    out.start_line = a->frames.back().start_line;
    out.file = a->frames.back().file;
  }
  return out;
}

std::vector<std::vector<ExportFrame>> SavedExportInput::SourceFrames(
    absl::Span<const CodeAddress> addresses) {
  std::vector<std::vector<ExportFrame>> out(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    const analysis::SavedAddress* a =
        AddressAt(addresses[i].image, addresses[i].vaddr);
    if (a == nullptr) continue;
    for (const analysis::SavedSourceFrame& f : a->frames) {
      ExportFrame frame;
      frame.function = f.function;
      frame.linkage_name = f.linkage_name;
      frame.file = f.file;
      frame.line = f.line;
      frame.discriminator = f.discriminator;
      frame.start_line = f.start_line;
      frame.inlined = f.inlined;
      out[i].push_back(std::move(frame));
    }
  }
  return out;
}

}  // namespace hwt::report
