// Tests of the memory model: reading code through regions (file offsets,
// zero fill, adjacent regions), replaying a buffer's changes by position,
// overlaps, resets and the generation counter caches rely on.
#include "decoders/memory_image.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace hwt {
namespace {

using capture::AddressSpaceChange;

class MemoryImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-memory-image-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    timeline_.SetBufferCount(1);
  }

  // A file of `size` bytes where byte i is (seed + i) & 0xff.
  uint32_t AddImage(uint8_t seed, size_t size, bool elf = true) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(seed + i);
    const std::string file =
        absl::StrFormat("%s/image-%u", dir_->path(), timeline_.images().size());
    EXPECT_TRUE(WriteFileAtomically(file, data).ok());
    capture::Image image;
    image.recorded_path = file;
    image.file = file;
    image.is_elf = elf;
    return timeline_.AddImage(image);
  }

  uint32_t AddRegion(uint32_t image, uint64_t start, uint64_t end,
                     uint64_t file_offset, uint64_t file_size) {
    capture::Region region;
    region.image = image;
    region.start = start;
    region.end = end;
    region.file_offset = file_offset;
    region.file_size = file_size;
    return timeline_.AddRegion(region);
  }

  void Change(AddressSpaceChange::Kind kind, uint64_t position,
              uint32_t region = 0) {
    AddressSpaceChange change;
    change.kind = kind;
    change.position = position;
    change.region = region;
    timeline_.AddChange(0, change);
  }

  std::vector<uint8_t> Read(const MemoryImage& memory, uint64_t address,
                            size_t size) {
    std::vector<uint8_t> out(size);
    out.resize(memory.Read(address, out.data(), size));
    return out;
  }

  std::unique_ptr<TempDir> dir_;
  capture::AddressSpaceTimeline timeline_;
};

TEST_F(MemoryImageTest, ReadsFileBytesAndZeroFill) {
  const uint32_t image = AddImage(0x10, 64);
  // 16 file bytes from offset 8 at 0x1000, then 16 bytes of zero fill.
  const uint32_t region = AddRegion(image, 0x1000, 0x1020, 8, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(region);
  EXPECT_EQ(Read(memory, 0x1000, 3), (std::vector<uint8_t>{0x18, 0x19, 0x1a}));
  EXPECT_EQ(Read(memory, 0x100e, 4), (std::vector<uint8_t>{0x26, 0x27, 0, 0}));
  EXPECT_EQ(Read(memory, 0x101e, 8).size(), 2u);  // stops at the region end
  EXPECT_TRUE(Read(memory, 0xfff, 1).empty());
  EXPECT_EQ(memory.RegionAt(0x101f), region);
  EXPECT_FALSE(memory.RegionAt(0x1020).has_value());
}

TEST_F(MemoryImageTest, ReadsAcrossAdjacentRegions) {
  const uint32_t a = AddRegion(AddImage(0x00, 16), 0x2000, 0x2010, 0, 16);
  const uint32_t b = AddRegion(AddImage(0x80, 16), 0x2010, 0x2020, 0, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(a);
  memory.Map(b);
  // An instruction that straddles the two sections.
  EXPECT_EQ(Read(memory, 0x200e, 4),
            (std::vector<uint8_t>{0x0e, 0x0f, 0x80, 0x81}));
}

TEST_F(MemoryImageTest, MissingFileReadsNothing) {
  capture::Image image;
  image.recorded_path = "/no/such/file";
  const uint32_t region =
      AddRegion(timeline_.AddImage(image), 0x3000, 0x3010, 0, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(region);
  EXPECT_TRUE(Read(memory, 0x3000, 4).empty());
  EXPECT_EQ(memory.RegionAt(0x3000), region);
}

TEST_F(MemoryImageTest, ReplaysChangesByPosition) {
  const uint32_t old_region =
      AddRegion(AddImage(0x00, 32), 0x1000, 0x1020, 0, 32);
  const uint32_t new_region =
      AddRegion(AddImage(0x40, 32), 0x1000, 0x1020, 0, 32);
  const uint32_t other = AddRegion(AddImage(0xa0, 16), 0x5000, 0x5010, 0, 16);
  Change(AddressSpaceChange::Kind::kMap, 0, old_region);
  Change(AddressSpaceChange::Kind::kMap, 0, other);
  Change(AddressSpaceChange::Kind::kResetUser, 100);
  Change(AddressSpaceChange::Kind::kMap, 100, new_region);
  Change(AddressSpaceChange::Kind::kUnmap, 200, other);
  MemoryImage memory(timeline_, 0, nullptr);
  EXPECT_TRUE(memory.AdvanceTo(0));
  EXPECT_EQ(Read(memory, 0x1000, 1), (std::vector<uint8_t>{0x00}));
  const uint64_t generation = memory.generation();
  EXPECT_FALSE(memory.AdvanceTo(99));
  EXPECT_TRUE(memory.AdvanceTo(150));
  EXPECT_NE(memory.generation(), generation);  // code at 0x1000 replaced
  EXPECT_EQ(Read(memory, 0x1000, 1), (std::vector<uint8_t>{0x40}));
  // The ELF images are user mappings: the reset removed `other` as well.
  EXPECT_TRUE(Read(memory, 0x5000, 1).empty());
  EXPECT_EQ(memory.mapped_regions(), (std::vector<uint32_t>{new_region}));
  memory.Rewind();
  EXPECT_TRUE(memory.mapped_regions().empty());
  memory.AdvanceTo(50);
  EXPECT_EQ(Read(memory, 0x5000, 1), (std::vector<uint8_t>{0xa0}));
}

TEST_F(MemoryImageTest, ResetKeepsRawDumps) {
  const uint32_t dump =
      AddRegion(AddImage(0x11, 16, /*elf=*/false), 0x9000, 0x9010, 0, 16);
  Change(AddressSpaceChange::Kind::kMap, 0, dump);
  Change(AddressSpaceChange::Kind::kResetUser, 10);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.AdvanceTo(20);
  EXPECT_EQ(Read(memory, 0x9000, 1), (std::vector<uint8_t>{0x11}));
}

TEST_F(MemoryImageTest, LaterMappingsHideWhatTheyOverlap) {
  const uint32_t big = AddRegion(AddImage(0x00, 64), 0x1000, 0x1040, 0, 64);
  const uint32_t small = AddRegion(AddImage(0x80, 16), 0x1010, 0x1020, 0, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(big);
  const uint64_t generation = memory.generation();
  memory.Map(small);
  EXPECT_NE(memory.generation(), generation);
  EXPECT_EQ(Read(memory, 0x100f, 3), (std::vector<uint8_t>{0x0f, 0x80, 0x81}));
  EXPECT_EQ(Read(memory, 0x1020, 1), (std::vector<uint8_t>{0x20}));
  EXPECT_EQ(memory.RegionAt(0x1015), small);
  EXPECT_EQ(memory.RegionAt(0x1025), big);
  memory.Unmap(small);
  EXPECT_TRUE(Read(memory, 0x1015, 1).empty());  // the hidden part is gone
  EXPECT_EQ(Read(memory, 0x1000, 1), (std::vector<uint8_t>{0x00}));
}

TEST_F(MemoryImageTest, ImageFilesAreMappedOncePerCache) {
  const uint32_t image = AddImage(0x00, 16);
  auto files = std::make_shared<ImageFileCache>();
  auto first = files->Get(timeline_.images()[image].file);
  auto second = files->Get(timeline_.images()[image].file);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, *second);
  auto missing = files->Get(dir_->path() + "/missing");
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing"), std::string::npos);
}

}  // namespace
}  // namespace hwt
