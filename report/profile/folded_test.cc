// Folded-stack output: line merging, ordering, zero weights,
// time weights, inline splitting, and golden files
// (testdata/analysis/NAME.events -> NAME.folded, NAME.time.folded) whose
// expected stacks were worked out by hand from docs/call-stacks.md.
#include "report/profile/folded.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "analysis/testing/event_script.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::report {
namespace {

using analysis::FrameKey;
using analysis::FrameKind;
using analysis::Profile;
using analysis::testing::BuildProfile;
using analysis::testing::EventScript;
using analysis::testing::ParseEventScript;

FrameNamer ScriptNamer(const EventScript& script) {
  return [&script](const FrameKey& key) {
    return analysis::testing::ScriptFrameName(script, key);
  };
}

// The script's names as ProfileSymbols; code at [0x401005, 0x40100a) is
// "tick" inlined into "step" inlined into its function.
class ScriptSymbols : public ProfileSymbols {
 public:
  explicit ScriptSymbols(const EventScript& script) : script_(script) {}
  std::string FunctionName(uint32_t image, uint64_t start) override {
    return analysis::testing::ScriptFrameName(
        script_, {FrameKind::kFunction, image, start});
  }
  std::string ImagePath(uint32_t image) override {
    return script_.image_names[image];
  }
  std::vector<std::vector<SourceFrame>> SourceFrames(
      absl::Span<const CodeAddress> addresses) override {
    std::vector<std::vector<SourceFrame>> out;
    for (const CodeAddress& a : addresses) {
      if (a.vaddr >= 0x401005 && a.vaddr < 0x40100a) {
        out.push_back({{"tick", "", 0, true},
                       {"step", "", 0, true},
                       {"main", "", 0, false}});
      } else {
        out.emplace_back();
      }
    }
    return out;
  }

