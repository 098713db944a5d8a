// ProbeElf: the symbolizer's loading path on in-memory bytes; see probe.h.
#include "symbolizer/probe.h"

#include <algorithm>

#include "symbolizer/dwarf_frames.h"
#include "symbolizer/elf_image.h"
#include "symbolizer/image_functions.h"

namespace hwt::symbolizer {

absl::Status ProbeElf(absl::Span<const uint8_t> bytes, bool with_dwarf) {
  auto image = ElfImage::FromBytes(bytes, "<memory>");
  if (!image.ok()) return image.status();
  const ImageFunctions functions =
      BuildImageFunctions(**image, nullptr, false, /*demangle=*/true);
  const auto& all = functions.table.functions();
  for (const FunctionSymbol& f : all) {
    if (functions.table.Find(f.start) == nullptr) {
      return absl::InternalError("function table lost a function start");
    }
  }
  if (with_dwarf && (*image)->has_debug_info()) {
    DwarfFrames dwarf(**image);
    const size_t n = std::min<size_t>(all.size(), 64);
    for (size_t i = 0; i < n; ++i) {
      dwarf.InlineFrames(all[i].start, /*line_info=*/true, /*demangle=*/true);
      dwarf.LineAt(all[i].start + all[i].size / 2);
    }
  }
  return absl::OkStatus();
}

}  // namespace hwt::symbolizer
