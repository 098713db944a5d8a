// Tests of the memory model: reading code through regions (file offsets,
// zero fill, adjacent regions, reads that stop at a region's end), replaying
// a buffer's changes by position, overlaps, unmapping, memory spaces, missing
// and short files, resets, the generation counter caches rely on, and the
// region file bytes block expansion reads.
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
                     uint64_t file_offset, uint64_t file_size,
                     capture::MemorySpace space = capture::MemorySpace::kAny) {
    capture::Region region;
    region.space = space;
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

  // A file of exactly `bytes` (none written when empty: a missing file).
  uint32_t AddNamedImage(const std::string& name, const std::string& bytes) {
    capture::Image image;
    image.recorded_path = name;
    if (!bytes.empty()) {
      image.file = dir_->path() + "/" + name;
      EXPECT_TRUE(WriteFileAtomically(image.file, bytes).ok());
    } else {
      image.file = dir_->path() + "/missing-" + name;
    }
    image.is_elf = false;
    return timeline_.AddImage(image);
  }

  // One region read as OpenCSD's accessor does: in `spaces`, up to the end
  // of the region the read starts in.
  std::string ReadOne(const MemoryImage& memory, uint64_t address, size_t size,
                      SpaceMask spaces = kSpaceEL1N) {
    std::string out(size, '?');
    out.resize(memory.Read(address, reinterpret_cast<uint8_t*>(out.data()),
                           size, spaces, ReadExtent::kOneRegion));
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

// The cases below were the CoreSight decoder's own memory view's (OpenCSD
// reads one region per request, in the memory spaces it asks for).

TEST_F(MemoryImageTest, OneRegionReadsFileBytesAndZeroFill) {
  const uint32_t a = AddNamedImage("a.bin", "0123456789abcdef");
  // "456789ab" then 8 zero bytes.
  const uint32_t region = AddRegion(a, 0x1000, 0x1010, 4, 8);
  Change(AddressSpaceChange::Kind::kMap, 0, region);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.AdvanceTo(0);
  EXPECT_EQ(ReadOne(memory, 0x1000, 4), "4567");
  EXPECT_EQ(ReadOne(memory, 0x1006, 4), std::string("ab\0\0", 4));
  EXPECT_EQ(ReadOne(memory, 0x100e, 4), std::string(2, '\0'));  // region end
  EXPECT_EQ(ReadOne(memory, 0x1010, 4), "");
  EXPECT_EQ(ReadOne(memory, 0xfff, 4), "");
  EXPECT_EQ(memory.RegionAt(0x1003), region);
  EXPECT_FALSE(memory.RegionAt(0x2000).has_value());
}

TEST_F(MemoryImageTest, OneRegionReadStopsAtTheCutOfALaterMapping) {
  const uint32_t a = AddNamedImage("a.bin", std::string(32, 'a'));
  const uint32_t b = AddNamedImage("b.bin", std::string(8, 'b'));
  Change(AddressSpaceChange::Kind::kMap, 0,
         AddRegion(a, 0x1000, 0x1020, 0, 32));
  const uint32_t rb = AddRegion(b, 0x1008, 0x1010, 0, 8);
  Change(AddressSpaceChange::Kind::kMap, 0, rb);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.AdvanceTo(0);
  EXPECT_EQ(ReadOne(memory, 0x1004, 4), "aaaa");
  EXPECT_EQ(ReadOne(memory, 0x1006, 4), "aa");  // stops at the cut
  EXPECT_EQ(ReadOne(memory, 0x1008, 4), "bbbb");
  EXPECT_EQ(ReadOne(memory, 0x1010, 4), "aaaa");
  EXPECT_EQ(memory.RegionAt(0x100c), rb);
  // Read as the CPU does, the same bytes continue into the later mapping.
  EXPECT_EQ(Read(memory, 0x1006, 4),
            (std::vector<uint8_t>{'a', 'a', 'b', 'b'}));
}

TEST_F(MemoryImageTest, MemorySpacesAndUnmapping) {
  const uint32_t s = AddNamedImage("s.bin", std::string(16, 's'));
  const uint32_t n = AddNamedImage("n.bin", std::string(16, 'n'));
  const uint32_t rs =
      AddRegion(s, 0x1000, 0x1010, 0, 16, capture::MemorySpace::kSecure);
  const uint32_t rn =
      AddRegion(n, 0x1000, 0x1010, 0, 16, capture::MemorySpace::kEL1N);
  Change(AddressSpaceChange::Kind::kMap, 0, rs);
  Change(AddressSpaceChange::Kind::kMap, 0, rn);
  Change(AddressSpaceChange::Kind::kUnmap, 0x40, rs);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.AdvanceTo(0);
  EXPECT_EQ(memory.next_change_position(), 0x40u);
  // A mapping in one space does not hide another space's code.
  EXPECT_EQ(ReadOne(memory, 0x1000, 2, kSpaceEL1N), "nn");
  EXPECT_EQ(ReadOne(memory, 0x1000, 2, kSpaceEL1S), "ss");
  EXPECT_EQ(ReadOne(memory, 0x1000, 2, kSpaceEL2N), "");
  EXPECT_EQ(memory.RegionAt(0x1000, kSpaceNonSecure), rn);
  EXPECT_EQ(memory.RegionAt(0x1000, kSpaceEL3), rs);
  memory.AdvanceTo(0x40);
  EXPECT_EQ(memory.next_change_position(), UINT64_MAX);
  EXPECT_EQ(ReadOne(memory, 0x1000, 2, kSpaceEL1S), "");
  EXPECT_EQ(ReadOne(memory, 0x1000, 2, kSpaceEL1N), "nn");
  EXPECT_FALSE(memory.RegionAt(0x1000, kSpaceSecure).has_value());
}

TEST_F(MemoryImageTest, AnySpaceRegionServesEverySpace) {
  const uint32_t any = AddRegion(AddImage(0x30, 16), 0x4000, 0x4010, 0, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(any);
  EXPECT_EQ(ReadOne(memory, 0x4000, 1, kSpaceEL3), "\x30");
  EXPECT_EQ(ReadOne(memory, 0x4001, 1, kSpaceEL1N), "\x31");
}

TEST_F(MemoryImageTest, MissingOrShortFilesAreInaccessible) {
  const uint32_t gone = AddNamedImage("gone.bin", "");
  const uint32_t shorty = AddNamedImage("short.bin", "xy");
  Change(AddressSpaceChange::Kind::kMap, 0,
         AddRegion(gone, 0x1000, 0x1010, 0, 16));
  // Says 8 file bytes; the file has 2.
  Change(AddressSpaceChange::Kind::kMap, 0,
         AddRegion(shorty, 0x2000, 0x2010, 0, 8));
  MemoryImage memory(timeline_, 0, nullptr);
  memory.AdvanceTo(0);
  EXPECT_EQ(ReadOne(memory, 0x1000, 4), "");
  EXPECT_EQ(ReadOne(memory, 0x2000, 4), "xy");
  EXPECT_EQ(ReadOne(memory, 0x2004, 4), "");
  EXPECT_EQ(Read(memory, 0x2000, 4), (std::vector<uint8_t>{'x', 'y'}));
  // Past the file bytes the region is zero fill, file or not.
  EXPECT_EQ(ReadOne(memory, 0x200e, 2), std::string(2, '\0'));
}

TEST_F(MemoryImageTest, GenerationChangesOnlyWhenMappedCodeMayChange) {
  const uint32_t a = AddRegion(AddImage(0x00, 16), 0x1000, 0x1010, 0, 16);
  const uint32_t b = AddRegion(AddImage(0x40, 16), 0x2000, 0x2010, 0, 16);
  const uint32_t over = AddRegion(AddImage(0x80, 16), 0x1008, 0x1018, 0, 16);
  const uint32_t el3 = AddRegion(AddImage(0xc0, 16), 0x2008, 0x2018, 0, 16,
                                 capture::MemorySpace::kEL3);
  MemoryImage memory(timeline_, 0, nullptr);
  uint64_t generation = memory.generation();
  memory.Map(a);
  memory.Map(b);  // new code at unmapped addresses: caches stay valid
  EXPECT_EQ(memory.generation(), generation);
  memory.Map(over);  // over mapped code
  EXPECT_NE(memory.generation(), generation);
  generation = memory.generation();
  memory.Map(el3);  // another space over mapped code: any-space reads change
  EXPECT_NE(memory.generation(), generation);
  generation = memory.generation();
  memory.Unmap(b);
  EXPECT_NE(memory.generation(), generation);
  generation = memory.generation();
  memory.Unmap(b);  // not mapped: nothing changes
  EXPECT_EQ(memory.generation(), generation);
  memory.Rewind();
  EXPECT_NE(memory.generation(), generation);
  generation = memory.generation();
  memory.Rewind();  // already empty
  EXPECT_EQ(memory.generation(), generation);
}

TEST_F(MemoryImageTest, RemappingPutsARegionBackOnTop) {
  const uint32_t low = AddRegion(AddImage(0x00, 32), 0x1000, 0x1020, 0, 32);
  const uint32_t high = AddRegion(AddImage(0x80, 16), 0x1008, 0x1018, 0, 16);
  MemoryImage memory(timeline_, 0, nullptr);
  memory.Map(low);
  memory.Map(high);
  EXPECT_EQ(memory.RegionAt(0x1010), high);
  memory.Map(low);
  EXPECT_EQ(memory.RegionAt(0x1010), low);
  EXPECT_EQ(Read(memory, 0x1010, 1), (std::vector<uint8_t>{0x10}));
  EXPECT_EQ(memory.mapped_regions(), (std::vector<uint32_t>{high, low}));
}

TEST_F(MemoryImageTest, RegionFileBytesAreTheFileBytesOfTheRegion) {
  const uint32_t image = AddImage(0x10, 32);
  const uint32_t region = AddRegion(image, 0x1000, 0x1100, 8, 64);
  ImageFileCache files;
  auto bytes = RegionFileBytes(timeline_, region, files);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_EQ(bytes->size(), 24u);  // cut at the end of the 32-byte file
  EXPECT_EQ((*bytes)[0], 0x18);
  EXPECT_FALSE(RegionFileBytes(timeline_, 99, files).ok());
  capture::Image missing;
  missing.recorded_path = "/lib/gone.so";
  const uint32_t none =
      AddRegion(timeline_.AddImage(missing), 0x5000, 0x5010, 0, 16);
  auto error = RegionFileBytes(timeline_, none, files);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(), "image /lib/gone.so not found");
}

TEST(SpaceMaskTest, Spaces) {
  EXPECT_EQ(SpaceMaskOf(capture::MemorySpace::kAny), kSpaceAny);
  EXPECT_EQ(SpaceMaskOf(capture::MemorySpace::kEL1S), kSpaceEL1S);
  EXPECT_EQ(SpaceMaskOf(capture::MemorySpace::kEL2N), kSpaceEL2N);
  EXPECT_EQ(SpaceMaskOf(capture::MemorySpace::kNonSecure), kSpaceNonSecure);
  EXPECT_EQ(SpaceMaskOf(capture::MemorySpace::kSecure), kSpaceSecure);
  EXPECT_EQ(kSpaceSecure & kSpaceEL3, kSpaceEL3);
  EXPECT_EQ(kSpaceNonSecure & kSpaceSecure, 0u);
}

}  // namespace
}  // namespace hwt
