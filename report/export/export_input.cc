// LiveExportInput: the export input of a capture decoded in this run.
#include "report/export/export_input.h"

#include <algorithm>
#include <utility>

#include "capture/elf_file.h"

namespace hwt::report {
namespace {

constexpr uint32_t kPtLoad = 1;

std::vector<ExportSegment> LoadSegments(const capture::Image& image) {
  std::vector<ExportSegment> out;
  if (!image.is_elf || image.file.empty()) return out;
  auto elf = capture::ReadElfFile(image.file);
  if (!elf.ok()) return out;  // the symbolizer already warned about it
  for (const capture::ElfSegment& s : elf->segments) {
    if (s.type != kPtLoad) continue;
    out.push_back({s.vaddr, s.memsz, s.offset, s.filesz, s.flags, s.align});
  }
  std::sort(out.begin(), out.end(),
            [](const ExportSegment& a, const ExportSegment& b) {
              return a.vaddr < b.vaddr;
            });
  return out;
}

ExportFrame ToExportFrame(const symbolizer::Frame& f) {
  ExportFrame out;
  out.function = f.function;
  out.linkage_name = f.linkage_name;
  out.file = f.file;
  out.line = f.line;
  out.discriminator = f.discriminator;
  out.start_line = f.start_line;
  out.inlined = f.inlined;
  return out;
}

}  // namespace

LiveExportInput::LiveExportInput(const analysis::Profile& profile,
                                 const analysis::BlockExpansion& expansion,
                                 const capture::AddressSpaceTimeline& timeline,
                                 symbolizer::Symbolizer& symbolizer,
                                 ProfileSymbols& symbols)
    : profile_(profile),
      expansion_(expansion),
      symbolizer_(symbolizer),
      symbols_(symbols) {
  for (const capture::Image& image : timeline.images()) {
    ExportImage out;
    out.path = image.recorded_path;
    out.build_id = image.build_id;
    out.kernel = image.kernel;
    out.is_elf = image.is_elf;
    out.segments = LoadSegments(image);
    if (out.build_id.empty()) {
      if (const symbolizer::ImageInfo* info =
              symbolizer.GetImageInfo(static_cast<uint32_t>(images_.size()))) {
        out.build_id = info->build_id;
      }
    }
    images_.push_back(std::move(out));
  }
}

std::optional<ExportFunction> LiveExportInput::Function(uint32_t image,
                                                        uint64_t start) {
  const symbolizer::FunctionSymbol* symbol =
      symbolizer_.FunctionFor(image, start);
  if (symbol == nullptr || symbol->start != start) return std::nullopt;
  ExportFunction out;
  out.name = symbol->name;
  out.linkage_name = symbol->raw_name;
  out.start = symbol->start;
  out.size = symbol->size;
  const std::vector<symbolizer::Frame>& frames =
      symbolizer_.Symbolize(image, start);
  if (!frames.empty()) {
    out.start_line = frames.back().start_line;
    out.file = frames.back().file;
  }
  return out;
}

std::vector<std::vector<ExportFrame>> LiveExportInput::SourceFrames(
    absl::Span<const CodeAddress> addresses) {
  std::vector<symbolizer::ImageAddress> query;
  query.reserve(addresses.size());
  for (const CodeAddress& a : addresses) query.push_back({a.image, a.vaddr});
  const std::vector<const std::vector<symbolizer::Frame>*> found =
      symbolizer_.SymbolizeBatch(query);
  std::vector<std::vector<ExportFrame>> out(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    for (const symbolizer::Frame& f : *found[i]) {
      out[i].push_back(ToExportFrame(f));
    }
    // The function frame is named by the symbol table; keep its linkage
    // name from there too.
    if (!out[i].empty()) {
      const symbolizer::FunctionSymbol* symbol =
          symbolizer_.FunctionFor(addresses[i].image, addresses[i].vaddr);
      if (symbol != nullptr) out[i].back().linkage_name = symbol->raw_name;
    }
  }
  return out;
}

}  // namespace hwt::report
