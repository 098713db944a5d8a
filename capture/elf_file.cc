// Implementation of the bounds-checked ELF reader; see elf_file.h. Every read
// goes through Reader, which checks ranges, so malformed files produce errors.
#include "capture/elf_file.h"

#include <cstring>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::capture {
namespace {

constexpr uint32_t kPtLoad = 1;
constexpr uint32_t kPtInterp = 3;
constexpr uint32_t kPtNote = 4;
constexpr uint32_t kNtGnuBuildId = 3;
constexpr size_t kMaxProgramHeaders = 4096;

class Reader {
 public:
  Reader(absl::Span<const uint8_t> bytes, const std::string& name)
      : bytes_(bytes), name_(name) {}

  bool InRange(uint64_t offset, uint64_t size) const {
    return offset <= bytes_.size() && size <= bytes_.size() - offset;
  }

  absl::Status Check(uint64_t offset, uint64_t size, const char* what) const {
    if (InRange(offset, size)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: malformed ELF: %s at offset 0x%x (%u bytes) is beyond the end of "
        "the file (%u bytes)",
        name_, what, offset, size, bytes_.size()));
  }

  uint16_t U16(uint64_t off) const {
    uint16_t v;
    memcpy(&v, bytes_.data() + off, 2);
    return v;
  }
  uint32_t U32(uint64_t off) const {
    uint32_t v;
    memcpy(&v, bytes_.data() + off, 4);
    return v;
  }
  uint64_t U64(uint64_t off) const {
    uint64_t v;
    memcpy(&v, bytes_.data() + off, 8);
    return v;
  }
  const uint8_t* At(uint64_t off) const { return bytes_.data() + off; }

 private:
  absl::Span<const uint8_t> bytes_;
  const std::string& name_;
};

void ParseNotes(const Reader& reader, uint64_t offset, uint64_t size,
                ElfInfo* info) {
  uint64_t pos = offset;
  uint64_t end = offset + size;
  while (pos + 12 <= end && reader.InRange(pos, 12)) {
    uint32_t namesz = reader.U32(pos);
    uint32_t descsz = reader.U32(pos + 4);
    uint32_t type = reader.U32(pos + 8);
    uint64_t name_off = pos + 12;
    uint64_t desc_off = name_off + ((uint64_t{namesz} + 3) & ~uint64_t{3});
    uint64_t next = desc_off + ((uint64_t{descsz} + 3) & ~uint64_t{3});
    if (next > end || !reader.InRange(desc_off, descsz)) return;
    if (type == kNtGnuBuildId && namesz == 4 &&
        memcmp(reader.At(name_off), "GNU", 4) == 0 && descsz > 0 &&
        descsz <= 64) {
      std::string hex;
      for (uint32_t i = 0; i < descsz; ++i) {
        hex += absl::StrFormat("%02x", reader.At(desc_off)[i]);
      }
      info->build_id = hex;
      return;
    }
    pos = next;
  }
}

}  // namespace

std::vector<ElfSegment> ElfInfo::ExecutableLoads() const {
  std::vector<ElfSegment> out;
  for (const auto& s : segments) {
    if (s.type == kPtLoad && s.executable()) out.push_back(s);
  }
  return out;
}

uint64_t ElfInfo::LowestLoadAddress() const {
  bool found = false;
  uint64_t lowest = 0;
  for (const auto& s : segments) {
    if (s.type != kPtLoad) continue;
    if (!found || s.vaddr < lowest) lowest = s.vaddr;
    found = true;
  }
  return lowest;
}

bool LooksLikeElf(absl::Span<const uint8_t> bytes) {
  return bytes.size() >= 4 && memcmp(bytes.data(),
                                     "\x7f"
                                     "ELF",
                                     4) == 0;
}

const char* ElfMachineName(uint16_t machine) {
  switch (machine) {
    case 3:
      return "i386";
    case 40:
      return "arm";
    case 62:
      return "x86-64";
    case 183:
      return "aarch64";
    case 243:
      return "riscv";
    default:
      return "unknown";
  }
}

