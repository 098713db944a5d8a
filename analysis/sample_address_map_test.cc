// The SPE address map replays a hand-built timeline: mappings appear at their
// trace position, unmaps and exec resets remove them, data addresses resolve
// through an image's other PT_LOAD segments, overlaps pick the newest mapping.
#include "analysis/sample_address_map.h"

#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using capture::AddressSpaceChange;

class SampleAddressMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline_.SetBufferCount(2);
    capture::Image app;
    app.recorded_path = "/bin/app";
    app_ = timeline_.AddImage(app);
    capture::Image lib;
    lib.recorded_path = "/lib/libc.so.7";
    lib_ = timeline_.AddImage(lib);
    capture::Image kernel;
    kernel.recorded_path = "/boot/kernel/kernel";
    kernel.kernel = true;
    kernel_ = timeline_.AddImage(kernel);
    app_text_ = timeline_.AddRegion({app_, 0x400000, 0x401000, 0, 0x1000, 0});
    lib_text_ = timeline_.AddRegion(
        {lib_, 0x800010000, 0x800020000, 0x10000, 0x10000, 0x800000000});
    kernel_text_ = timeline_.AddRegion(
        {kernel_, 0xffff000000100000, 0xffff000000200000, 0, 0x100000, 0});
    // Buffer 0: app and kernel from the start, libc from position 100,
    // exec reset at 1000.
    Change(0, AddressSpaceChange::Kind::kMap, 0, app_text_);
    Change(0, AddressSpaceChange::Kind::kMap, 0, kernel_text_);
    Change(0, AddressSpaceChange::Kind::kMap, 100, lib_text_);
    Change(0, AddressSpaceChange::Kind::kUnmap, 500, lib_text_);
    Change(0, AddressSpaceChange::Kind::kMap, 600, lib_text_);
    Change(0, AddressSpaceChange::Kind::kResetUser, 1000, 0);
  }

  void Change(size_t buffer, AddressSpaceChange::Kind kind, uint64_t position,
              uint32_t region) {
    AddressSpaceChange change;
    change.kind = kind;
    change.position = position;
    change.region = region;
    timeline_.AddChange(buffer, change);
  }

  capture::AddressSpaceTimeline timeline_;
  uint32_t app_, lib_, kernel_, app_text_, lib_text_, kernel_text_;
};

TEST_F(SampleAddressMapTest, MappingsFollowTracePosition) {
  SampleAddressMap map(&timeline_, 2);
  EXPECT_EQ(map.Code(0, 0, 0x400010), (MappedAddress{app_, 0x400010}));
  EXPECT_EQ(map.Code(0, 50, 0x800010040), std::nullopt);
  EXPECT_EQ(map.Code(0, 100, 0x800010040), (MappedAddress{lib_, 0x10040}));
  EXPECT_EQ(map.Code(0, 499, 0x800010040), (MappedAddress{lib_, 0x10040}));
  EXPECT_EQ(map.Code(0, 500, 0x800010040), std::nullopt);
  EXPECT_EQ(map.Code(0, 600, 0x800010040), (MappedAddress{lib_, 0x10040}));
  EXPECT_EQ(map.Code(0, 999, 0xffff000000100008),
            (MappedAddress{kernel_, 0xffff000000100008}));
  // The exec reset removes user images, not the kernel.
  EXPECT_EQ(map.Code(0, 1000, 0x400010), std::nullopt);
  EXPECT_EQ(map.Code(0, 1000, 0x800010040), std::nullopt);
  EXPECT_EQ(map.Code(0, 2000, 0xffff000000100008),
            (MappedAddress{kernel_, 0xffff000000100008}));
  // Going back replays from the start.
  EXPECT_EQ(map.Code(0, 150, 0x800010040), (MappedAddress{lib_, 0x10040}));
  // Outside every region, and past the region's end.
  EXPECT_EQ(map.Code(0, 150, 0x401000), std::nullopt);
  EXPECT_EQ(map.Code(0, 150, 0x3fffff), std::nullopt);
}

TEST_F(SampleAddressMapTest, BuffersAreIndependent) {
  SampleAddressMap map(&timeline_, 2);
  EXPECT_EQ(map.Code(1, 0, 0x400010), std::nullopt);  // nothing mapped
  EXPECT_EQ(map.Code(0, 0, 0x400010), (MappedAddress{app_, 0x400010}));
  EXPECT_EQ(map.Code(7, 0, 0x400010), std::nullopt);  // no such buffer
  SampleAddressMap none;
  EXPECT_EQ(none.Code(0, 0, 0x400010), std::nullopt);
  EXPECT_EQ(none.Data(0, 0, 0x400010), std::nullopt);
}

TEST_F(SampleAddressMapTest, DataAddressesUseEveryLoadSegment) {
  std::vector<std::vector<capture::ElfSegment>> loads(3);
  // libc: r-x text at 0x10000, rw- data at 0x30000 (+ bss to 0x38000).
  capture::ElfSegment text;
  text.type = 1;
  text.flags = 5;
  text.vaddr = 0x10000;
  text.memsz = 0x10000;
  capture::ElfSegment data;
  data.type = 1;
  data.flags = 6;
  data.vaddr = 0x30000;
  data.filesz = 0x2000;
  data.memsz = 0x8000;
  loads[lib_] = {text, data};
  SampleAddressMap map(&timeline_, 2, loads);
  EXPECT_EQ(map.Data(0, 200, 0x800037ff8), (MappedAddress{lib_, 0x37ff8}));
  EXPECT_EQ(map.Data(0, 200, 0x800038000), std::nullopt);
  EXPECT_EQ(map.Data(0, 200, 0x800010000), (MappedAddress{lib_, 0x10000}));
  // Code lookups stay on executable regions.
  EXPECT_EQ(map.Code(0, 200, 0x800030000), std::nullopt);
  // Images without segments map data through their regions.
  EXPECT_EQ(map.Data(0, 200, 0x400800), (MappedAddress{app_, 0x400800}));
}

TEST_F(SampleAddressMapTest, OverlapsPickTheNewestMapping) {
  capture::Image other;
  other.recorded_path = "/bin/other";
  uint32_t other_image = timeline_.AddImage(other);
  // A bigger region starting lower, then a small one inside it.
  uint32_t big =
      timeline_.AddRegion({other_image, 0x600000, 0x700000, 0, 0x100000, 0});
  uint32_t small =
      timeline_.AddRegion({app_, 0x640000, 0x641000, 0, 0x1000, 0x240000});
  Change(1, AddressSpaceChange::Kind::kMap, 0, big);
  Change(1, AddressSpaceChange::Kind::kMap, 0, small);
  SampleAddressMap map(&timeline_, 2);
  EXPECT_EQ(map.Code(1, 0, 0x640010), (MappedAddress{app_, 0x400010}));
  // Past the small one, the big one still covers the address.
  EXPECT_EQ(map.Code(1, 0, 0x650000), (MappedAddress{other_image, 0x650000}));
  EXPECT_EQ(map.Code(1, 0, 0x600000), (MappedAddress{other_image, 0x600000}));
}

}  // namespace
}  // namespace hwt::analysis