 private:
  const EventScript& script_;
};

EventScript Parse(const std::string& text) {
  absl::StatusOr<EventScript> script = ParseEventScript(text);
  EXPECT_TRUE(script.ok()) << script.status();
  return std::move(*script);
}

TEST(FoldedTest, SameNamesShareALineAndZeroWeightsAreLeftOut) {
  // Two images each have a function "dup"; main calls both. The [gap] leaf
  // adds no line, nor do stacks without time in the time-weighted output.
  EventScript script = Parse(R"(
image /bin/a
image /lib/b.so
region 0 0x400000 0x410000
region 1 0x500000 0x510000
function 0 0x401000 0x401100 main
function 0 0x402000 0x402100 dup
function 1 0x501000 0x501100 dup
function 1 0x502000 0x502100 relay
block 0x401000 0x401004 2 call next=0x401009
block 0x402000 0x402004 3 return
block 0x401009 0x40100c 2 call next=0x401011
block 0x501000 0x501004 4 return
block 0x401011 0x401011 1 call next=0x401016
block 0x502000 0x502000 1 call next=0x502005
block 0x401200 0x401200 1 none
gap overflow
)");
  Profile profile = BuildProfile(script);
  const std::string folded = FoldedStacks(profile.merged, ScriptNamer(script));
  EXPECT_EQ(folded,
            "main 5\n"
            "main;dup 7\n"
            "main;relay 1\n"
            "main;relay;[a+0x401200] 1\n");
  FoldedOptions by_time;
  by_time.weight = FoldedWeight::kTime;
  EXPECT_EQ(FoldedStacks(profile.merged, ScriptNamer(script), by_time), "");
}

TEST(FoldedTest, WholeLinesSortBytewise) {
  // Names with spaces: the line "a 1 2" sorts before "a 9".
  EventScript script = Parse(R"(
image /bin/a
region 0 0x400000 0x410000
function 0 0x401000 0x401100 a
function 0 0x402000 0x402100 b
block 0x401000 0x401008 9 return
block 0x402000 0x402001 2 none
)");
  Profile profile = BuildProfile(script);
  const std::string folded =
      FoldedStacks(profile.merged, [](const FrameKey& key) {
        return key.start == 0x401000 ? std::string("a") : std::string("a 1");
      });
  EXPECT_EQ(folded, "a 1 2\na 9\n");
}

TEST(FoldedTest, NamerIsCalledOncePerFrame) {
  EventScript script = Parse(R"(
image /bin/a
region 0 0x400000 0x410000
function 0 0x401000 0x401100 main
function 0 0x402000 0x402100 f
block 0x401000 0x401004 2 call next=0x401009
block 0x402000 0x402004 2 call next=0x402009
block 0x402000 0x402004 2 return
block 0x402009 0x402009 1 return
block 0x401009 0x401009 1 none
)");
  Profile profile = BuildProfile(script);
  std::map<FrameKey, int> calls;
  FrameNamer base = ScriptNamer(script);
  const std::string folded =
      FoldedStacks(profile.merged, [&](const FrameKey& key) {
        ++calls[key];
        return base(key);
      });
  EXPECT_EQ(folded, "main 3\nmain;f 3\nmain;f;f 2\n");
  for (const auto& [key, n] : calls) EXPECT_EQ(n, 1);
  EXPECT_EQ(calls.size(), 2u);
}

TEST(FoldedTest, NamedTreeInlineFramesSplitANodesOwnInstructions) {
  // main's loop body (0x401005..0x401008) is code inlined from "step";
  // a block that cannot be expanded (no code at 0x401200) stays on main.
  EventScript script = Parse(R"(
image /usr/bin/prog
region 0 0x400000 0x500000
function 0 0x401000 0x401300 main
code 0 0x401000 b905000000 90 ffc9 75fb 90 c3
block 0x401000 0x401008 4 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x401008 3 cond-taken
block 0x401005 0x40100a 4 jump
block 0x401200 0x401201 2 none
)");
  Profile profile = BuildProfile(script);
  analysis::testing::ScriptCodeReader reader(script);
  analysis::BlockExpansion expansion = analysis::ExpandBlocks(profile, reader);
  EXPECT_EQ(expansion.failed_blocks, 1u);
  ScriptSymbols symbols(script);
  ProfileNames names(symbols);
  NamedTreeOptions options;
  options.inline_frames = true;
  options.profile = &profile;
  options.expansion = &expansion;
  EXPECT_EQ(FoldedStacks(BuildNamedTree(profile.merged, names, options),
                         names.frames()),
            "main 4\nmain;step;tick 15\n");
  // Without inline frames: everything on main, as from the call tree.
  options.inline_frames = false;
  EXPECT_EQ(FoldedStacks(BuildNamedTree(profile.merged, names, options),
                         names.frames()),
            "main 19\n");
  EXPECT_EQ(FoldedStacks(profile.merged, ScriptNamer(script)), "main 19\n");
}

// testdata/analysis/NAME.events -> NAME.folded (and NAME.time.folded).
TEST(FoldedGoldenTest, MatchesHandCheckedFiles) {
  const std::string dir = hwt::testing::SourceDir() + "/testdata/analysis";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".events") continue;
    const std::string stem = path.substr(0, path.size() - 7);
    SCOPED_TRACE(path);
    absl::StatusOr<EventScript> script =
        analysis::testing::ReadEventScript(path);
    ASSERT_TRUE(script.ok()) << script.status();
    Profile profile = BuildProfile(*script);
    absl::StatusOr<std::string> expected = ReadFileToString(stem + ".folded");
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_EQ(FoldedStacks(profile.merged, ScriptNamer(*script)), *expected);
    if (std::filesystem::exists(stem + ".time.folded")) {
      absl::StatusOr<std::string> time =
          ReadFileToString(stem + ".time.folded");
      ASSERT_TRUE(time.ok());
      FoldedOptions options;
      options.weight = FoldedWeight::kTime;
      EXPECT_EQ(FoldedStacks(profile.merged, ScriptNamer(*script), options),
                *time);
    }
    ++checked;
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace hwt::report
