// ELF parsing for the symbolizer; see elf_image.h. Uses only the
// Expected-returning ELFFile<ELFT> accessors, which check every offset and
// size against the buffer.
#include "symbolizer/elf_image.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"
#include "symbolizer/plt_decoder.h"

namespace hwt::symbolizer {
namespace {

using llvm::ELF::SHT_NOBITS;

absl::Status Malformed(const std::string& file, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(file, ": malformed ELF: ", std::string(what)));
}

// The relocation types that fill PLT-reachable GOT slots on one machine.
struct PltRelocTypes {
  uint32_t jump_slot = 0;
  uint32_t glob_dat = 0;
  uint32_t irelative = 0;
};

std::optional<PltRelocTypes> PltRelocTypesFor(uint16_t machine) {
  using namespace llvm::ELF;
  switch (machine) {
    case EM_X86_64:
      return PltRelocTypes{R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT,
                           R_X86_64_IRELATIVE};
    case EM_386:
      return PltRelocTypes{R_386_JUMP_SLOT, R_386_GLOB_DAT, R_386_IRELATIVE};
    case EM_AARCH64:
      return PltRelocTypes{R_AARCH64_JUMP_SLOT, R_AARCH64_GLOB_DAT,
                           R_AARCH64_IRELATIVE};
    case EM_ARM:
      return PltRelocTypes{R_ARM_JUMP_SLOT, R_ARM_GLOB_DAT, R_ARM_IRELATIVE};
    default:
      return std::nullopt;
  }
}

bool IsPltSectionName(std::string_view name) {
  return name == ".plt" || name == ".plt.sec" || name == ".plt.got" ||
         name == ".iplt" || name == ".plt.bnd";
}

}  // namespace

// Fills an ElfImage from an ELFFile of one class/endianness.
template <class ELFT>
class ElfParser {
 public:
  using Elf_Shdr = typename ELFT::Shdr;
  using Elf_Sym = typename ELFT::Sym;
  using Elf_Word = typename ELFT::Word;

  ElfParser(const llvm::object::ELFFile<ELFT>& ef, ElfImage* out)
      : ef_(ef), out_(out) {}

