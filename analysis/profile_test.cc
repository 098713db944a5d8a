// Blocks, block edges, per-instruction counts, branch outcomes, loops, hot
// paths and the image-file code reader, on small hand-assembled programs
// whose counts are worked out by hand in the comments.
#include "analysis/profile.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/block_expansion.h"
#include "analysis/branches.h"
#include "analysis/hot_paths.h"
#include "analysis/loops.h"
#include "analysis/testing/event_script.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using testing::BuildProfile;
using ::testing::ElementsAre;
using testing::EventScript;
using ::testing::IsEmpty;
using testing::ParseEventScript;
using testing::ScriptCodeReader;

// start calls main; main counts ecx down from 5:
//   401000 mov $5,%ecx   401005 nop (header)   401006 dec %ecx
//   401008 jne 401005    40100a nop            40100b ret
// libipt's blocks: the first pass runs from 401000 to the taken jne, three
// passes 401005..401008, and the last pass falls through the jne to ret.
constexpr char kCountdown[] = R"(
image /usr/bin/prog
region 0 0x400000 0x500000
function 0 0x401000 0x401100 main
function 0 0x402000 0x402100 start
code 0 0x401000 b905000000 90 ffc9 75fb 90 c3
code 0 0x402000 e8fbefffff 90
block 0x402000 0x402000 1 call next=0x402005
block 0x401000 0x401008 4 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x40100b 5 return
block 0x402005 0x402005 1 none
)";

struct Fixture {
  EventScript script;
  Profile profile;
  BlockExpansion expansion;
};

Fixture Build(const std::string& text) {
  absl::StatusOr<EventScript> script = ParseEventScript(text);
  EXPECT_TRUE(script.ok()) << script.status();
  Fixture f{std::move(*script), {}, {}};
  f.profile = BuildProfile(f.script);
  ScriptCodeReader reader(f.script);
  f.expansion = ExpandBlocks(f.profile, reader);
  return f;
}

TEST(ProfileTest, BlocksAndEdges) {
  Fixture f = Build(kCountdown);
  const auto& blocks = f.profile.blocks;
  ASSERT_EQ(blocks.size(), 5u);
  // Sorted by (image, vaddr, ninsn).
  EXPECT_EQ(blocks[0].vaddr, 0x401000u);
  EXPECT_EQ(blocks[0].count, 1u);
  EXPECT_EQ(blocks[1].vaddr, 0x401005u);
  EXPECT_EQ(blocks[1].ninsn, 3u);
  EXPECT_EQ(blocks[1].count, 3u);
  EXPECT_EQ(blocks[1].end, BranchKind::kCondTaken);
  EXPECT_EQ(blocks[2].ninsn, 5u);
  EXPECT_EQ(blocks[2].end, BranchKind::kReturn);
  EXPECT_EQ(blocks[3].vaddr, 0x402000u);
  EXPECT_EQ(blocks[4].vaddr, 0x402005u);
  EXPECT_EQ(blocks[0].function.start, 0x401000u);
  EXPECT_EQ(blocks[3].function.start, 0x402000u);
  std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> edges;
  for (const BlockEdge& e : f.profile.edges) {
    edges.emplace_back(e.from, e.to, e.count);
  }
  EXPECT_THAT(edges,
              ElementsAre(std::make_tuple(0, 1, 1), std::make_tuple(1, 1, 2),
                          std::make_tuple(1, 2, 1), std::make_tuple(2, 4, 1),
                          std::make_tuple(3, 0, 1)));
}

TEST(ProfileTest, TakenBranchEdges) {
  Fixture f = Build(kCountdown);
  std::vector<std::tuple<uint64_t, uint64_t, BranchKind, uint64_t>> taken;
  for (const BranchEdge& e : TakenBranches(f.profile)) {
    taken.emplace_back(e.from, e.to, e.kind, e.count);
  }
  // The jne's four taken passes (from two unique blocks) are one edge; the
  // last block's jne fell through and is not a taken edge.
  EXPECT_THAT(
      taken, ElementsAre(
                 std::make_tuple(0x401008, 0x401005, BranchKind::kCondTaken, 4),
                 std::make_tuple(0x40100b, 0x402005, BranchKind::kReturn, 1),
                 std::make_tuple(0x402000, 0x401000, BranchKind::kCall, 1)));
}

