// Malformed ELF files must give a clear error naming the file, never a crash
// or a hang: truncations at every stage, random bytes, absurd header fields,
// broken section tables, symbol tables, relocations and notes, and random
// byte flips through the whole loading path (ProbeElf, with DWARF).
#include <elf.h>

#include <cstring>
#include <random>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "symbolizer/probe.h"
#include "symbolizer/symbolizer.h"
#include "symbolizer/testing/binutils_truth.h"
#include "symbolizer/testing/test_programs.h"

namespace hwt::symbolizer {
namespace {

namespace st = ::hwt::symbolizer::testing;
using ::testing::HasSubstr;

// A real x86-64 PIE with .symtab, DWARF, PLT and a build-id.
const std::string& Original() {
  static const std::string bytes = [] {
    std::string error;
    const std::string path = st::BuildProgram(
        "robust_base", "plt_prog.c", {"-g", "-O2", "-Wl,--build-id"}, &error);
    if (path.empty()) return std::string();
    auto data = ReadFileToString(path);
    return data.ok() ? *data : std::string();
  }();
  return bytes;
}

// Writes `bytes` to a file and adds it to a fresh Symbolizer.
absl::Status AddBytes(const std::string& bytes, const std::string& name) {
  const std::string path = st::BuildDir() + "/" + name;
  if (!WriteFileAtomically(path, bytes).ok()) {
    return absl::InternalError("cannot write " + path);
  }
  SymbolizerOptions options;
  options.sysroot = st::BuildDir() + "/none";
  auto symbolizer = Symbolizer::Create(options);
  absl::Status status = symbolizer->AddImage(1, path, "/bin/" + name);
  // Whatever happened, lookups must work (a failed image counts as missing).
  symbolizer->Symbolize(1, 0x1000);
  symbolizer->FunctionFor(1, 0x1000);
  return status;
}

absl::Status Probe(const std::string& bytes, bool dwarf = true) {
  return ProbeElf(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes.data()),
                          bytes.size()),
      dwarf);
}

// Expects an error that names the file.
void ExpectRejected(const std::string& bytes, const std::string& name) {
  absl::Status status = AddBytes(bytes, name);
  EXPECT_FALSE(status.ok()) << name;
  EXPECT_THAT(std::string(status.message()), HasSubstr(name));
  EXPECT_FALSE(Probe(bytes).ok()) << name;
}

template <typename T>
T Get(const std::string& bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

template <typename T>
void Set(std::string* bytes, size_t at, T value) {
  std::memcpy(bytes->data() + at, &value, sizeof(T));
}

Elf64_Ehdr Header(const std::string& bytes) {
  return Get<Elf64_Ehdr>(bytes, 0);
}

// File offset of section header `name`.
size_t SectionHeaderOffset(const std::string& bytes, const std::string& name) {
  const Elf64_Ehdr eh = Header(bytes);
  const auto strtab =
      Get<Elf64_Shdr>(bytes, eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr));
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    const auto sh = Get<Elf64_Shdr>(bytes, at);
    if (name == bytes.c_str() + strtab.sh_offset + sh.sh_name) return at;
  }
  ADD_FAILURE() << "no section " << name;
  return 0;
}

#define REQUIRE_ORIGINAL(var)          \
  const std::string& var = Original(); \
  ASSERT_FALSE(var.empty()) << "cannot build the base program"

TEST(ElfRobustnessTest, OriginalLoads) {
  REQUIRE_ORIGINAL(elf);
  EXPECT_TRUE(AddBytes(elf, "robust_ok").ok());
  EXPECT_TRUE(Probe(elf).ok());
}

