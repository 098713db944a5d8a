// Tests the ELF reader against readelf's view of real system binaries and
// against malformed inputs (every truncation, random bytes).
#include "capture/elf_file.h"

#include <random>
#include <regex>

#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

const char* kProgram = "/usr/bin/true";

TEST(ElfFileTest, ReadsSystemProgramLikeReadelf) {
  auto info = ReadElfFile(kProgram);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_TRUE(info->is_64);
  EXPECT_EQ(info->machine, 62);
  EXPECT_FALSE(info->ExecutableLoads().empty());

  // readelf -n prints "Build ID: <hex>"; readelf -l the interpreter.
  auto notes = hwt::testing::RunCommand({"readelf", "-n", kProgram});
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(notes.out, m, std::regex("Build ID: ([0-9a-f]+)")))
      << notes.out << notes.err;
  EXPECT_EQ(info->build_id, m[1].str());
  auto headers = hwt::testing::RunCommand({"readelf", "-lW", kProgram});
  ASSERT_TRUE(std::regex_search(
      headers.out, m,
      std::regex("Requesting program interpreter: ([^\\]]+)\\]")));
  EXPECT_EQ(info->interpreter, m[1].str());
  // Every "LOAD ... R E" line is an executable load with that offset/vaddr.
  std::regex load(
      "LOAD +0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+) "
      "0x([0-9a-f]+) ([RWE ]+) ");
  std::vector<ElfSegment> expected;
  for (auto it =
           std::sregex_iterator(headers.out.begin(), headers.out.end(), load);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[5].str().find('E') == std::string::npos) continue;
    ElfSegment s;
    s.offset = std::stoull((*it)[1].str(), nullptr, 16);
    s.vaddr = std::stoull((*it)[2].str(), nullptr, 16);
    s.filesz = std::stoull((*it)[3].str(), nullptr, 16);
    s.memsz = std::stoull((*it)[4].str(), nullptr, 16);
    expected.push_back(s);
  }
  auto loads = info->ExecutableLoads();
  ASSERT_EQ(loads.size(), expected.size());
  for (size_t i = 0; i < loads.size(); ++i) {
    EXPECT_EQ(loads[i].offset, expected[i].offset);
    EXPECT_EQ(loads[i].vaddr, expected[i].vaddr);
    EXPECT_EQ(loads[i].filesz, expected[i].filesz);
    EXPECT_EQ(loads[i].memsz, expected[i].memsz);
  }
}

TEST(ElfFileTest, EveryTruncationIsAnErrorOrConsistent) {
  auto file = MappedFile::Open(kProgram);
  ASSERT_TRUE(file.ok());
  size_t limit = std::min<size_t>(file->size(), 8192);
  for (size_t n = 0; n < limit; ++n) {
    auto info = ParseElf(file->bytes().subspan(0, n), "truncated");
    if (!info.ok()) {
      EXPECT_NE(info.status().message().find("truncated"), std::string::npos);
    }
  }
}

TEST(ElfFileTest, RandomBytesAreRejected) {
  std::mt19937 rng(42);
  std::vector<uint8_t> bytes(4096);
  for (int round = 0; round < 200; ++round) {
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    if (round % 2 == 0) {
      // Valid magic and class, garbage after it.
      const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
      std::copy(std::begin(ident), std::end(ident), bytes.begin());
    }
    auto info = ParseElf(bytes, "random");
    (void)info;  // Must not crash; either outcome is fine.
  }
  auto info = ParseElf(std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o'}, "text");
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().message(),
            "text: not an ELF file (no ELF magic at offset 0)");
}

TEST(ElfFileTest, AbsurdProgramHeaderOffsetIsReported) {
  auto file = MappedFile::Open(kProgram);
  ASSERT_TRUE(file.ok());
  std::vector<uint8_t> bytes(file->data(), file->data() + 4096);
  uint64_t phoff = 0x7fffffffffffff00ull;
  memcpy(bytes.data() + 32, &phoff, 8);
  auto info = ParseElf(bytes, "bad-phoff");
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("program headers at offset"),
            std::string::npos)
      << info.status();
}

// Found by fuzz/elf_file_fuzzer: a PT_LOAD whose end is beyond 2^64.
TEST(ElfFileTest, SegmentWrappingAroundTheAddressSpaceIsReported) {
  auto file = MappedFile::Open(kProgram);
  ASSERT_TRUE(file.ok());
  std::vector<uint8_t> bytes(file->data(), file->data() + file->size());
  uint64_t phoff = 0;
  uint16_t phnum = 0;
  memcpy(&phoff, bytes.data() + 32, 8);
  memcpy(&phnum, bytes.data() + 56, 2);
  bool patched = false;
  for (uint16_t i = 0; i < phnum && !patched; ++i) {
    uint8_t* header = bytes.data() + phoff + i * 56u;
    uint32_t type = 0;
    memcpy(&type, header, 4);
    if (type != 1 /* PT_LOAD */) continue;
    const uint64_t vaddr = 0xfffffffffffff000ull;
    const uint64_t memsz = 0x2000;
    memcpy(header + 16, &vaddr, 8);
    memcpy(header + 40, &memsz, 8);
    patched = true;
  }
  ASSERT_TRUE(patched);
  auto info = ParseElf(bytes, "wrapping");
  ASSERT_FALSE(info.ok());
  EXPECT_NE(
      info.status().message().find("wrapping: malformed ELF: PT_LOAD segment"),
      std::string::npos)
      << info.status();
  EXPECT_NE(info.status().message().find("wraps around the address space"),
            std::string::npos)
      << info.status();
}

}  // namespace
}  // namespace hwt::capture
