// Reads what the symbolizer needs from one ELF file (on disk or in memory)
// through llvm::object's bounds-checked ELFFile API: function symbols of
// .symtab and .dynsym, PLT entries, build-id, .gnu_debuglink, sections and
// loadable segments. Everything is parsed up front, so a malformed file is
// one absl::Status naming the file and never a crash later (ELFObjectFile's
// convenience iterators call report_fatal_error on bad input; we avoid them).
#ifndef HWT_SYMBOLIZER_ELF_IMAGE_H_
#define HWT_SYMBOLIZER_ELF_IMAGE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace llvm {
class MemoryBuffer;
namespace object {
class ObjectFile;
}  // namespace object
}  // namespace llvm

namespace hwt::symbolizer {

struct ElfSection {
  std::string name;
  uint32_t type = 0;  // SHT_*
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t size = 0;
  uint64_t offset = 0;
  uint64_t entsize = 0;
};

// A FUNC or GNU_IFUNC symbol defined in some section.
struct ElfFunctionSymbol {
  std::string name;
  uint64_t value = 0;  // ARM: Thumb bit cleared
  uint64_t size = 0;
  uint32_t section = 0;  // index into sections(); 0 = none (SHN_ABS, ...)
  bool thumb = false;
};

// A PLT stub: its address, the section it lies in and the symbol it calls
// (without "@plt"; "*ABS*+0xADDEND" for IRELATIVE slots, as objdump does).
struct ElfPltEntry {
  std::string name;
  uint64_t address = 0;
  uint32_t section = 0;
};

struct ElfDebugLink {
  std::string file;
  uint32_t crc = 0;
};

class ElfImage {
 public:
  // Maps and parses `path`. Errors name the file.
  static absl::StatusOr<std::unique_ptr<ElfImage>> Open(
      const std::string& path);
  // Parses a copy of `bytes`; `name` is used in errors.
  static absl::StatusOr<std::unique_ptr<ElfImage>> FromBytes(
      absl::Span<const uint8_t> bytes, const std::string& name);

  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  const std::string& name() const { return name_; }
  uint16_t machine() const { return machine_; }
  uint16_t elf_type() const { return elf_type_; }  // ET_*
  std::string arch() const;                        // "x86_64", "aarch64", ...
  const std::string& build_id() const { return build_id_; }
  const std::optional<ElfDebugLink>& debug_link() const { return debug_link_; }
  // A .debug_info section with contents in this file.
  bool has_debug_info() const { return has_debug_info_; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  bool has_symtab() const { return has_symtab_; }
  bool has_dynsym() const { return has_dynsym_; }
  const std::vector<ElfFunctionSymbol>& symtab_functions() const {
    return symtab_functions_;
  }
  const std::vector<ElfFunctionSymbol>& dynsym_functions() const {
    return dynsym_functions_;
  }
  const std::vector<ElfPltEntry>& plt_entries() const { return plt_entries_; }

  // Bytes at [vaddr, vaddr + size) from file-backed loadable contents.
  absl::StatusOr<std::vector<uint8_t>> Read(uint64_t vaddr,
                                            uint64_t size) const;

  // The whole file, for CRC checks.
  absl::Span<const uint8_t> bytes() const;
  // For DWARF (llvm::DWARFContext). Only section iteration is safe on it.
  const llvm::object::ObjectFile& object() const { return *object_; }

 private:
  template <class ELFT>
  friend class ElfParser;
  ElfImage() = default;
  static absl::StatusOr<std::unique_ptr<ElfImage>> Parse(
      std::unique_ptr<llvm::MemoryBuffer> buffer, const std::string& name);
  const uint8_t* FileData(uint64_t vaddr, uint64_t size) const;

  struct Segment {
    uint64_t vaddr = 0;
    uint64_t offset = 0;
    uint64_t filesz = 0;
  };

  std::string name_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::unique_ptr<llvm::object::ObjectFile> object_;
  uint16_t machine_ = 0;
  uint16_t elf_type_ = 0;
  std::string build_id_;
  std::optional<ElfDebugLink> debug_link_;
  bool has_debug_info_ = false;
  std::vector<ElfSection> sections_;
  std::vector<Segment> segments_;  // PT_LOAD
  bool has_symtab_ = false;
  bool has_dynsym_ = false;
  std::vector<ElfFunctionSymbol> symtab_functions_;
  std::vector<ElfFunctionSymbol> dynsym_functions_;
  std::vector<ElfPltEntry> plt_entries_;
};

}  // namespace hwt::symbolizer

#endif  // HWT_SYMBOLIZER_ELF_IMAGE_H_
