// CodeMap against the hand-written testdata/programs/counted.S (whose
// encodings are known) and the dynamic maps program: biases of EXECUTABLE,
// MMAP and the interpreter, MUNMAP, aliases, memory fallback, errors.
#include "recorder/code_map.h"

#include "capture/elf_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/testing/test_programs.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::Program;
using ::testing::HasSubstr;

MappingEvent Event(capture::RecordType type, std::string path, uint64_t addr,
                   uint64_t baseaddr = 0) {
  MappingEvent e;
  e.type = type;
  e.path = std::move(path);
  e.addr = addr;
  e.baseaddr = baseaddr;
  return e;
}

uint64_t EntryOf(const std::string& path) {
  auto elf = capture::ReadElfFile(path);
  EXPECT_TRUE(elf.ok()) << elf.status();
  return elf.ok() ? elf->entry : 0;
}

// counted.S: _start: mov $3,%r12d (41 bc 03 00 00 00); call leaf (e8 rel32);
// leaf: mov $1,%eax (5 bytes); add %eax,%eax (2); ret (1).
void ExpectCountedStartAt(CodeMap& map, uint64_t start) {
  auto mov = map.InsnAt(start);
  ASSERT_TRUE(mov.has_value());
  EXPECT_EQ(mov->length, 6);
  EXPECT_EQ(mov->cls, x86::InsnClass::kOther);
  auto call = map.InsnAt(start + 6);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->length, 5);
  EXPECT_EQ(call->cls, x86::InsnClass::kCall);
  uint64_t leaf = call->target;
  auto leaf_mov = map.InsnAt(leaf);
  auto leaf_add = map.InsnAt(leaf + 5);
  auto leaf_ret = map.InsnAt(leaf + 7);
  ASSERT_TRUE(leaf_mov && leaf_add && leaf_ret);
  EXPECT_EQ(leaf_mov->length, 5);
  EXPECT_EQ(leaf_add->length, 2);
  EXPECT_EQ(leaf_ret->cls, x86::InsnClass::kReturn);
}

TEST(CodeMapTest, ExecutableMapsTheProgramAtItsBias) {
  std::string counted = Program("counted_static");
  uint64_t entry = EntryOf(counted);
  CodeMap map;
  ASSERT_TRUE(
      map.Apply(Event(capture::RecordType::kExecutable, counted, 0)).ok());
  ExpectCountedStartAt(map, entry);
  auto location = map.Locate(entry);
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->vaddr, entry);
  EXPECT_EQ(map.images()[location->image].recorded_path, counted);
  // Nothing else is mapped.
  EXPECT_FALSE(map.InsnAt(0x1000).has_value());
  EXPECT_FALSE(map.Locate(0x1000).has_value());
}

TEST(CodeMapTest, MmapAnchorsTheFirstExecutableSegmentAtTheAddress) {
  std::string counted = Program("counted_static");
  uint64_t entry = EntryOf(counted);
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  uint64_t text_page = elf->ExecutableLoads().front().vaddr & ~uint64_t{0xfff};
  const uint64_t kAt = 0x7f0000000000;
  uint64_t bias = kAt - text_page;
  CodeMap map;
  ASSERT_TRUE(map.Apply(Event(capture::RecordType::kMmap, counted, kAt)).ok());
  ExpectCountedStartAt(map, entry + bias);
  EXPECT_EQ(map.Locate(entry + bias)->vaddr, entry);
  EXPECT_FALSE(map.InsnAt(entry).has_value());

  // MUNMAP of any address inside removes the image instance.
  uint64_t generation = map.generation();
  ASSERT_TRUE(
      map.Apply(Event(capture::RecordType::kMunmap, "", entry + bias + 6))
          .ok());
  EXPECT_FALSE(map.InsnAt(entry + bias).has_value());
  EXPECT_FALSE(map.images()[0].mapped);
  EXPECT_GT(map.generation(), generation);
}

