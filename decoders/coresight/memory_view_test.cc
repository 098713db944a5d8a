// How OpenCSD's memory callback reads the shared memory model: OpenCSD's
// memory-space values select regions by their space, and one read stops at
// the end of the region it starts in (as one OpenCSD accessor does). The
// memory model itself is tested in decoders/memory_image_test.cc.
#include "decoders/coresight/memory_view.h"

#include <string>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt::coresight {
namespace {

TEST(ReadForOpenCsdTest, SpacesAndRegionEnds) {
  auto dir = TempDir::Create("hwt-memview-test");
  ASSERT_TRUE(dir.ok());
  capture::AddressSpaceTimeline timeline;
  timeline.SetBufferCount(1);
  auto add = [&](const std::string& name, char fill, uint64_t start,
                 capture::MemorySpace space) {
    capture::Image image;
    image.recorded_path = name;
    image.file = dir->path() + "/" + name;
    image.is_elf = false;
    EXPECT_TRUE(WriteFileAtomically(image.file, std::string(16, fill)).ok());
    capture::Region region;
    region.image = timeline.AddImage(image);
    region.start = start;
    region.end = start + 16;
    region.file_size = 16;
    region.space = space;
    return timeline.AddRegion(region);
  };
  const uint32_t secure =
      add("s.bin", 's', 0x1000, capture::MemorySpace::kEL1S);
  const uint32_t normal =
      add("n.bin", 'n', 0x1000, capture::MemorySpace::kEL1N);
  const uint32_t next = add("x.bin", 'x', 0x1010, capture::MemorySpace::kEL1N);
  MemoryImage memory(timeline, 0, nullptr);
  memory.Map(secure);
  memory.Map(normal);
  memory.Map(next);
  auto read = [&](uint64_t address, ocsd_mem_space_acc_t space) {
    std::string out(4, '?');
    out.resize(ReadForOpenCsd(memory, address, space, 4,
                              reinterpret_cast<uint8_t*>(out.data())));
    return out;
  };
  EXPECT_EQ(read(0x1000, OCSD_MEM_SPACE_EL1N), "nnnn");
  EXPECT_EQ(read(0x1000, OCSD_MEM_SPACE_S), "ssss");
  EXPECT_EQ(read(0x1000, OCSD_MEM_SPACE_EL2), "");
  EXPECT_EQ(read(0x100e, OCSD_MEM_SPACE_N), "nn");  // not into x.bin
  EXPECT_EQ(read(0x1010, OCSD_MEM_SPACE_ANY), "xxxx");
}

TEST(OcsdSpaceMaskTest, Spaces) {
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kAny), OCSD_MEM_SPACE_ANY);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kEL2N), OCSD_MEM_SPACE_EL2);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kNonSecure), OCSD_MEM_SPACE_N);
  EXPECT_EQ(OcsdSpaceMask(capture::MemorySpace::kSecure), OCSD_MEM_SPACE_S);
}

}  // namespace
}  // namespace hwt::coresight
