// Raw memory given where an ELF image is expected (`--image`): a byte file
// loaded at an address (`--image FILE@ADDRESS`), or a page cache as kAFL,
// Nyx and libxdc save it (STEM.addr: one little-endian 64-bit page address
// per 4 KiB page; STEM.dump: the pages in the same order; either file may be
// named). Both become memory dumps of the capture model, so the decoders
// read them like the `memory` entries of a bundle manifest.
#ifndef HWT_CAPTURE_RAW_MEMORY_H_
#define HWT_CAPTURE_RAW_MEMORY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"
#include "capture/manifest.h"

namespace hwt::capture {

inline constexpr uint64_t kPageCachePageSize = 4096;

// The memory an --image names when it is not an ELF file: nullopt for an ELF
// file (mapped by program headers as before); the page cache's pages; or the
// whole file at the given address. An error for a file that is neither ELF
// nor a page cache and has no address, an empty file, and a page cache whose
// two files disagree (naming both, their sizes and the first bad entry).
absl::StatusOr<std::optional<std::vector<MemoryDump>>> RawMemoryOfImage(
    const ImageSpec& spec);

// Reads a page cache pair into one dump per page (file offsets i * 4096).
absl::StatusOr<std::vector<MemoryDump>> ReadPageCache(
    const std::string& addr_path, const std::string& dump_path);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_RAW_MEMORY_H_