TEST(ElfRobustnessTest, EveryTruncationIsAnError) {
  REQUIRE_ORIGINAL(elf);
  const Elf64_Ehdr eh = Header(elf);
  // ld puts the section header table last: any truncation cuts into it.
  ASSERT_EQ(eh.e_shoff + eh.e_shnum * sizeof(Elf64_Shdr), elf.size());
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 80; ++n) sizes.push_back(n);
  for (size_t n = 81; n < elf.size(); n += 233) sizes.push_back(n);
  sizes.push_back(eh.e_shoff - 1);
  sizes.push_back(eh.e_shoff + 1);
  sizes.push_back(elf.size() - 1);
  for (size_t n : sizes) {
    ExpectRejected(elf.substr(0, n), absl::StrFormat("trunc_%d", n));
  }
  EXPECT_THAT(std::string(AddBytes("", "trunc_empty").message()),
              HasSubstr("not an ELF file"));
}

TEST(ElfRobustnessTest, RandomBytesAreErrors) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 300; ++i) {
    std::string bytes(rng() % 4096, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    const bool magic = i % 2 == 0 && bytes.size() >= 16;
    if (magic) {
      std::memcpy(bytes.data(),
                  "\x7f"
                  "ELF",
                  4);
      bytes[EI_CLASS] = static_cast<char>(1 + rng() % 2);
      bytes[EI_DATA] = static_cast<char>(1 + rng() % 2);
    }
    const std::string name = absl::StrFormat("random_%d", i);
    absl::Status status = AddBytes(bytes, name);
    // Random section tables could be valid by chance only in theory.
    EXPECT_FALSE(status.ok()) << name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(name));
    if (!magic) {
      EXPECT_THAT(std::string(status.message()), HasSubstr("ELF"));
    }
    Probe(bytes).IgnoreError();
  }
}

TEST(ElfRobustnessTest, AbsurdHeaderFields) {
  REQUIRE_ORIGINAL(elf);
  struct Case {
    const char* name;
    size_t at;
    uint64_t value;
    int width;
  };
  const Case cases[] = {
      {"phoff_huge", offsetof(Elf64_Ehdr, e_phoff), 0xffffffffffff0000, 8},
      {"phoff_past_end", offsetof(Elf64_Ehdr, e_phoff), elf.size() - 8, 8},
      {"shoff_huge", offsetof(Elf64_Ehdr, e_shoff), 0xfffffffffffff000, 8},
      {"shoff_past_end", offsetof(Elf64_Ehdr, e_shoff), elf.size(), 8},
      {"shoff_misaligned", offsetof(Elf64_Ehdr, e_shoff),
       Header(elf).e_shoff + 3, 8},
      {"shnum_huge", offsetof(Elf64_Ehdr, e_shnum), 0xfeff, 2},
      {"shentsize_wrong", offsetof(Elf64_Ehdr, e_shentsize), 10, 2},
      {"phentsize_wrong", offsetof(Elf64_Ehdr, e_phentsize), 10, 2},
      {"phnum_huge", offsetof(Elf64_Ehdr, e_phnum), 0xffff, 2},
      {"shstrndx_out_of_range", offsetof(Elf64_Ehdr, e_shstrndx), 500, 2},
      {"class_32_on_64", EI_CLASS, ELFCLASS32, 1},
      {"class_invalid", EI_CLASS, 7, 1},
      {"data_big_endian", EI_DATA, ELFDATA2MSB, 1},
      {"data_invalid", EI_DATA, 9, 1},
  };
  for (const Case& c : cases) {
    std::string bytes = elf;
    switch (c.width) {
      case 1:
        bytes[c.at] = static_cast<char>(c.value);
        break;
      case 2:
        Set<uint16_t>(&bytes, c.at, static_cast<uint16_t>(c.value));
        break;
      case 8:
        Set<uint64_t>(&bytes, c.at, c.value);
        break;
    }
    ExpectRejected(bytes, c.name);
  }
}