  absl::Status Run() {
    const auto& header = ef_.getHeader();
    out_->machine_ = header.e_machine;
    out_->elf_type_ = header.e_type;
    if (absl::Status s = ReadSections(); !s.ok()) return s;
    if (absl::Status s = ReadSegments(); !s.ok()) return s;
    if (absl::Status s = ReadBuildId(); !s.ok()) return s;
    if (absl::Status s = ReadDebugLink(); !s.ok()) return s;
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      const Elf_Shdr& sec = shdrs_[i];
      if (sec.sh_type == llvm::ELF::SHT_SYMTAB && !out_->has_symtab_) {
        out_->has_symtab_ = true;
        if (absl::Status s = ReadFunctions(i, &out_->symtab_functions_);
            !s.ok()) {
          return s;
        }
      } else if (sec.sh_type == llvm::ELF::SHT_DYNSYM && !out_->has_dynsym_) {
        out_->has_dynsym_ = true;
        if (absl::Status s = ReadFunctions(i, &out_->dynsym_functions_);
            !s.ok()) {
          return s;
        }
      }
    }
    return ReadPlt();
  }

 private:
  absl::Status Fail(std::string_view what, llvm::Error error) {
    return Malformed(out_->name_,
                     absl::StrCat(std::string(what), ": ",
                                  llvm::toString(std::move(error))));
  }

  absl::Status ReadSections() {
    auto sections = ef_.sections();
    if (!sections) return Fail("section header table", sections.takeError());
    shdrs_ = *sections;
    if (shdrs_.empty()) return absl::OkStatus();
    auto shstrtab = ef_.getSectionStringTable(shdrs_);
    if (!shstrtab) {
      return Fail("section name string table", shstrtab.takeError());
    }
    out_->sections_.reserve(shdrs_.size());
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      const Elf_Shdr& sec = shdrs_[i];
      ElfSection section;
      if (i != 0) {
        auto name = ef_.getSectionName(sec, *shstrtab);
        if (!name) {
          return Fail(absl::StrFormat("name of section %d", i),
                      name.takeError());
        }
        section.name = name->str();
      }
      section.type = sec.sh_type;
      section.flags = sec.sh_flags;
      section.addr = sec.sh_addr;
      section.size = sec.sh_size;
      section.offset = sec.sh_offset;
      section.entsize = sec.sh_entsize;
      if (section.type != SHT_NOBITS && section.size > 0 &&
          (section.offset > ef_.getBufSize() ||
           section.size > ef_.getBufSize() - section.offset)) {
        return Malformed(out_->name_,
                         absl::StrFormat("section %d (%s) at offset 0x%x size "
                                         "0x%x extends past the end of the "
                                         "file (size 0x%x); truncated?",
                                         i, section.name, section.offset,
                                         section.size, ef_.getBufSize()));
      }
      if ((section.name == ".debug_info" || section.name == ".zdebug_info") &&
          section.type != SHT_NOBITS && section.size > 0) {
        out_->has_debug_info_ = true;
      }
      out_->sections_.push_back(std::move(section));
    }
    return absl::OkStatus();
  }

  absl::Status ReadSegments() {
    auto phdrs = ef_.program_headers();
    if (!phdrs) return Fail("program header table", phdrs.takeError());
    int index = 0;
    for (const auto& phdr : *phdrs) {
      if (phdr.p_type == llvm::ELF::PT_LOAD && phdr.p_filesz > 0) {
        if (phdr.p_offset > ef_.getBufSize() ||
            phdr.p_filesz > ef_.getBufSize() - phdr.p_offset) {
          return Malformed(
              out_->name_,
              absl::StrFormat("PT_LOAD segment %d at offset 0x%x size 0x%x "
                              "extends past the end of the file (size 0x%x); "
                              "truncated?",
                              index, uint64_t{phdr.p_offset},
                              uint64_t{phdr.p_filesz}, ef_.getBufSize()));
        }
        out_->segments_.push_back(
            {phdr.p_vaddr, phdr.p_offset,
             std::min<uint64_t>(phdr.p_filesz, phdr.p_memsz)});
      }
      ++index;
    }
    return absl::OkStatus();
  }

  // Returns true when `note` is the GNU build-id (and records it).
  template <class Note>
  bool TakeBuildId(const Note& note, size_t align) {
    if (note.getType() != llvm::ELF::NT_GNU_BUILD_ID ||
        note.getName() != "GNU") {
      return false;
    }
    llvm::ArrayRef<uint8_t> desc = note.getDesc(align);
    std::string hex;
    hex.reserve(desc.size() * 2);
    for (uint8_t byte : desc) absl::StrAppendFormat(&hex, "%02x", byte);
    out_->build_id_ = std::move(hex);
    return true;
  }

  // Whether [offset, offset + size) lies in the file. LLVM 19's notes()
  // adds the two in the header's own width, which wraps for ELF32 and then
  // reads notes past the end (found by fuzz/elf_symbolize_fuzzer).
  bool InFile(uint64_t offset, uint64_t size) const {
    const uint64_t file_size = ef_.getBufSize();
    return offset <= file_size && size <= file_size - offset;
  }

  absl::Status ReadBuildId() {
    bool any_note_section = false;
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      const Elf_Shdr& sec = shdrs_[i];
      if (sec.sh_type != llvm::ELF::SHT_NOTE) continue;
      any_note_section = true;
      if (!InFile(sec.sh_offset, sec.sh_size)) {
        return Malformed(
            out_->name_,
            absl::StrFormat("note section %d: [0x%x, +0x%x) runs past the "
                            "end of the file (%u bytes)",
                            i, uint64_t{sec.sh_offset}, uint64_t{sec.sh_size},
                            ef_.getBufSize()));
      }
      llvm::Error error = llvm::Error::success();
      const size_t align = std::max<size_t>(sec.sh_addralign, 4);
      for (const auto& note : ef_.notes(sec, error)) {
        if (TakeBuildId(note, align)) break;
      }
      if (error) {
        return Fail(absl::StrFormat("notes of section %d (%s)", i,
                                    out_->sections_[i].name),
                    std::move(error));
      }
      if (!out_->build_id_.empty()) return absl::OkStatus();
    }
    if (any_note_section) return absl::OkStatus();
    // No section headers (or no note sections): look at PT_NOTE segments.
    auto phdrs = ef_.program_headers();
    if (!phdrs) return Fail("program header table", phdrs.takeError());
    for (const auto& phdr : *phdrs) {
      if (phdr.p_type != llvm::ELF::PT_NOTE) continue;
      if (!InFile(phdr.p_offset, phdr.p_filesz)) {
        return Malformed(
            out_->name_,
            absl::StrFormat("PT_NOTE segment: [0x%x, +0x%x) runs past the "
                            "end of the file (%u bytes)",
                            uint64_t{phdr.p_offset}, uint64_t{phdr.p_filesz},
                            ef_.getBufSize()));
      }
      llvm::Error error = llvm::Error::success();
      const size_t align = std::max<size_t>(phdr.p_align, 4);
      for (const auto& note : ef_.notes(phdr, error)) {
        if (TakeBuildId(note, align)) break;
      }
      if (error) return Fail("PT_NOTE segment", std::move(error));
      if (!out_->build_id_.empty()) break;
    }
    return absl::OkStatus();
  }

  absl::Status ReadDebugLink() {
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      if (out_->sections_[i].name != ".gnu_debuglink" ||
          shdrs_[i].sh_type == SHT_NOBITS) {
        continue;
      }
      auto contents = ef_.getSectionContents(shdrs_[i]);
      if (!contents) return Fail(".gnu_debuglink", contents.takeError());
      llvm::ArrayRef<uint8_t> bytes = *contents;
      const auto* nul = std::find(bytes.begin(), bytes.end(), uint8_t{0});
      const size_t name_len = nul - bytes.begin();
      const size_t crc_at = (name_len + 1 + 3) & ~size_t{3};
      if (nul == bytes.end() || name_len == 0 || crc_at + 4 > bytes.size()) {
        return Malformed(out_->name_,
                         ".gnu_debuglink: expected a file name, padding and "
                         "a CRC32");
      }
      ElfDebugLink link;
      link.file.assign(reinterpret_cast<const char*>(bytes.data()), name_len);
      link.crc = llvm::support::endian::read32<ELFT::Endianness>(bytes.data() +
                                                                 crc_at);
      out_->debug_link_ = std::move(link);
      break;
    }
    return absl::OkStatus();
  }

  // A symbol table with its string table and extended section indexes.
  struct SymbolTable {
    llvm::ArrayRef<Elf_Sym> symbols;
    llvm::StringRef strtab;
    llvm::ArrayRef<Elf_Word> shndx;
  };

  absl::Status LoadSymbolTable(size_t index, SymbolTable* table) {
    const Elf_Shdr& sec = shdrs_[index];
    const std::string where = absl::StrFormat(
        "symbol table in section %d (%s)", index, out_->sections_[index].name);
    auto symbols = ef_.symbols(&sec);
    if (!symbols) return Fail(where, symbols.takeError());
    auto strtab = ef_.getStringTableForSymtab(sec, shdrs_);
    if (!strtab) return Fail(where, strtab.takeError());
    table->symbols = *symbols;
    table->strtab = *strtab;
    for (const Elf_Shdr& other : shdrs_) {
      if (other.sh_type == llvm::ELF::SHT_SYMTAB_SHNDX &&
          other.sh_link == index) {
        auto shndx = ef_.getSHNDXTable(other, shdrs_);
        if (!shndx) return Fail(where, shndx.takeError());
        table->shndx = *shndx;
        break;
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadFunctions(size_t index,
                             std::vector<ElfFunctionSymbol>* functions) {
    SymbolTable table;
    if (absl::Status s = LoadSymbolTable(index, &table); !s.ok()) return s;
    const bool arm = out_->machine_ == llvm::ELF::EM_ARM;
    for (size_t i = 0; i < table.symbols.size(); ++i) {
      const Elf_Sym& sym = table.symbols[i];
      const unsigned type = sym.getType();
      if (type != llvm::ELF::STT_FUNC && type != llvm::ELF::STT_GNU_IFUNC) {
        continue;
      }
      uint32_t section = 0;
      if (sym.st_shndx == llvm::ELF::SHN_UNDEF) continue;
      if (sym.st_shndx == llvm::ELF::SHN_XINDEX) {
        if (i < table.shndx.size()) section = table.shndx[i];
      } else if (sym.st_shndx < llvm::ELF::SHN_LORESERVE) {
        section = sym.st_shndx;
      }
      if (section >= shdrs_.size()) {
        return Malformed(
            out_->name_,
            absl::StrFormat("symbol %d of section %d (%s): section index %d "
                            "out of range",
                            i, index, out_->sections_[index].name, section));
      }
      auto name = sym.getName(table.strtab);
      if (!name) {
        return Fail(absl::StrFormat("name of symbol %d of section %d (%s)", i,
                                    index, out_->sections_[index].name),
                    name.takeError());
      }
      ElfFunctionSymbol function;
      function.name = name->str();
      function.value = sym.st_value;
      function.size = sym.st_size;
      function.section = section;
      if (arm && (function.value & 1)) {
        function.thumb = true;
        function.value &= ~uint64_t{1};
      }
      functions->push_back(std::move(function));
    }
    return absl::OkStatus();
  }

  // GOT slot -> name of the symbol a PLT stub through that slot calls.
  absl::Status ReadGotSlotNames(
      const PltRelocTypes& types,
      absl::flat_hash_map<uint64_t, std::string>* names) {
    const bool mips64el = ef_.isMips64EL();
    absl::flat_hash_map<size_t, SymbolTable> tables;
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      const Elf_Shdr& sec = shdrs_[i];
      const bool rela = sec.sh_type == llvm::ELF::SHT_RELA;
      if ((!rela && sec.sh_type != llvm::ELF::SHT_REL) ||
          !(sec.sh_flags & llvm::ELF::SHF_ALLOC)) {
        continue;
      }
      const std::string where = absl::StrFormat(
          "relocations in section %d (%s)", i, out_->sections_[i].name);
      const SymbolTable* table = nullptr;
      if (sec.sh_link != 0) {
        if (sec.sh_link >= shdrs_.size() ||
            (shdrs_[sec.sh_link].sh_type != llvm::ELF::SHT_DYNSYM &&
             shdrs_[sec.sh_link].sh_type != llvm::ELF::SHT_SYMTAB)) {
          return Malformed(out_->name_,
                           absl::StrFormat("%s: sh_link %d is not a symbol "
                                           "table",
                                           where, uint32_t{sec.sh_link}));
        }
        auto it = tables.find(sec.sh_link);
        if (it == tables.end()) {
          SymbolTable loaded;
          if (absl::Status s = LoadSymbolTable(sec.sh_link, &loaded); !s.ok()) {
            return s;
          }
          it = tables.emplace(sec.sh_link, loaded).first;
        }
        table = &it->second;
      }
      auto visit = [&](uint64_t offset, uint32_t type, uint32_t sym,
                       std::optional<int64_t> addend) -> absl::Status {
        if (type != types.jump_slot && type != types.glob_dat &&
            type != types.irelative) {
          return absl::OkStatus();
        }
        std::string name;
        if (sym != 0) {
          if (table == nullptr || sym >= table->symbols.size()) {
            return Malformed(out_->name_,
                             absl::StrFormat("%s: symbol index %d out of "
                                             "range",
                                             where, sym));
          }
          auto sym_name = table->symbols[sym].getName(table->strtab);
          if (!sym_name) return Fail(where, sym_name.takeError());
          name = sym_name->str();
        } else if (type == types.irelative) {
          uint64_t value = 0;
          if (addend) {
            value = static_cast<uint64_t>(*addend);
          } else {
            // REL: the addend is the word in the slot itself.
            const size_t word = ELFT::Is64Bits ? 8 : 4;
            const uint8_t* data = out_->FileData(offset, word);
            if (data == nullptr) return absl::OkStatus();
            value = ELFT::Is64Bits
                        ? llvm::support::endian::read64<ELFT::Endianness>(data)
                        : llvm::support::endian::read32<ELFT::Endianness>(data);
          }
          name = absl::StrFormat("*ABS*+0x%x", value);
        } else {
          return absl::OkStatus();
        }
        names->try_emplace(offset, std::move(name));
        return absl::OkStatus();
      };
      if (rela) {
        auto relas = ef_.relas(sec);
        if (!relas) return Fail(where, relas.takeError());
        for (const auto& r : *relas) {
          if (absl::Status s = visit(r.r_offset, r.getType(mips64el),
                                     r.getSymbol(mips64el), r.r_addend);
              !s.ok()) {
            return s;
          }
        }
      } else {
        auto rels = ef_.rels(sec);
        if (!rels) return Fail(where, rels.takeError());
        for (const auto& r : *rels) {
          if (absl::Status s = visit(r.r_offset, r.getType(mips64el),
                                     r.getSymbol(mips64el), std::nullopt);
              !s.ok()) {
            return s;
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadPlt() {
    if (out_->elf_type_ == llvm::ELF::ET_REL) return absl::OkStatus();
    const std::optional<PltRelocTypes> types = PltRelocTypesFor(out_->machine_);
    if (!types) return absl::OkStatus();
    // objdump names PLT entries from the dynamic relocations only: a static
    // executable's IRELATIVE stubs (.rela.iplt, no .dynamic) stay unnamed.
    bool any_plt = false;
    bool dynamic = false;
    uint64_t got_plt = 0;
    for (const ElfSection& section : out_->sections_) {
      if (IsPltSectionName(section.name) && section.type != SHT_NOBITS) {
        any_plt = true;
      }
      if (section.type == llvm::ELF::SHT_DYNAMIC) dynamic = true;
      if (section.name == ".got.plt" ||
          (section.name == ".got" && got_plt == 0)) {
        got_plt = section.addr;
      }
    }
    if (!any_plt || !dynamic) return absl::OkStatus();
    absl::flat_hash_map<uint64_t, std::string> slot_names;
    if (absl::Status s = ReadGotSlotNames(*types, &slot_names); !s.ok()) {
      return s;
    }
    const auto& header = ef_.getHeader();
    const bool big_endian_code =
        out_->machine_ == llvm::ELF::EM_ARM &&
        header.e_ident[llvm::ELF::EI_DATA] == llvm::ELF::ELFDATA2MSB &&
        !(header.e_flags & llvm::ELF::EF_ARM_BE8);
    for (size_t i = 0; i < shdrs_.size(); ++i) {
      const ElfSection& section = out_->sections_[i];
      if (!IsPltSectionName(section.name) || section.type == SHT_NOBITS ||
          !(section.flags & llvm::ELF::SHF_EXECINSTR)) {
        continue;
      }
      auto contents = ef_.getSectionContents(shdrs_[i]);
      if (!contents) {
        return Fail(absl::StrFormat("section %d (%s)", i, section.name),
                    contents.takeError());
      }
      PltSectionBytes bytes;
      bytes.machine = out_->machine_;
      bytes.address = section.addr;
      bytes.bytes = absl::MakeConstSpan(contents->data(), contents->size());
      bytes.got_plt_address = got_plt;
      bytes.big_endian_code = big_endian_code;
      for (const PltStub& stub : DecodePltStubs(bytes)) {
        auto it = slot_names.find(stub.got_slot);
        if (it == slot_names.end()) continue;
        out_->plt_entries_.push_back(
            {it->second, stub.address, static_cast<uint32_t>(i)});
      }
    }
    auto& entries = out_->plt_entries_;
    std::stable_sort(entries.begin(), entries.end(),
                     [](const ElfPltEntry& a, const ElfPltEntry& b) {
                       return a.address < b.address;
                     });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const ElfPltEntry& a, const ElfPltEntry& b) {
                                return a.address == b.address;
                              }),
                  entries.end());
    return absl::OkStatus();
  }

  const llvm::object::ELFFile<ELFT>& ef_;
  ElfImage* out_;
  llvm::ArrayRef<Elf_Shdr> shdrs_;
};

ElfImage::~ElfImage() = default;

absl::StatusOr<std::unique_ptr<ElfImage>> ElfImage::Open(
    const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    const std::error_code ec = buffer.getError();
    const std::string message = absl::StrCat(path, ": ", ec.message());
    if (ec == std::errc::no_such_file_or_directory) {
      return absl::NotFoundError(message);
    }
    return absl::UnavailableError(message);
  }
  return Parse(std::move(*buffer), path);
}

absl::StatusOr<std::unique_ptr<ElfImage>> ElfImage::FromBytes(
    absl::Span<const uint8_t> bytes, const std::string& name) {
  // A copy is suitably aligned for LLVM (which insists on it).
  return Parse(llvm::MemoryBuffer::getMemBufferCopy(
                   llvm::StringRef(reinterpret_cast<const char*>(bytes.data()),
                                   bytes.size()),
                   name),
               name);
}

absl::StatusOr<std::unique_ptr<ElfImage>> ElfImage::Parse(
    std::unique_ptr<llvm::MemoryBuffer> buffer, const std::string& name) {
  llvm::StringRef data = buffer->getBuffer();
  if (data.size() < 4 || std::memcmp(data.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": not an ELF file (no \\x7fELF magic)"));
  }
  if (data.size() < llvm::ELF::EI_NIDENT) {
    return Malformed(name, "truncated inside the ELF identification");
  }
  const uint8_t elf_class = data[llvm::ELF::EI_CLASS];
  const uint8_t elf_data = data[llvm::ELF::EI_DATA];
  if (elf_class != llvm::ELF::ELFCLASS32 &&
      elf_class != llvm::ELF::ELFCLASS64) {
    return Malformed(name, absl::StrFormat("invalid class %d", elf_class));
  }
  if (elf_data != llvm::ELF::ELFDATA2LSB &&
      elf_data != llvm::ELF::ELFDATA2MSB) {
    return Malformed(name,
                     absl::StrFormat("invalid data encoding %d", elf_data));
  }
  auto image = std::unique_ptr<ElfImage>(new ElfImage());
  image->name_ = name;
  image->buffer_ = std::move(buffer);
  auto object = llvm::object::ObjectFile::createELFObjectFile(
      image->buffer_->getMemBufferRef(), /*InitContent=*/true);
  if (!object) {
    return Malformed(name, llvm::toString(object.takeError()));
  }
  llvm::object::ObjectFile* obj = object->get();
  absl::Status status;
  if (auto* o = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(obj)) {
    status =
        ElfParser<llvm::object::ELF64LE>(o->getELFFile(), image.get()).Run();
  } else if (auto* o = llvm::dyn_cast<llvm::object::ELF32LEObjectFile>(obj)) {
    status =
        ElfParser<llvm::object::ELF32LE>(o->getELFFile(), image.get()).Run();
  } else if (auto* o = llvm::dyn_cast<llvm::object::ELF64BEObjectFile>(obj)) {
    status =
        ElfParser<llvm::object::ELF64BE>(o->getELFFile(), image.get()).Run();
  } else if (auto* o = llvm::dyn_cast<llvm::object::ELF32BEObjectFile>(obj)) {
    status =
        ElfParser<llvm::object::ELF32BE>(o->getELFFile(), image.get()).Run();
  } else {
    return Malformed(name, "unsupported ELF variant");
  }
  if (!status.ok()) return status;
  image->object_ = std::move(*object);
  return image;
}

std::string ElfImage::arch() const {
  return llvm::Triple::getArchTypeName(object_->getArch()).str();
}

absl::Span<const uint8_t> ElfImage::bytes() const {
  return {reinterpret_cast<const uint8_t*>(buffer_->getBufferStart()),
          buffer_->getBufferSize()};
}

const uint8_t* ElfImage::FileData(uint64_t vaddr, uint64_t size) const {
  const uint8_t* file = reinterpret_cast<const uint8_t*>(
      buffer_ ? buffer_->getBufferStart() : nullptr);
  if (file == nullptr) return nullptr;
  const uint64_t file_size = buffer_->getBufferSize();
  auto inside = [&](uint64_t start, uint64_t offset,
                    uint64_t length) -> const uint8_t* {
    if (vaddr < start || vaddr - start > length ||
        size > length - (vaddr - start)) {
      return nullptr;
    }
    const uint64_t at = offset + (vaddr - start);
    if (at > file_size || size > file_size - at) return nullptr;
    return file + at;
  };
  for (const Segment& segment : segments_) {
    if (const uint8_t* p =
            inside(segment.vaddr, segment.offset, segment.filesz)) {
      return p;
    }
  }
  if (segments_.empty()) {
    for (const ElfSection& section : sections_) {
      if (section.type == SHT_NOBITS ||
          !(section.flags & llvm::ELF::SHF_ALLOC)) {
        continue;
      }
      if (const uint8_t* p =
              inside(section.addr, section.offset, section.size)) {
        return p;
      }
    }
  }
  return nullptr;
}

absl::StatusOr<std::vector<uint8_t>> ElfImage::Read(uint64_t vaddr,
                                                    uint64_t size) const {
  const uint8_t* data = FileData(vaddr, size);
  if (data == nullptr) {
    return absl::OutOfRangeError(
        absl::StrFormat("%s: [0x%x, 0x%x) is not file-backed loadable contents",
                        name_, vaddr, vaddr + size));
  }
  return std::vector<uint8_t>(data, data + size);
}

}  // namespace hwt::symbolizer