TEST(ProfileTest, InstructionCountsAndBranchOutcomes) {
  Fixture f = Build(kCountdown);
  EXPECT_EQ(f.expansion.failed_blocks, 0u) << f.expansion.errors[0];
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>> insns;
  for (const InstructionStats& s : f.expansion.instructions) {
    insns.emplace_back(s.vaddr, s.count, s.taken, s.not_taken);
  }
  // The jne ran 5 times: taken 4 times (ends of blocks), not taken once (in
  // the middle of the last block).
  EXPECT_THAT(insns, ElementsAre(std::make_tuple(0x401000, 1, 0, 0),
                                 std::make_tuple(0x401005, 5, 0, 0),
                                 std::make_tuple(0x401006, 5, 0, 0),
                                 std::make_tuple(0x401008, 5, 4, 1),
                                 std::make_tuple(0x40100a, 1, 0, 0),
                                 std::make_tuple(0x40100b, 1, 0, 0),
                                 std::make_tuple(0x402000, 1, 0, 0),
                                 std::make_tuple(0x402005, 1, 0, 0)));
  EXPECT_TRUE(f.expansion.Find(0, 0x401008)->conditional);
  EXPECT_FALSE(f.expansion.Find(0, 0x401006)->conditional);
  EXPECT_EQ(f.expansion.Find(0, 0x401000)->length, 5u);
  EXPECT_THAT(f.expansion.BlockInstructions(2),
              ElementsAre(0x401005, 0x401006, 0x401008, 0x40100a, 0x40100b));
  uint64_t total = 0;
  for (const InstructionStats& s : f.expansion.instructions) total += s.count;
  EXPECT_EQ(total, f.profile.stats.instructions);
}

TEST(ProfileTest, LoopWithKnownTripCount) {
  Fixture f = Build(kCountdown);
  std::vector<Loop> loops = FindLoops(f.profile, f.expansion);
  ASSERT_EQ(loops.size(), 1u);
  const Loop& loop = loops[0];
  EXPECT_EQ(loop.header, 0x401005u);
  EXPECT_EQ(loop.end, 0x40100au);
  EXPECT_THAT(loop.latches, ElementsAre(0x401008u));
  EXPECT_EQ(loop.back_edges, 4u);
  EXPECT_EQ(loop.entries, 1u);  // mov falls into the header mid-block
  EXPECT_DOUBLE_EQ(loop.trip_count(), 5.0);
  EXPECT_EQ(loop.instructions, 15u);  // nop, dec, jne, five times
  EXPECT_EQ(loop.function.start, 0x401000u);
}

TEST(ProfileTest, LoopEnteredByAJumpToItsTest) {
  // A while loop compiled with the test at the bottom, ecx = 2:
  //   401000 jmp 401004   401002 nop   401003 nop   401004 dec %ecx
  //   401006 jne 401002   401008 ret
  Fixture f = Build(R"(
image /usr/bin/prog
region 0 0x400000 0x500000
function 0 0x401000 0x401100 main
code 0 0x401000 eb02 90 90 ffc9 75fa c3
block 0x401000 0x401000 1 jump
block 0x401004 0x401006 2 cond-taken
block 0x401002 0x401008 5 return
)");
  std::vector<Loop> loops = FindLoops(f.profile, f.expansion);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].header, 0x401002u);
  EXPECT_EQ(loops[0].end, 0x401008u);
  EXPECT_EQ(loops[0].back_edges, 1u);
  EXPECT_EQ(loops[0].entries, 1u);  // the jmp into the test
  EXPECT_DOUBLE_EQ(loops[0].trip_count(), 2.0);
  EXPECT_EQ(loops[0].instructions, 6u);
}

TEST(ProfileTest, HotPathsAndHotCallPaths) {
  Fixture f = Build(kCountdown);
  // main's frame: [401000 block] ends at the backward jump, then three
  // [401005 x3] passes, then [401005 x5] ends when main returns. start's
  // path is still open at the end of the trace and does not count.
  std::vector<const PathStats*> paths = HotPaths(f.profile, 10);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_THAT(paths[0]->blocks, ElementsAre(1u));
  EXPECT_EQ(paths[0]->count, 3u);
  EXPECT_EQ(paths[0]->weight(), 9u);
  EXPECT_THAT(paths[1]->blocks, ElementsAre(2u));
  EXPECT_EQ(paths[1]->weight(), 5u);
  EXPECT_THAT(paths[2]->blocks, ElementsAre(0u));
  EXPECT_EQ(paths[2]->weight(), 4u);
  EXPECT_EQ(HotPaths(f.profile, 1).size(), 1u);

  const CallTree& tree = f.profile.merged;
  std::vector<HotCallPath> hot = HotCallPaths(tree, 5);
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(hot[0].insns, 18u);
  std::vector<FrameKey> stack = StackOf(tree, hot[0].node);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].start, 0x402000u);
  EXPECT_EQ(stack[1].start, 0x401000u);
  EXPECT_EQ(hot[1].insns, 2u);
}

