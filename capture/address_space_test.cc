// Tests the address-space timeline on records as the kernel writes them, with
// real ELF files of this machine as images.
#include "capture/address_space.h"

#include "capture/elf_file.h"
#include "gtest/gtest.h"

namespace hwt::capture {
namespace {

constexpr char kProgram[] = "/usr/bin/true";

Manifest TwoBuffers() {
  Manifest m;
  m.backend = Backend::kPt;
  m.buffers.resize(2);
  m.buffers[0].id = 0;
  m.buffers[1].id = 1;
  return m;
}

Record Exec(std::string path, uint64_t bias, uint64_t rtld,
            std::vector<BufferPosition> positions) {
  Record r;
  r.type = RecordType::kExecutable;
  r.path = std::move(path);
  r.addr = bias;
  r.baseaddr = rtld;
  r.positions = std::move(positions);
  return r;
}

TEST(AddressSpaceTest, NothingMappedAnywhere) {
  // No records, no dumps, no --image: every buffer's change list is empty.
  Capture capture(InputKind::kBundleDirectory, "x", "/", TwoBuffers(), {}, {},
                  std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  EXPECT_TRUE(timeline->changes(0).empty());
  EXPECT_TRUE(timeline->changes(1).empty());
  EXPECT_TRUE(timeline->RegionsAt(1, 0).empty());
}

TEST(AddressSpaceTest, ExecutableMapsProgramAndInterpreter) {
  auto program = ReadElfFile(kProgram);
  ASSERT_TRUE(program.ok());
  ASSERT_FALSE(program->interpreter.empty());
  const uint64_t bias = 0x555555554000, rtld = 0x7ffff7fc3000;
  Capture capture(InputKind::kBundleDirectory, "x", "/", TwoBuffers(),
                  {Exec(kProgram, bias, rtld, {{0, 100}, {1, 40}})}, {},
                  std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  EXPECT_TRUE(timeline->warnings().empty());
  ASSERT_EQ(timeline->images().size(), 2u);
  EXPECT_EQ(timeline->images()[0].recorded_path, kProgram);
  EXPECT_EQ(timeline->images()[1].recorded_path, program->interpreter);

  // Before the record's position nothing is mapped in buffer 0.
  EXPECT_TRUE(timeline->RegionsAt(0, 99).empty());
  auto mapped = timeline->RegionsAt(0, 100);
  ASSERT_FALSE(mapped.empty());
  EXPECT_EQ(timeline->RegionsAt(1, 40), mapped);
  const Region& text = timeline->regions()[mapped[0]];
  auto loads = program->ExecutableLoads();
  EXPECT_EQ(text.start, loads[0].vaddr + bias);
  EXPECT_EQ(text.file_offset, loads[0].offset);
  EXPECT_EQ(text.bias, bias);
  bool interp_at_rtld = false;
  for (uint32_t id : mapped) {
    const Region& r = timeline->regions()[id];
    if (r.image == 1) interp_at_rtld |= r.bias == rtld;
  }
  EXPECT_TRUE(interp_at_rtld);
}

TEST(AddressSpaceTest, MmapIsHoistedAndExecResets) {
  auto program = ReadElfFile(kProgram);
  ASSERT_TRUE(program.ok());
  Record mmap;
  mmap.type = RecordType::kMmap;
  mmap.path = kProgram;  // any ELF will do as a "library"
  uint64_t text_page = program->ExecutableLoads()[0].vaddr & ~0xfffull;
  mmap.addr = 0x7f0000000000 + text_page;
  mmap.positions = {{0, 500}};
  Capture capture(InputKind::kBundleDirectory, "x", "/", TwoBuffers(),
                  {Exec(kProgram, 0x400000, 0, {{0, 10}}), mmap,
                   Exec(kProgram, 0x800000, 0, {{0, 900}})},
                  {}, std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  // The library is mapped from the previous record's position (10), not 500.
  auto at_10 = timeline->RegionsAt(0, 10);
  bool has_library = false;
  for (uint32_t id : at_10) {
    has_library |= timeline->regions()[id].bias == 0x7f0000000000;
  }
  EXPECT_TRUE(has_library);
  // The second exec removes everything the first one mapped.
  for (uint32_t id : timeline->RegionsAt(0, 900)) {
    EXPECT_EQ(timeline->regions()[id].bias, 0x800000u);
  }
}

// An OpenCSD snapshot's dump of an ELF file is that ELF at a load bias (so
// that addresses name symbols), and stays mapped across exec records.
TEST(AddressSpaceTest, DumpOfAnElfFileIsTheElfAtABias) {
  auto program = ReadElfFile(kProgram);
  ASSERT_TRUE(program.ok());
  const std::vector<ElfSegment> loads = program->ExecutableLoads();
  ASSERT_FALSE(loads.empty());
  Manifest m = TwoBuffers();
  MemoryDump dump;
  dump.file = kProgram;
  dump.address = 0xaaaa00000000 + loads[0].offset;
  dump.file_offset = loads[0].offset;
  dump.size = loads[0].filesz;
  m.memory.push_back(dump);
  Capture capture(InputKind::kOpenCsdSnapshot, "x", "/", m,
                  {Exec("/no/such/prog", 0x1000, 0, {{0, 10}})}, {},
                  std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  ASSERT_FALSE(timeline->images().empty());
  EXPECT_TRUE(timeline->images()[0].is_elf);
  EXPECT_EQ(timeline->images()[0].build_id, program->build_id);
  ASSERT_FALSE(timeline->regions().empty());
  const Region& region = timeline->regions()[0];
  EXPECT_EQ(region.start, dump.address);
  EXPECT_EQ(region.file_offset, dump.file_offset);
  EXPECT_EQ(region.bias, 0xaaaa00000000 + loads[0].offset - loads[0].vaddr);
  EXPECT_FALSE(timeline->RemovedByReset(0));
  EXPECT_EQ(timeline->RegionsAt(0, 20).size(), 1u);
}

TEST(AddressSpaceTest, MissingImageIsReportedOnce) {
  Capture capture(InputKind::kBundleDirectory, "x", "/", TwoBuffers(),
                  {Exec("/no/such/prog", 0x1000, 0, {}),
                   Exec("/no/such/prog", 0x1000, 0, {})},
                  {}, std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  ASSERT_EQ(timeline->warnings().size(), 1u);
  EXPECT_NE(timeline->warnings()[0].find("/no/such/prog not found"),
            std::string::npos)
      << timeline->warnings()[0];
}

TEST(AddressSpaceTest, ImageOptionSurvivesExec) {
  InputOptions options;
  options.images.push_back({kProgram, 0x10000000});
  Capture capture(InputKind::kRawFile, "x", "/", TwoBuffers(),
                  {Exec(kProgram, 0x400000, 0, {{0, 10}})}, options,
                  std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok()) << timeline.status();
  bool has_option_image = false;
  for (uint32_t id : timeline->RegionsAt(0, 20)) {
    has_option_image |= timeline->regions()[id].bias == 0x10000000;
  }
  EXPECT_TRUE(has_option_image);
}

TEST(AddressSpaceTest, SysrootWithoutTheFileDoesNotFallBackToHost) {
  InputOptions options;
  options.sysroot = "/nonexistent-sysroot";
  Capture capture(InputKind::kBundleDirectory, "x", "/", TwoBuffers(),
                  {Exec(kProgram, 0, 0, {})}, options, std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_TRUE(timeline.ok());
  EXPECT_TRUE(timeline->regions().empty());
  ASSERT_EQ(timeline->warnings().size(), 1u);
}

// Found by fuzz/elf_file_fuzzer: a valid image at a load bias that puts a
// segment's end beyond 2^64 is refused, naming the image.
TEST(AddressSpaceTest, ImageWrappingAroundTheAddressSpaceIsAnError) {
  InputOptions options;
  options.images.push_back({kProgram, 0xfffffffffffff000ull});
  Capture capture(InputKind::kRawFile, "x", "/", TwoBuffers(), {}, options,
                  std::nullopt);
  auto timeline = BuildAddressSpaceTimeline(capture);
  ASSERT_FALSE(timeline.ok());
  EXPECT_NE(timeline.status().message().find(kProgram), std::string::npos)
      << timeline.status();
  EXPECT_NE(timeline.status().message().find("wraps around the address space"),
            std::string::npos)
      << timeline.status();
}

TEST(CaptureTest, ParsesImageAndCpuSpecs) {
  auto spec = ParseImageSpec("/bin/prog@0x555555554000");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->path, "/bin/prog");
  EXPECT_EQ(spec->bias, 0x555555554000u);
  spec = ParseImageSpec("/odd@name");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->path, "/odd@name");
  EXPECT_EQ(spec->bias, 0u);
  auto cpu = ParseCpuSpec("6/85/4");
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->family, 6u);
  EXPECT_EQ(cpu->model, 85u);
  EXPECT_EQ(cpu->stepping, 4u);
  EXPECT_FALSE(ParseCpuSpec("6").ok());
  EXPECT_FALSE(ParseCpuSpec("six/85").ok());
}

}  // namespace
}  // namespace hwt::capture
