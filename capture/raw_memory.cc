// Reads raw memory images (a byte file at an address, a kAFL/libxdc page
// cache) into memory dumps; see raw_memory.h.
#include "capture/raw_memory.h"

#include <cstring>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"

namespace hwt::capture {
namespace {

// The page cache pair a path names: STEM.addr and STEM.dump, both present.
std::optional<std::pair<std::string, std::string>> PageCachePair(
    const std::string& path) {
  std::string stem;
  if (absl::EndsWith(path, ".addr") || absl::EndsWith(path, ".dump")) {
    stem = path.substr(0, path.size() - 5);
  } else {
    return std::nullopt;
  }
  std::string addr = stem + ".addr";
  std::string dump = stem + ".dump";
  if (!IsRegularFile(addr) || !IsRegularFile(dump)) return std::nullopt;
  return std::make_pair(addr, dump);
}

}  // namespace

absl::StatusOr<std::vector<MemoryDump>> ReadPageCache(
    const std::string& addr_path, const std::string& dump_path) {
  HWT_ASSIGN_OR_RETURN(MappedFile addresses, MappedFile::Open(addr_path));
  HWT_ASSIGN_OR_RETURN(MappedFile pages, MappedFile::Open(dump_path));
  const uint64_t count = addresses.size() / 8;
  if (addresses.size() == 0 || addresses.size() % 8 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: a page cache's address file holds 8-byte addresses, but its size "
        "is %u bytes",
        addr_path, addresses.size()));
  }
  if (pages.size() != count * kPageCachePageSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "page cache %s holds %u page addresses, so %s should be %u bytes (%u "
        "pages of 4096), but it is %u bytes",
        addr_path, count, dump_path, count * kPageCachePageSize, count,
        pages.size()));
  }
  std::vector<MemoryDump> dumps;
  std::set<uint64_t> seen;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t address = 0;
    std::memcpy(&address, addresses.bytes().data() + i * 8, 8);  // LE host
    if (address % kPageCachePageSize != 0 || !seen.insert(address).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s at offset %u: page address 0x%x is %s", addr_path, i * 8, address,
          address % kPageCachePageSize != 0 ? "not 4 KiB aligned"
                                            : "given twice"));
    }
    MemoryDump dump;
    dump.file = dump_path;
    dump.address = address;
    dump.file_offset = i * kPageCachePageSize;
    dump.size = kPageCachePageSize;
    dumps.push_back(std::move(dump));
  }
  return dumps;
}

absl::StatusOr<std::optional<std::vector<MemoryDump>>> RawMemoryOfImage(
    const ImageSpec& spec) {
  if (auto pair = PageCachePair(spec.path)) {
    if (spec.has_bias) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--image %s@0x%x: a page cache (%s, %s) carries its own addresses; "
          "give it without @ADDRESS",
          spec.path, spec.bias, pair->first, pair->second));
    }
    HWT_ASSIGN_OR_RETURN(auto dumps, ReadPageCache(pair->first, pair->second));
    return std::optional<std::vector<MemoryDump>>(std::move(dumps));
  }
  auto mapped = MappedFile::Open(spec.path);
  // An unreadable file is left to the ELF path, which warns about it.
  if (!mapped.ok()) return std::optional<std::vector<MemoryDump>>();
  if (LooksLikeElf(mapped->bytes())) {
    return std::optional<std::vector<MemoryDump>>();
  }
  if (mapped->size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--image %s: the file is empty", spec.path));
  }
  if (!spec.has_bias) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--image %s: not an ELF file, and no page cache (STEM.addr with "
        "STEM.dump) beside it; raw memory needs the address its first byte "
        "is loaded at: --image %s@ADDRESS",
        spec.path, spec.path));
  }
  MemoryDump dump;
  dump.file = spec.path;
  dump.address = spec.bias;
  dump.size = mapped->size();
  return std::optional<std::vector<MemoryDump>>(
      std::vector<MemoryDump>{std::move(dump)});
}

}  // namespace hwt::capture