TEST(ElfRobustnessTest, BrokenSectionsSymbolsRelocationsNotes) {
  REQUIRE_ORIGINAL(elf);
  const size_t symtab = SectionHeaderOffset(elf, ".symtab");
  const size_t rela_plt = SectionHeaderOffset(elf, ".rela.plt");
  const size_t plt = SectionHeaderOffset(elf, ".plt");
  const size_t note = SectionHeaderOffset(elf, ".note.gnu.build-id");
  const auto sym_sh = Get<Elf64_Shdr>(elf, symtab);
  const auto note_sh = Get<Elf64_Shdr>(elf, note);
  // A FUNC symbol of .symtab, to corrupt.
  size_t func_sym = 0;
  for (size_t at = sym_sh.sh_offset + sizeof(Elf64_Sym);
       at < sym_sh.sh_offset + sym_sh.sh_size; at += sizeof(Elf64_Sym)) {
    const auto sym = Get<Elf64_Sym>(elf, at);
    if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx != 0) {
      func_sym = at;
      break;
    }
  }
  ASSERT_NE(func_sym, 0u);

  auto with = [&](size_t at, auto value) {
    std::string bytes = elf;
    Set(&bytes, at, value);
    return bytes;
  };
  ExpectRejected(
      with(symtab + offsetof(Elf64_Shdr, sh_offset), uint64_t{0x7fffffff0000}),
      "symtab_offset");
  ExpectRejected(
      with(symtab + offsetof(Elf64_Shdr, sh_size), uint64_t{0x7fffffff0000}),
      "symtab_size");
  ExpectRejected(with(symtab + offsetof(Elf64_Shdr, sh_entsize), uint64_t{7}),
                 "symtab_entsize");
  ExpectRejected(with(symtab + offsetof(Elf64_Shdr, sh_link), uint32_t{0}),
                 "symtab_link");
  ExpectRejected(
      with(func_sym + offsetof(Elf64_Sym, st_name), uint32_t{0x7fffffff}),
      "symbol_name");
  ExpectRejected(
      with(func_sym + offsetof(Elf64_Sym, st_shndx), uint16_t{0xf000}),
      "symbol_section");
  ExpectRejected(with(rela_plt + offsetof(Elf64_Shdr, sh_link), uint32_t{1}),
                 "rela_plt_link");
  ExpectRejected(with(rela_plt + offsetof(Elf64_Shdr, sh_offset),
                      uint64_t{0x7fffffff0000}),
                 "rela_plt_offset");
  ExpectRejected(
      with(plt + offsetof(Elf64_Shdr, sh_size), uint64_t{0x7fffffff0000}),
      "plt_size");
  // A note claiming more descriptor bytes than the section holds.
  ExpectRejected(with(note_sh.sh_offset + offsetof(Elf64_Nhdr, n_descsz),
                      uint32_t{0x10000}),
                 "note_descsz");
  // PT_LOAD claiming more file bytes than there are.
  const Elf64_Ehdr eh = Header(elf);
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (Get<Elf64_Phdr>(elf, at).p_type == PT_LOAD) {
      ExpectRejected(
          with(at + offsetof(Elf64_Phdr, p_filesz), uint64_t{0x7fffffff0000}),
          "load_filesz");
      break;
    }
  }
  // A directory or a text file where an image should be.
  SymbolizerOptions options;
  options.sysroot = st::BuildDir() + "/none";
  auto symbolizer = Symbolizer::Create(options);
  EXPECT_FALSE(symbolizer->AddImage(1, st::BuildDir(), "/bin/dir").ok());
  EXPECT_THAT(
      std::string(
          symbolizer->AddImage(2, st::TestSource("functions.c"), "/bin/text")
              .message()),
      HasSubstr("not an ELF file"));
  EXPECT_EQ(symbolizer->Symbolize(2, 0x10)[0].function, "[text+0x10]");
}

TEST(ElfRobustnessTest, GarbageDwarfIsCountedNotFatal) {
  REQUIRE_ORIGINAL(elf);
  std::string bytes = elf;
  const auto info =
      Get<Elf64_Shdr>(elf, SectionHeaderOffset(elf, ".debug_info"));
  for (size_t i = 0; i < info.sh_size; ++i) {
    bytes[info.sh_offset + i] = static_cast<char>(0xa5 ^ (i * 7));
  }
  const std::string path = st::BuildDir() + "/garbage_dwarf";
  ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
  SymbolizerOptions options;
  options.sysroot = st::BuildDir() + "/none";
  auto symbolizer = Symbolizer::Create(options);
  ASSERT_TRUE(symbolizer->AddImage(1, path, "/bin/garbage_dwarf").ok());
  for (const st::RefSymbol& s : st::ReadFunctionSymbols(path, ".symtab")) {
    const std::vector<Frame>& frames = symbolizer->Symbolize(1, s.value);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().function,
              symbolizer->FunctionFor(1, s.value)->name);
  }
  EXPECT_GT(symbolizer->GetImageInfo(1)->dwarf_errors, 0u);
  EXPECT_TRUE(Probe(bytes).ok());
}