absl::StatusOr<ElfInfo> ParseElf(absl::Span<const uint8_t> bytes,
                                 const std::string& name) {
  if (!LooksLikeElf(bytes)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: not an ELF file (no ELF magic at offset 0)", name));
  }
  Reader r(bytes, name);
  HWT_RETURN_IF_ERROR(r.Check(0, 16, "ELF identification"));
  uint8_t elf_class = bytes[4];
  uint8_t data = bytes[5];
  if (elf_class != 1 && elf_class != 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: malformed ELF: unknown class %d at offset 4", name, elf_class));
  }
  if (data != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %s ELF files are not supported (only little-endian)", name,
        data == 2 ? "big-endian" : "unknown-endian"));
  }
  ElfInfo info;
  info.is_64 = elf_class == 2;
  uint64_t phoff, phentsize, phnum;
  if (info.is_64) {
    HWT_RETURN_IF_ERROR(r.Check(0, 64, "ELF header"));
    info.type = r.U16(16);
    info.machine = r.U16(18);
    info.entry = r.U64(24);
    phoff = r.U64(32);
    phentsize = r.U16(54);
    phnum = r.U16(56);
  } else {
    HWT_RETURN_IF_ERROR(r.Check(0, 52, "ELF header"));
    info.type = r.U16(16);
    info.machine = r.U16(18);
    info.entry = r.U32(24);
    phoff = r.U32(28);
    phentsize = r.U16(42);
    phnum = r.U16(44);
  }
  uint64_t min_phentsize = info.is_64 ? 56 : 32;
  if (phnum > 0 && phentsize < min_phentsize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: malformed ELF: program header entry size %u is smaller than %u",
        name, phentsize, min_phentsize));
  }
  if (phnum > kMaxProgramHeaders) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: malformed ELF: %u program headers", name, phnum));
  }
  if (phnum > 0) {
    HWT_RETURN_IF_ERROR(r.Check(phoff, phnum * phentsize, "program headers"));
  }
  for (uint64_t i = 0; i < phnum; ++i) {
    uint64_t p = phoff + i * phentsize;
    ElfSegment s;
    if (info.is_64) {
      s.type = r.U32(p);
      s.flags = r.U32(p + 4);
      s.offset = r.U64(p + 8);
      s.vaddr = r.U64(p + 16);
      s.filesz = r.U64(p + 32);
      s.memsz = r.U64(p + 40);
      s.align = r.U64(p + 48);
    } else {
      s.type = r.U32(p);
      s.offset = r.U32(p + 4);
      s.vaddr = r.U32(p + 8);
      s.filesz = r.U32(p + 16);
      s.memsz = r.U32(p + 20);
      s.flags = r.U32(p + 24);
      s.align = r.U32(p + 28);
    }
    if (s.type == kPtLoad) {
      if (!r.InRange(s.offset, s.filesz)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: malformed ELF: PT_LOAD segment %u (file offset 0x%x, size "
            "0x%x) extends beyond the end of the file (%u bytes); the file "
            "may be truncated",
            name, i, s.offset, s.filesz, bytes.size()));
      }
      if (s.vaddr + s.memsz < s.vaddr) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: malformed ELF: PT_LOAD segment %u (address 0x%x, memsz "
            "0x%x) wraps around the address space",
            name, i, s.vaddr, s.memsz));
      }
      if (s.memsz < s.filesz) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: malformed ELF: PT_LOAD segment %u has memsz 0x%x < filesz "
            "0x%x",
            name, i, s.memsz, s.filesz));
      }
    } else if (s.type == kPtInterp) {
      if (r.InRange(s.offset, s.filesz) && s.filesz > 1 && s.filesz < 4096) {
        const char* text = reinterpret_cast<const char*>(r.At(s.offset));
        info.interpreter.assign(text, strnlen(text, s.filesz));
      }
    } else if (s.type == kPtNote && info.build_id.empty()) {
      if (r.InRange(s.offset, s.filesz)) {
        ParseNotes(r, s.offset, s.filesz, &info);
      }
    }
    info.segments.push_back(s);
  }
  return info;
}

absl::StatusOr<ElfInfo> ReadElfFile(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseElf(file.bytes(), path);
}

std::string TrimBuildId(std::string_view id) {
  while (id.size() >= 2 && id.substr(id.size() - 2) == "00") {
    id.remove_suffix(2);
  }
  return std::string(id);
}

bool BuildIdsMatch(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  return TrimBuildId(a) == TrimBuildId(b);
}

}  // namespace hwt::capture