TEST(ProfileTest, NodeInstructionCounts) {
  Fixture f = Build(kCountdown);
  const CallTree& tree = f.profile.merged;
  uint32_t main_node = 0;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    if (tree.nodes[i].frame.start == 0x401000) main_node = i;
  }
  ASSERT_NE(main_node, 0u);
  std::vector<AddressCount> counts =
      NodeInstructionCounts(f.profile, tree, main_node, f.expansion);
  EXPECT_THAT(
      counts,
      ElementsAre(AddressCount{0, 0x401000, 1}, AddressCount{0, 0x401005, 5},
                  AddressCount{0, 0x401006, 5}, AddressCount{0, 0x401008, 5},
                  AddressCount{0, 0x40100a, 1}, AddressCount{0, 0x40100b, 1}));
}

TEST(ProfileTest, ExpansionReportsBlocksThatDoNotDecode) {
  // The block claims 3 instructions ending at 0x401004, but the code there
  // is a 5-byte mov followed by nops: the last one starts at 0x401006.
  Fixture f = Build(R"(
image /usr/bin/prog
region 0 0x400000 0x500000
code 0 0x401000 b905000000 90 90 90
block 0x401000 0x401004 3 none
block 0x900000 0x900000 1 none
)");
  EXPECT_EQ(f.expansion.failed_blocks, 2u);
  ASSERT_EQ(f.expansion.errors.size(), 2u);
  EXPECT_EQ(f.expansion.errors[0],
            "block #0 (image 0, 0x401000-0x401004, 3 instructions): 3 "
            "instructions end at 0x401006, not at the last instruction "
            "0x401004");
  EXPECT_EQ(f.expansion.errors[1],
            "block #1 (image -1, 0x900000-0x900000, 1 instructions): "
            "outside every image");
  EXPECT_THAT(f.expansion.BlockInstructions(0), IsEmpty());
  EXPECT_THAT(f.expansion.instructions, IsEmpty());
}

TEST(ProfileTest, ImageCodeReaderReadsThroughTheRegionFileOffset) {
  absl::StatusOr<TempDir> dir = TempDir::Create("hwt-analysis-test");
  ASSERT_TRUE(dir.ok());
  // 0x100 bytes of something else, then the countdown's code.
  std::string file(0x100, '\xcc');
  for (uint8_t b : {0xb9, 0x05, 0x00, 0x00, 0x00, 0x90, 0xff, 0xc9, 0x75, 0xfb,
                    0x90, 0xc3}) {
    file.push_back(static_cast<char>(b));
  }
  const std::string path = dir->path() + "/prog";
  ASSERT_TRUE(WriteFileAtomically(path, file).ok());

  absl::StatusOr<EventScript> script = ParseEventScript(R"(
image /usr/bin/prog
region 0 0x555555555000 0x555555556000 bias=0x555555154000 offset=0x100 size=0xc
block 0x555555555000 0x555555555008 4 cond-taken
block 0x555555555005 0x55555555500b 5 return
)");
  ASSERT_TRUE(script.ok());
  // The script gives the image no file; a timeline with the real file.
  capture::AddressSpaceTimeline timeline;
  capture::Image image;
  image.recorded_path = "/usr/bin/prog";
  image.file = path;
  timeline.AddImage(image);
  timeline.AddRegion(script->timeline.regions()[0]);
  Profile profile = BuildProfile(*script);
  ImageCodeReader reader(timeline);
  BlockExpansion x = ExpandBlocks(profile, reader);
  EXPECT_EQ(x.failed_blocks, 0u) << x.errors[0];
  EXPECT_THAT(x.BlockInstructions(0),
              ElementsAre(0x401000, 0x401005, 0x401006, 0x401008));
  EXPECT_THAT(x.BlockInstructions(1),
              ElementsAre(0x401005, 0x401006, 0x401008, 0x40100a, 0x40100b));

  // Past the file-backed bytes of the region: a clear error.
  absl::StatusOr<absl::Span<const uint8_t>> beyond =
      reader.Read(0, 0x401010, 4);
  EXPECT_FALSE(beyond.ok());
  EXPECT_THAT(std::string(beyond.status().message()),
              ::testing::HasSubstr("not backed by the file"));
  // A reader over a shared cache reads the bytes that cache mapped.
  auto files = std::make_shared<ImageFileCache>();
  absl::StatusOr<const MappedFile*> mapped = files->Get(path);
  ASSERT_TRUE(mapped.ok());
  ImageCodeReader shared_reader(timeline, files);
  absl::StatusOr<absl::Span<const uint8_t>> code =
      shared_reader.Read(0, 0x401000, 4);
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(code->data(), (*mapped)->data() + 0x100);
  EXPECT_EQ(code->size(), 4u);
  // An image without a file.
  capture::AddressSpaceTimeline missing;
  missing.AddImage(capture::Image{"/lib/gone.so"});
  missing.AddRegion(script->timeline.regions()[0]);
  ImageCodeReader missing_reader(missing);
  EXPECT_EQ(missing_reader.Read(0, 0x401000, 4).status().message(),
            "image /lib/gone.so not found");
}

}  // namespace
}  // namespace hwt::analysis