// Found by fuzz/elf_symbolize_fuzzer: a compressed section whose header
// declares gigabytes made LLVM allocate them before decompressing. Such a
// section is an error counted for the image; symbols still work.
TEST(ElfRobustnessTest, CompressedSectionDeclaringGigabytesIsCounted) {
  REQUIRE_ORIGINAL(elf);
  std::string bytes = elf;
  const size_t header = SectionHeaderOffset(elf, ".debug_str");
  auto sh = Get<Elf64_Shdr>(elf, header);
  ASSERT_GE(sh.sh_size, sizeof(Elf64_Chdr));
  sh.sh_flags |= SHF_COMPRESSED;
  Set(&bytes, header, sh);
  Elf64_Chdr chdr = {};
  chdr.ch_type = ELFCOMPRESS_ZLIB;
  chdr.ch_size = 0x600000001;
  chdr.ch_addralign = 1;
  Set(&bytes, sh.sh_offset, chdr);
  const std::string path = st::BuildDir() + "/huge_compressed";
  ASSERT_TRUE(WriteFileAtomically(path, bytes).ok());
  SymbolizerOptions options;
  options.sysroot = st::BuildDir() + "/none";
  auto symbolizer = Symbolizer::Create(options);
  ASSERT_TRUE(symbolizer->AddImage(1, path, "/bin/huge_compressed").ok());
  for (const st::RefSymbol& s : st::ReadFunctionSymbols(path, ".symtab")) {
    const std::vector<Frame>& frames = symbolizer->Symbolize(1, s.value);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().function,
              symbolizer->FunctionFor(1, s.value)->name);
  }
  EXPECT_GT(symbolizer->GetImageInfo(1)->dwarf_errors, 0u);
  EXPECT_THAT(symbolizer->GetImageInfo(1)->first_dwarf_error,
              HasSubstr("compressed section .debug_str"));
  EXPECT_THAT(symbolizer->GetImageInfo(1)->first_dwarf_error,
              HasSubstr("declares 25769803777 bytes"));
  EXPECT_TRUE(Probe(bytes).ok());
}

TEST(ElfRobustnessTest, RandomByteFlipsNeverCrash) {
  REQUIRE_ORIGINAL(elf);
  const Elf64_Ehdr eh = Header(elf);
  std::mt19937_64 rng(777);
  // Where structure lives: headers, the section header table, symbol and
  // string tables, relocations, PLT, notes, DWARF.
  std::vector<std::pair<size_t, size_t>> regions = {
      {0, sizeof(Elf64_Ehdr)},
      {eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr)},
      {eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr)}};
  for (const char* name :
       {".symtab", ".strtab", ".dynsym", ".dynstr", ".rela.plt", ".rela.dyn",
        ".plt", ".plt.got", ".note.gnu.build-id", ".debug_info",
        ".debug_abbrev", ".debug_line", ".debug_aranges", ".debug_str",
        ".debug_rnglists", ".debug_line_str"}) {
    const auto sh = Get<Elf64_Shdr>(elf, SectionHeaderOffset(elf, name));
    regions.push_back({sh.sh_offset, sh.sh_size});
  }
  int loaded = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = elf;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) {
      const auto& [start, size] = regions[rng() % regions.size()];
      if (size == 0) continue;
      bytes[start + rng() % size] = static_cast<char>(rng());
    }
    if (Probe(bytes).ok()) ++loaded;
  }
  // Most flips hit bytes the loader tolerates (names, DWARF, padding).
  EXPECT_GT(loaded, 100);
}

}  // namespace
}  // namespace hwt::symbolizer
