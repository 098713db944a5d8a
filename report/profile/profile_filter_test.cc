// Report filters (report/tree/profile_filter.h): --range/--time parsing,
// the --function subtree and the --only-image stacks-through post-passes on
// a scripted profile (stacks worked out by hand from docs/call-stacks.md,
// compared as the folded stacks of the filtered trees, which is why the
// test sits beside the folded renderer), and per-function statistics of a
// tree, which for the merged tree must equal the profile's own.
#include "report/tree/profile_filter.h"

#include <string>

#include "analysis/profile.h"
#include "analysis/testing/event_script.h"
#include "analysis/tree_functions.h"
#include "gtest/gtest.h"
#include "report/profile/folded.h"

namespace hwt::report {
namespace {

using analysis::FrameKey;
using analysis::FrameKind;
using analysis::Profile;
using analysis::testing::BuildProfile;
using analysis::testing::EventScript;
using analysis::testing::ParseEventScript;

// main (0x401000) calls f twice; f calls g once; main then calls g in
// libb.so, which calls back into f.
constexpr char kScript[] = R"(
image /bin/a
image /lib/libb.so
region 0 0x400000 0x410000
region 1 0x500000 0x510000
function 0 0x401000 0x401100 main
function 0 0x402000 0x402100 f
function 0 0x403000 0x403100 g
function 1 0x501000 0x501100 h
block 0x401000 0x401004 2 call next=0x401009
block 0x402000 0x402004 3 return
block 0x401009 0x40100c 2 call next=0x401011
block 0x402000 0x402008 4 call next=0x40200d
block 0x403000 0x403004 5 return
block 0x40200d 0x40200d 1 return
block 0x401011 0x401011 1 call next=0x401016
block 0x501000 0x501004 2 call next=0x501009
block 0x402000 0x402004 3 return
block 0x501009 0x501009 1 return
block 0x401016 0x401016 1 none
)";

struct Fixture {
  EventScript script;
  Profile profile;
  std::string Fold(const analysis::CallTree& tree) const {
    return FoldedStacks(tree, [this](const FrameKey& key) -> std::string {
      for (const auto& f : script.functions) {
        if (f.image == key.image && f.start == key.start) return f.name;
      }
      return "?";
    });
  }
};

Fixture Make() {
  auto script = ParseEventScript(kScript);
  EXPECT_TRUE(script.ok()) << script.status();
  Fixture fixture{std::move(*script), {}};
  fixture.profile = BuildProfile(fixture.script);
  return fixture;
}

FrameMatcher Named(const Fixture& fixture, const std::string& name) {
  return [&fixture, name](const FrameKey& key) {
    for (const auto& f : fixture.script.functions) {
      if (f.image == key.image && f.start == key.start) return f.name == name;
    }
    return false;
  };
}

TEST(ProfileFilterTest, TheScriptedStacks) {
  const Fixture fixture = Make();
  EXPECT_EQ(fixture.Fold(fixture.profile.merged),
            "main 6\n"
            "main;f 8\n"
            "main;f;g 5\n"
            "main;h 3\n"
            "main;h;f 3\n");
}

TEST(ProfileFilterTest, SubtreesAtMergesEveryOutermostMatch) {
  const Fixture fixture = Make();
  // f under main (twice, merged) and f under h: one root f.
  const analysis::CallTree f =
      SubtreesAt(fixture.profile.merged, Named(fixture, "f"));
  EXPECT_EQ(fixture.Fold(f), "f 11\nf;g 5\n");
  EXPECT_EQ(f.nodes[0].total_insns, 16u);
  // Nothing matches: an empty tree.
  const analysis::CallTree none =
      SubtreesAt(fixture.profile.merged, Named(fixture, "nosuch"));
  EXPECT_EQ(fixture.Fold(none), "");
}

TEST(ProfileFilterTest, StacksThroughKeepsOnlyPathsToAMatch) {
  const Fixture fixture = Make();
  // Through h: main keeps no weight of its own, h and what it called stay.
  const analysis::CallTree h =
      StacksThrough(fixture.profile.merged, Named(fixture, "h"));
  EXPECT_EQ(fixture.Fold(h), "main;h 3\nmain;h;f 3\n");
  EXPECT_EQ(h.nodes[0].total_insns, 6u);
}

TEST(ProfileFilterTest, FunctionsOfTheMergedTreeAreTheProfiles) {
  const Fixture fixture = Make();
  const analysis::TreeFunctions functions =
      analysis::FunctionsOfTree(fixture.profile.merged);
  ASSERT_EQ(functions.functions.size(), fixture.profile.functions.size());
  for (size_t i = 0; i < functions.functions.size(); ++i) {
    const auto& a = functions.functions[i];
    const auto& b = fixture.profile.functions[i];
    EXPECT_EQ(a.frame, b.frame);
    EXPECT_EQ(a.self_insns, b.self_insns);
    EXPECT_EQ(a.total_insns, b.total_insns);
    EXPECT_EQ(a.calls, b.calls);
  }
  ASSERT_EQ(functions.call_edges.size(), fixture.profile.call_edges.size());
  for (size_t i = 0; i < functions.call_edges.size(); ++i) {
    EXPECT_EQ(functions.call_edges[i].caller,
              fixture.profile.call_edges[i].caller);
    EXPECT_EQ(functions.call_edges[i].callee,
              fixture.profile.call_edges[i].callee);
    EXPECT_EQ(functions.call_edges[i].count,
              fixture.profile.call_edges[i].count);
  }
  // f: self 3 + (4+1) + 3 = 11, total 16 (with g), entered by 3 calls.
  const FrameKey f{FrameKind::kFunction, 0, 0x402000};
  bool found = false;
  for (const auto& stats : functions.functions) {
    if (stats.frame != f) continue;
    found = true;
    EXPECT_EQ(stats.self_insns, 11u);
    EXPECT_EQ(stats.total_insns, 16u);
    EXPECT_EQ(stats.calls, 3u);
  }
  EXPECT_TRUE(found);
}

TEST(ProfileFilterTest, ParseRange) {
  auto both = ParseRange("0x10:200");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(*both, std::make_pair(uint64_t{16}, uint64_t{200}));
  auto open_end = ParseRange("5:");
  ASSERT_TRUE(open_end.ok());
  EXPECT_EQ(open_end->first, 5u);
  EXPECT_EQ(open_end->second, UINT64_MAX);
  auto open_start = ParseRange(":0x20");
  ASSERT_TRUE(open_start.ok());
  EXPECT_EQ(*open_start, std::make_pair(uint64_t{0}, uint64_t{32}));
  EXPECT_FALSE(ParseRange("x:y").ok());
  EXPECT_FALSE(ParseRange("12").ok());
  EXPECT_FALSE(ParseRange("9:3").ok());
}

TEST(ProfileFilterTest, EventFilterKeeps) {
  EventFilter filter;
  filter.stream = 1;
  filter.offsets = {{0x10, 0x20}};
  Event event;
  event.offset = 0x10;
  EXPECT_TRUE(filter.Keep(1, event));
  EXPECT_FALSE(filter.Keep(0, event));
  event.offset = 0x20;
  EXPECT_FALSE(filter.Keep(1, event));
}

}  // namespace
}  // namespace hwt::report