TEST(CodeMapTest, ExecutableMapsTheInterpreterAtItsBase) {
  std::string program = Program("maps_dynamic");
  auto elf = capture::ReadElfFile(program);
  ASSERT_TRUE(elf.ok());
  ASSERT_FALSE(elf->interpreter.empty());
  auto interp = capture::ReadElfFile(elf->interpreter);
  ASSERT_TRUE(interp.ok());
  const uint64_t kBias = 0x555555554000;
  const uint64_t kBase = 0x7ffff7fc3000;
  CodeMap map;
  ASSERT_TRUE(
      map.Apply(Event(capture::RecordType::kExecutable, program, kBias, kBase))
          .ok());
  auto location = map.Locate(kBase + interp->entry);
  ASSERT_TRUE(location.has_value());
  EXPECT_EQ(location->vaddr, interp->entry);
  EXPECT_EQ(map.images()[location->image].recorded_path, elf->interpreter);
  EXPECT_TRUE(map.InsnAt(kBase + interp->entry).has_value());
  EXPECT_TRUE(map.InsnAt(kBias + elf->entry).has_value());

  // A new exec replaces everything.
  std::string counted = Program("counted_static");
  ASSERT_TRUE(
      map.Apply(Event(capture::RecordType::kExecutable, counted, 0)).ok());
  EXPECT_FALSE(map.InsnAt(kBase + interp->entry).has_value());
  ExpectCountedStartAt(map, EntryOf(counted));
}

TEST(CodeMapTest, AliasesNameTheLocalFileOfARecordedPath) {
  std::string counted = Program("counted_static");
  auto elf = capture::ReadElfFile(counted);
  ASSERT_TRUE(elf.ok());
  uint64_t text_page = elf->ExecutableLoads().front().vaddr & ~uint64_t{0xfff};
  CodeMapOptions options;
  options.path_aliases["[vdso]"] = counted;
  CodeMap map(options);
  const uint64_t kAt = 0x7ffff7fc1000;
  ASSERT_TRUE(map.Apply(Event(capture::RecordType::kMmap, "[vdso]", kAt)).ok());
  ExpectCountedStartAt(map, elf->entry - text_page + kAt);
  EXPECT_EQ(map.images()[0].recorded_path, "[vdso]");
  EXPECT_EQ(map.images()[0].file, counted);
}

TEST(CodeMapTest, MissingOrInvalidImagesAreErrorsThatChangeNothing) {
  std::string counted = Program("counted_static");
  CodeMap map;
  ASSERT_TRUE(
      map.Apply(Event(capture::RecordType::kExecutable, counted, 0)).ok());
  absl::Status missing =
      map.Apply(Event(capture::RecordType::kMmap, "/no/such/lib.so", 0x1000));
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
  EXPECT_THAT(std::string(missing.message()), HasSubstr("/no/such/lib.so"));
  absl::Status not_elf = map.Apply(
      Event(capture::RecordType::kMmap,
            hwt::recorder::testing::ProgramSource("counted.S"), 0x1000));
  EXPECT_FALSE(not_elf.ok());
  // A static program has no PT_INTERP to put at an interpreter base.
  absl::Status no_interp =
      map.Apply(Event(capture::RecordType::kExecutable, counted, 0, 0x7000));
  EXPECT_THAT(std::string(no_interp.message()), HasSubstr("PT_INTERP"));
  ExpectCountedStartAt(map, EntryOf(counted));
}

TEST(CodeMapTest, UnmappedCodeIsReadFromMemoryWithoutCaching) {
  uint8_t byte = 0xc3;  // ret
  CodeMapOptions options;
  options.read_memory = [&byte](uint64_t addr, absl::Span<uint8_t> out) {
    if (addr != 0x5000 || out.empty()) return size_t{0};
    out[0] = byte;
    return size_t{1};
  };
  CodeMap map(options);
  auto ret = map.InsnAt(0x5000);
  ASSERT_TRUE(ret.has_value());
  EXPECT_EQ(ret->cls, x86::InsnClass::kReturn);
  byte = 0x90;  // nop: memory changed (JIT code)
  auto nop = map.InsnAt(0x5000);
  ASSERT_TRUE(nop.has_value());
  EXPECT_EQ(nop->cls, x86::InsnClass::kOther);
  EXPECT_FALSE(map.Locate(0x5000).has_value());
}

}  // namespace
}  // namespace hwt::recorder
