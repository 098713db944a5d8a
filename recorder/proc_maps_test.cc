// /proc/PID/maps parsing and the MMAP/MUNMAP events a change of executable
// file mappings implies.
#include "recorder/proc_maps.h"

#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::recorder {
namespace {

constexpr char kMaps[] =
    "555555554000-555555555000 r--p 00000000 fe:00 5317807    /prog\n"
    "555555555000-555555556000 r-xp 00001000 fe:00 5317807    /prog\n"
    "7ffff7dd2000-7ffff7df8000 r--p 00000000 fe:00 332835     /lib/libc.so.6\n"
    "7ffff7df8000-7ffff7f4e000 r-xp 00026000 fe:00 332835     /lib/libc.so.6\n"
    "7ffff7fc0000-7ffff7fc2000 rw-p 00000000 00:00 0 \n"
    "7ffff7fc8000-7ffff7fca000 r-xp 00000000 00:00 0          [vdso]\n"
    "7ffff7fd0000-7ffff7fd1000 r-xp 00000000 fe:00 42         /dir with "
    "space/x.so\n";

std::optional<uint64_t> AnchorAt(const std::string& path, uint64_t offset,
                                 const std::string& for_path) {
  return path == for_path ? std::optional<uint64_t>(offset) : std::nullopt;
}

TEST(ProcMapsTest, ParsesEveryField) {
  auto maps = ParseProcMaps(kMaps);
  ASSERT_TRUE(maps.ok()) << maps.status();
  ASSERT_EQ(maps->size(), 7u);
  const ProcMapping& text = (*maps)[3];
  EXPECT_EQ(text.start, 0x7ffff7df8000u);
  EXPECT_EQ(text.end, 0x7ffff7f4e000u);
  EXPECT_EQ(text.perms, "r-xp");
  EXPECT_EQ(text.offset, 0x26000u);
  EXPECT_EQ(text.inode, 332835u);
  EXPECT_EQ(text.path, "/lib/libc.so.6");
  EXPECT_TRUE(text.executable() && text.file_backed());
  EXPECT_TRUE((*maps)[5].executable());
  EXPECT_FALSE((*maps)[5].file_backed());  // [vdso]
  EXPECT_EQ((*maps)[4].path, "");
  EXPECT_EQ((*maps)[6].path, "/dir with space/x.so");
}

TEST(ProcMapsTest, RejectsMalformedLines) {
  auto maps = ParseProcMaps("555555554000 r--p 0 fe:00 1 /x\n");
  EXPECT_FALSE(maps.ok());
  EXPECT_THAT(std::string(maps.status().message()),
              ::testing::HasSubstr("line 1"));
}

TEST(ProcMapsTest, ReadsItsOwnProcess) {
  auto maps = ReadProcMaps(getpid());
  ASSERT_TRUE(maps.ok()) << maps.status();
  bool has_code = false;
  for (const ProcMapping& m : *maps) has_code |= m.executable();
  EXPECT_TRUE(has_code);
  auto auxv = ReadProcAuxv(getpid());
  ASSERT_TRUE(auxv.ok()) << auxv.status();
  EXPECT_FALSE(auxv->empty());
}

TEST(ProcMapsTest, NewExecutableMappingIsAnMmapAtItsFirstCodeSegment) {
  auto before =
      ParseProcMaps("555555555000-555555556000 r-xp 00001000 fe:00 5 /prog\n");
  auto after = ParseProcMaps(kMaps);
  ASSERT_TRUE(before.ok() && after.ok());
  auto events = DiffExecutableMappings(
      *before, *after, [](const std::string& path) -> std::optional<uint64_t> {
        if (path == "/lib/libc.so.6") return 0x26000;
        return std::nullopt;  // unknown: reported at the mapping start
      });
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, capture::RecordType::kMmap);
  EXPECT_EQ(events[0].path, "/lib/libc.so.6");
  EXPECT_EQ(events[0].addr, 0x7ffff7df8000u);
  EXPECT_EQ(events[1].path, "/dir with space/x.so");
  EXPECT_EQ(events[1].addr, 0x7ffff7fd0000u);
}

TEST(ProcMapsTest, MappingWithoutTheFirstCodeSegmentIsNotReported) {
  auto after = ParseProcMaps(
      "7ffff7df8000-7ffff7e00000 r-xp 00050000 fe:00 9 /lib/two.so\n");
  ASSERT_TRUE(after.ok());
  auto events = DiffExecutableMappings({}, *after, [](const std::string& p) {
    return AnchorAt(p, 0x1000, "/lib/two.so");
  });
  EXPECT_TRUE(events.empty());
}

TEST(ProcMapsTest, RemovedMappingIsAMunmapAndSplitsAreNothing) {
  auto before = ParseProcMaps(
      "7ffff7df8000-7ffff7f4e000 r-xp 00026000 fe:00 3 /lib/libc.so.6\n"
      "7ffff7fd0000-7ffff7fd1000 r-xp 00000000 fe:00 4 /lib/gone.so\n");
  // libc's text split in two by an mprotect of a data page elsewhere; gone.so
  // unmapped; a non-executable mapping appears.
  auto after = ParseProcMaps(
      "7ffff7df8000-7ffff7e00000 r-xp 00026000 fe:00 3 /lib/libc.so.6\n"
      "7ffff7e00000-7ffff7f4e000 r-xp 0002e000 fe:00 3 /lib/libc.so.6\n"
      "7ffff7fd0000-7ffff7fd1000 r--p 00000000 fe:00 4 /lib/data.bin\n");
  ASSERT_TRUE(before.ok() && after.ok());
  auto events = DiffExecutableMappings(*before, *after, [](const std::string&) {
    return std::optional<uint64_t>(0);
  });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, capture::RecordType::kMunmap);
  EXPECT_EQ(events[0].path, "/lib/gone.so");
  EXPECT_EQ(events[0].addr, 0x7ffff7fd0000u);
}

}  // namespace
}  // namespace hwt::recorder
