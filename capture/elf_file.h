// A small, bounds-checked ELF reader for what the capture layer needs to map
// images: the header (class, type, machine), the program headers (PT_LOAD,
// PT_INTERP) and the GNU build-id. Symbols and DWARF are the symbolizer's
// business (LLVM); this stays dependency-free so that it can be fuzzed and
// used by every decoder.
#ifndef HWT_CAPTURE_ELF_FILE_H_
#define HWT_CAPTURE_ELF_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::capture {

struct ElfSegment {
  uint32_t type = 0;   // PT_*
  uint32_t flags = 0;  // PF_X=1 PF_W=2 PF_R=4
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;

  bool executable() const { return (flags & 1) != 0; }
};

struct ElfInfo {
  bool is_64 = true;
  uint16_t type = 0;     // ET_EXEC=2, ET_DYN=3, ET_REL=1, ET_CORE=4
  uint16_t machine = 0;  // EM_X86_64=62, EM_AARCH64=183, EM_ARM=40, EM_386=3
  uint64_t entry = 0;
  std::vector<ElfSegment> segments;  // all program headers
  std::string interpreter;           // PT_INTERP, empty if none
  std::string build_id;              // lowercase hex, empty if none

  // PT_LOAD segments with PF_X, in file order.
  std::vector<ElfSegment> ExecutableLoads() const;
  // Lowest PT_LOAD vaddr (0 if none).
  uint64_t LowestLoadAddress() const;
};

// Parses ELF bytes; `name` is used in error messages only. Rejects big-endian
// and malformed files with a message saying what is wrong at which offset.
absl::StatusOr<ElfInfo> ParseElf(absl::Span<const uint8_t> bytes,
                                 const std::string& name);

// Maps and parses a file.
absl::StatusOr<ElfInfo> ReadElfFile(const std::string& path);

// True if the bytes start with the ELF magic.
bool LooksLikeElf(absl::Span<const uint8_t> bytes);

const char* ElfMachineName(uint16_t machine);

// Whether two GNU build-ids (lowercase hex) name the same build: equal once
// trailing zero bytes are ignored (perf.data stores 20 bytes, padding shorter
// ids with zeros). Empty ids match nothing.
bool BuildIdsMatch(std::string_view a, std::string_view b);
// `id` without trailing "00" byte pairs.
std::string TrimBuildId(std::string_view id);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_ELF_FILE_H_
