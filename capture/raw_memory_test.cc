// Tests raw memory as an image: a byte file at an address, and the
// kAFL/libxdc page cache pair (STEM.addr + STEM.dump), with the errors a
// malformed pair or a missing address gets.
#include "capture/raw_memory.h"

#include <cstring>
#include <fstream>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

class RawMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("raw-memory-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = dir_->path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string Addresses(const std::vector<uint64_t>& addresses) {
    std::string bytes(addresses.size() * 8, '\0');
    for (size_t i = 0; i < addresses.size(); ++i) {
      std::memcpy(bytes.data() + i * 8, &addresses[i], 8);
    }
    return bytes;
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(RawMemoryTest, PageCacheBecomesOneDumpPerPageInFileOrder) {
  Write("pages.addr", Addresses({0x7000, 0x400000, 0x5000}));
  std::string dump = Write("pages.dump", std::string(3 * 4096, '\x90'));
  for (const char* named : {"pages.addr", "pages.dump"}) {
    ImageSpec spec{dir_->path() + "/" + named};
    auto memory = RawMemoryOfImage(spec);
    ASSERT_TRUE(memory.ok()) << memory.status();
    ASSERT_TRUE(memory->has_value());
    const std::vector<MemoryDump>& dumps = **memory;
    ASSERT_EQ(dumps.size(), 3u);
    const uint64_t expected[] = {0x7000, 0x400000, 0x5000};
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(dumps[i].file, dump);
      EXPECT_EQ(dumps[i].address, expected[i]);
      EXPECT_EQ(dumps[i].file_offset, i * 4096);
      EXPECT_EQ(dumps[i].size, 4096u);
    }
  }
}

TEST_F(RawMemoryTest, PageCacheWhoseFilesDisagreeIsRefusedNamingBoth) {
  std::string addr = Write("short.addr", Addresses({0x1000, 0x2000}));
  std::string dump = Write("short.dump", std::string(4096, '\0'));
  auto memory = ReadPageCache(addr, dump);
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find(addr), std::string::npos);
  EXPECT_NE(memory.status().message().find(dump), std::string::npos);
  EXPECT_NE(memory.status().message().find("4096"), std::string::npos);

  Write("odd.addr", std::string(12, '\0'));
  Write("odd.dump", std::string(4096, '\0'));
  memory =
      ReadPageCache(dir_->path() + "/odd.addr", dir_->path() + "/odd.dump");
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find("12 bytes"), std::string::npos);
}

TEST_F(RawMemoryTest, PageCacheEntryErrorsNameTheirOffset) {
  std::string addr = Write("bad.addr", Addresses({0x1000, 0x2010}));
  std::string dump = Write("bad.dump", std::string(2 * 4096, '\0'));
  auto memory = ReadPageCache(addr, dump);
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find("offset 8"), std::string::npos)
      << memory.status();
  EXPECT_NE(memory.status().message().find("not 4 KiB aligned"),
            std::string::npos);

  addr = Write("twice.addr", Addresses({0x1000, 0x1000}));
  dump = Write("twice.dump", std::string(2 * 4096, '\0'));
  memory = ReadPageCache(addr, dump);
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find("given twice"), std::string::npos);
}

TEST_F(RawMemoryTest, PageCacheTakesNoAddress) {
  Write("p.addr", Addresses({0x1000}));
  Write("p.dump", std::string(4096, '\0'));
  ImageSpec spec{dir_->path() + "/p.dump", 0x1000, true};
  EXPECT_FALSE(RawMemoryOfImage(spec).ok());
}

TEST_F(RawMemoryTest, ByteFileAtItsAddress) {
  std::string code = Write("code.bin", "\x55\x48\x89\xe5\xc3");
  auto memory = RawMemoryOfImage(ImageSpec{code, 0x401000, true});
  ASSERT_TRUE(memory.ok()) << memory.status();
  ASSERT_TRUE(memory->has_value());
  ASSERT_EQ((*memory)->size(), 1u);
  EXPECT_EQ((**memory)[0].address, 0x401000u);
  EXPECT_EQ((**memory)[0].file_offset, 0u);
  EXPECT_EQ((**memory)[0].size, 5u);
}

TEST_F(RawMemoryTest, ByteFileWithoutAddressOrEmptyIsRefused) {
  std::string code = Write("code.bin", "\x55\xc3");
  auto memory = RawMemoryOfImage(ImageSpec{code});
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.status().message().find(code + "@ADDRESS"),
            std::string::npos)
      << memory.status();
  std::string empty = Write("empty.bin", "");
  EXPECT_FALSE(RawMemoryOfImage(ImageSpec{empty, 0x1000, true}).ok());
}

TEST_F(RawMemoryTest, ElfFilesAndUnreadableFilesAreLeftToTheElfPath) {
  std::string elf = Write("prog", std::string("\x7f"
                                              "ELF",
                                              4) +
                                      std::string(60, '\0'));
  auto memory = RawMemoryOfImage(ImageSpec{elf, 0x1000, true});
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_FALSE(memory->has_value());
  memory = RawMemoryOfImage(ImageSpec{dir_->path() + "/missing"});
  ASSERT_TRUE(memory.ok());
  EXPECT_FALSE(memory->has_value());
}

}  // namespace
}  // namespace hwt::capture
