// Fuzzes the capture layer's ELF reader (capture/elf_file.h) and what is
// built on it: the input is an image given with --image at two load biases,
// mapped by the address-space timeline, read through the decoders' memory
// model (decoders/memory_image.h) and added to libipt's section cache as the
// PT decoder does. Seeds: fuzz/corpus/elf (small ELF files of several
// classes and machines).
//
// Checks: no crash, no hang; a refusal names the file; accepted segments lie
// inside the file; every region's file bytes lie inside its image and its
// address range does not wrap; reads of mapped code return the file's bytes
// (or zeros beyond them).
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "capture/elf_file.h"
#include "decoders/memory_image.h"
#include "decoders/pt/pt_sections.h"
#include "fuzz/fuzz_support.h"

namespace {

using hwt::fuzz::Fail;

constexpr char kName[] = "fuzz/image.elf";
std::string* g_image = nullptr;
std::string* g_trace = nullptr;

void Initialize() {
  g_image = new std::string(hwt::fuzz::ScratchDir() + "/image.elf");
  g_trace = new std::string(hwt::fuzz::ScratchDir() + "/trace.bin");
  hwt::fuzz::WriteFileOrDie(*g_trace, std::string_view("\0", 1));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = absl::MakeConstSpan(data, size);
  auto elf = hwt::capture::ParseElf(bytes, kName);
  if (!elf.ok()) {
    HWT_FUZZ_CHECK(
        hwt::fuzz::Contains(elf.status().message(), kName),
        "ParseElf error does not name the file: " + elf.status().ToString());
  } else {
    for (const auto& seg : elf->segments) {
      if (seg.type == 1 /* PT_LOAD */ &&
          (seg.offset > size || seg.filesz > size - seg.offset)) {
        Fail(absl::StrFormat("PT_LOAD [0x%x, +0x%x) beyond the %u-byte file",
                             seg.offset, seg.filesz, size));
      }
    }
    HWT_FUZZ_CHECK(elf->build_id.size() % 2 == 0, "odd-length build-id");
    (void)hwt::capture::ElfMachineName(elf->machine);
  }

  // As an --image of a raw PT capture.
  hwt::fuzz::WriteFileOrDie(*g_image, bytes);
  hwt::capture::Manifest manifest;
  manifest.backend = hwt::capture::Backend::kPt;
  hwt::capture::BufferInfo buffer;
  buffer.file = *g_trace;
  buffer.size = 1;
  manifest.buffers.push_back(buffer);
  hwt::capture::InputOptions options;
  options.images.push_back({*g_image, 0});
  options.images.push_back({*g_image, 0x7f0000000000});
  hwt::capture::Capture capture(hwt::capture::InputKind::kRawFile, *g_trace,
                                hwt::fuzz::ScratchDir(), std::move(manifest),
                                {}, options, std::nullopt);
  auto timeline = hwt::capture::BuildAddressSpaceTimeline(capture);
  if (!timeline.ok()) {
    HWT_FUZZ_CHECK(hwt::fuzz::Contains(timeline.status().message(), *g_image),
                   "timeline error does not name the image: " +
                       timeline.status().ToString());
    return 0;
  }
  HWT_FUZZ_CHECK(elf.ok(), "the timeline mapped an image ParseElf refused");
  for (const hwt::capture::Region& region : timeline->regions()) {
    if (region.end < region.start) {
      Fail(absl::StrFormat("region [0x%x, 0x%x) wraps around", region.start,
                           region.end));
    }
    if (region.file_offset > size ||
        region.file_size > size - region.file_offset ||
        region.file_size > region.end - region.start) {
      Fail(
          absl::StrFormat("region file bytes [0x%x, +0x%x) outside the "
                          "%u-byte image or its 0x%x-byte range",
                          region.file_offset, region.file_size, size,
                          region.end - region.start));
    }
  }

  auto files = std::make_shared<hwt::ImageFileCache>();
  hwt::MemoryImage memory(*timeline, 0, files);
  memory.AdvanceTo(~uint64_t{0});
  uint8_t buf[32];
  for (uint32_t id : memory.mapped_regions()) {
    const hwt::capture::Region& region = timeline->regions()[id];
    for (uint64_t address :
         {region.start, region.start + region.file_size / 2,
          region.end > 16 ? region.end - 16 : region.start, region.end - 1}) {
      if (address < region.start || address >= region.end) continue;
      const size_t n = memory.Read(address, buf, sizeof(buf));
      HWT_FUZZ_CHECK(n <= sizeof(buf), "MemoryImage::Read overran");
      // Bytes of the region that won: they are the file's, or zeros.
      if (n > 0 && memory.RegionAt(address) == id) {
        const uint64_t off = address - region.start;
        const uint8_t expected =
            off < region.file_size ? data[region.file_offset + off] : 0;
        if (buf[0] != expected) {
          Fail(absl::StrFormat("read 0x%02x at 0x%x, the image has 0x%02x",
                               buf[0], address, expected));
        }
      }
    }
  }

  hwt::pt::PtSectionCache sections(*timeline);
  for (uint32_t id = 0; id < timeline->regions().size(); ++id) {
    (void)sections.SectionOf(id);
  }
  return 0;
}
