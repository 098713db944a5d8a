// The CoreSight decoder's code memory: regions of a hand-built timeline over
// files written here (overlaps, memory spaces, zero fill, unmapping at a
// trace position, missing files).
#include "decoders/coresight/memory_view.h"

#include <string>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

class MemoryViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-memview-test");
    ASSERT_TRUE(dir.ok());
    dir_.emplace(std::move(*dir));
    timeline_.SetBufferCount(1);
  }

  uint32_t Image(const std::string& name, const std::string& bytes) {
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

  uint32_t Map(uint32_t image, uint64_t start, uint64_t end,
               uint64_t file_offset, uint64_t file_size, uint64_t position,
               capture::MemorySpace space = capture::MemorySpace::kAny) {
    capture::Region r;
    r.image = image;
    r.start = start;
    r.end = end;
    r.file_offset = file_offset;
    r.file_size = file_size;
    r.space = space;
    uint32_t id = timeline_.AddRegion(r);
    timeline_.AddChange(
        0, {capture::AddressSpaceChange::Kind::kMap, position, id});
    return id;
  }

  std::string Read(MemoryView& view, uint64_t address, uint32_t size,
                   ocsd_mem_space_acc_t space = OCSD_MEM_SPACE_EL1N) {
    std::string out(size, '?');
    uint32_t n =
        view.Read(address, space, size, reinterpret_cast<uint8_t*>(out.data()));
    out.resize(n);
    return out;
  }

  std::optional<TempDir> dir_;
  capture::AddressSpaceTimeline timeline_;
};

TEST_F(MemoryViewTest, ReadsFileBytesAndZeroFill) {
  uint32_t a = Image("a.bin", "0123456789abcdef");
  Map(a, 0x1000, 0x1010, 4, 8, 0);  // "456789ab" then 8 zero bytes
  ImageFiles files = ImageFiles::Open(timeline_);
  MemoryView view(timeline_, files, 0);
  view.AdvanceTo(0);
  EXPECT_EQ(Read(view, 0x1000, 4), "4567");
  EXPECT_EQ(Read(view, 0x1006, 4), std::string("ab\0\0", 4));
  EXPECT_EQ(Read(view, 0x100e, 4), std::string(2, '\0'));  // to region end
  EXPECT_EQ(Read(view, 0x1010, 4), "");
  EXPECT_EQ(Read(view, 0xfff, 4), "");
  EXPECT_EQ(view.RegionAt(0x1003), 1u);
  EXPECT_EQ(view.RegionAt(0x2000), 0u);
}

TEST_F(MemoryViewTest, LaterMappingWinsWhereRegionsOverlap) {
  uint32_t a = Image("a.bin", std::string(32, 'a'));
  uint32_t b = Image("b.bin", std::string(8, 'b'));
  Map(a, 0x1000, 0x1020, 0, 32, 0);
  uint32_t rb = Map(b, 0x1008, 0x1010, 0, 8, 0);
  ImageFiles files = ImageFiles::Open(timeline_);
  MemoryView view(timeline_, files, 0);
  view.AdvanceTo(0);
  EXPECT_EQ(Read(view, 0x1004, 4), "aaaa");
  EXPECT_EQ(Read(view, 0x1006, 4), "aa");  // stops at the cut
  EXPECT_EQ(Read(view, 0x1008, 4), "bbbb");
  EXPECT_EQ(Read(view, 0x1010, 4), "aaaa");
  EXPECT_EQ(view.RegionAt(0x100c), rb + 1);
}

TEST_F(MemoryViewTest, MemorySpacesAndUnmapping) {
  uint32_t s = Image("s.bin", std::string(16, 's'));
  uint32_t n = Image("n.bin", std::string(16, 'n'));
  uint32_t rs = Map(s, 0x1000, 0x1010, 0, 16, 0, capture::MemorySpace::kSecure);
  Map(n, 0x1000, 0x1010, 0, 16, 0, capture::MemorySpace::kEL1N);
  timeline_.AddChange(0, {capture::AddressSpaceChange::Kind::kUnmap, 0x40, rs});
  ImageFiles files = ImageFiles::Open(timeline_);
  MemoryView view(timeline_, files, 0);
  EXPECT_EQ(view.AdvanceTo(0), 0x40u);  // the next change
  EXPECT_EQ(Read(view, 0x1000, 2, OCSD_MEM_SPACE_EL1N), "nn");
  EXPECT_EQ(Read(view, 0x1000, 2, OCSD_MEM_SPACE_EL1S), "ss");
  EXPECT_EQ(Read(view, 0x1000, 2, OCSD_MEM_SPACE_EL2), "");
  view.AdvanceTo(0x40);
  EXPECT_EQ(Read(view, 0x1000, 2, OCSD_MEM_SPACE_EL1S), "");
  EXPECT_EQ(Read(view, 0x1000, 2, OCSD_MEM_SPACE_EL1N), "nn");
}

TEST_F(MemoryViewTest, MissingOrShortFilesAreInaccessible) {
  uint32_t gone = Image("gone.bin", "");
  uint32_t shorty = Image("short.bin", "xy");
  Map(gone, 0x1000, 0x1010, 0, 16, 0);
  Map(shorty, 0x2000, 0x2010, 0, 8, 0);  // says 8 bytes, file has 2
  ImageFiles files = ImageFiles::Open(timeline_);
  MemoryView view(timeline_, files, 0);
  view.AdvanceTo(0);
  EXPECT_EQ(Read(view, 0x1000, 4), "");
  EXPECT_EQ(Read(view, 0x2000, 4), "xy");
  EXPECT_EQ(Read(view, 0x2004, 4), "");
}

TEST(OcsdSpaceMaskTest, Spaces) {
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kAny), OCSD_MEM_SPACE_ANY);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kEL2N), OCSD_MEM_SPACE_EL2);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kNonSecure), OCSD_MEM_SPACE_N);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kSecure), OCSD_MEM_SPACE_S);
}

}  // namespace
}  // namespace hwt::coresight
