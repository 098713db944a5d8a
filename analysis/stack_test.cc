// Call-stack reconstruction on hand-built event streams, checked against
// stacks worked out by hand from docs/call-stacks.md. Every script is also
// cut into segments at every event boundary (and at all of them at once):
// the merged profile must be identical to the sequential one.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/profile.h"
#include "analysis/profile_builder.h"
#include "analysis/profile_text.h"
#include "analysis/testing/event_script.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::analysis {
namespace {

using testing::BuildProfile;
using testing::BuildProfileInSegments;
using ::testing::ElementsAre;
using testing::EventScript;
using ::testing::Pair;
using testing::ParseEventScript;
using testing::StackWeights;
using Stacks = std::map<std::string, uint64_t>;

constexpr char kProgram[] = R"(
image /usr/bin/prog
region 0 0x400000 0x500000
function 0 0x401000 0x401100 main
function 0 0x401100 0x401200 foo
function 0 0x401200 0x401300 bar
function 0 0x401300 0x401400 baz
function 0 0x401400 0x401410 foo@plt
)";

struct ScriptRun {
  EventScript script;
  Profile profile;
  Stacks stacks;  // merged tree
  std::string Name(const FrameKey& key) const {
    return testing::ScriptFrameName(script, key);
  }
  std::string Text() const {
    return ProfileToText(profile,
                         [this](const FrameKey& k) { return Name(k); });
  }
};

ScriptRun RunScript(const std::string& body) {
  absl::StatusOr<EventScript> script =
      ParseEventScript(absl::StrCat(kProgram, body));
  EXPECT_TRUE(script.ok()) << script.status();
  ScriptRun run{std::move(*script), {}, {}};
  run.profile = BuildProfile(run.script);
  run.stacks = StackWeights(run.script, run.profile.merged);

  // Segment identity: every single cut, and a cut between all events.
  const std::string sequential = ProfileToText(run.profile);
  const size_t n = run.script.events.size();
  std::vector<size_t> all;
  for (size_t cut = 0; cut <= n; ++cut) {
    EXPECT_EQ(testing::FirstDifference(
                  ProfileToText(BuildProfileInSegments(run.script, {cut})),
                  sequential),
              "")
        << "cut before event " << cut;
    if (cut > 0 && cut < n) all.push_back(cut);
  }
  EXPECT_EQ(ProfileToText(BuildProfileInSegments(run.script, all)), sequential)
      << "cut between all events";
  return run;
}

const FunctionStats* FindFunction(const ScriptRun& run,
                                  const std::string& name) {
  for (const FunctionStats& f : run.profile.functions) {
    if (run.Name(f.frame) == name) return &f;
  }
  return nullptr;
}

std::map<std::string, uint64_t> CallEdges(const ScriptRun& run) {
  std::map<std::string, uint64_t> out;
  for (const CallEdge& e : run.profile.call_edges) {
    out[run.Name(e.caller) + "->" + run.Name(e.callee)] += e.count;
  }
  return out;
}

TEST(StackTest, NestedCallsAndReturns) {
  ScriptRun run = RunScript(R"(
block 0x401000 0x401010 5 call next=0x401015
block 0x401100 0x401108 3 call next=0x40110d
block 0x401200 0x401204 2 return
block 0x40110d 0x401110 2 return
block 0x401015 0x401020 4 none
)");
  EXPECT_EQ(run.stacks,
            (Stacks{{"main", 9}, {"main;foo", 5}, {"main;foo;bar", 2}}));
  const FunctionStats* main = FindFunction(run, "main");
  const FunctionStats* foo = FindFunction(run, "foo");
  ASSERT_NE(main, nullptr);
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(main->self_insns, 9u);
  EXPECT_EQ(main->total_insns, 16u);
  EXPECT_EQ(foo->self_insns, 5u);
  EXPECT_EQ(foo->total_insns, 7u);
  EXPECT_EQ(foo->calls, 1u);
  EXPECT_EQ(CallEdges(run), (std::map<std::string, uint64_t>{
                                {"foo->bar", 1}, {"main->foo", 1}}));
  EXPECT_EQ(run.profile.stats.instructions, 16u);
  EXPECT_EQ(run.profile.stats.blocks, 5u);
}

TEST(StackTest, Recursion) {
  // fact(3) -> fact(2) -> fact(1): every recursive call has the same return
  // address; each return pops exactly the newest frame.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401108 3 call next=0x40110d
block 0x401100 0x401108 3 call next=0x40110d
block 0x401100 0x401108 3 cond-taken
block 0x401120 0x401124 2 return
block 0x40110d 0x401110 2 return
block 0x40110d 0x401110 2 return
block 0x401009 0x40100c 2 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 4},
                                {"main;foo", 5},
                                {"main;foo;foo", 5},
                                {"main;foo;foo;foo", 5}}));
  const FunctionStats* foo = FindFunction(run, "foo");
  ASSERT_NE(foo, nullptr);
  EXPECT_EQ(foo->self_insns, 15u);
  EXPECT_EQ(foo->total_insns, 15u);  // recursion counts once
  EXPECT_EQ(foo->calls, 3u);
  EXPECT_EQ(CallEdges(run), (std::map<std::string, uint64_t>{
                                {"foo->foo", 2}, {"main->foo", 1}}));
}

TEST(StackTest, MutualRecursion) {
  // even (foo) and odd (bar) call each other: even(2) odd(1) even(0).
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401200 0x401204 2 call next=0x401209
block 0x401100 0x401104 2 cond-taken
block 0x401140 0x401140 1 return
block 0x401209 0x401209 1 return
block 0x401109 0x401109 1 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3},
                                {"main;foo", 3},
                                {"main;foo;bar", 3},
                                {"main;foo;bar;foo", 3}}));
  EXPECT_EQ(FindFunction(run, "foo")->total_insns, 9u);
  EXPECT_EQ(FindFunction(run, "bar")->total_insns, 6u);
  EXPECT_EQ(CallEdges(run),
            (std::map<std::string, uint64_t>{
                {"bar->foo", 1}, {"foo->bar", 1}, {"main->foo", 1}}));
}

TEST(StackTest, LongjmpReturnPopsSeveralFrames) {
  // baz returns to main's call site (the return address of foo's frame):
  // foo, bar and baz all go.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401200 0x401204 2 call next=0x401209
block 0x401300 0x401304 2 return
block 0x401009 0x40100a 2 return
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 4},
                                {"main;foo", 2},
                                {"main;foo;bar", 2},
                                {"main;foo;bar;baz", 2}}));
}

TEST(StackTest, ReturnWithoutKnownCallerMakesSyntheticRoot) {
  // The trace starts inside foo; its return goes to main (never seen
  // calling), main returns into code without a symbol, which jumps around
  // inside itself and returns outside every image.
  ScriptRun run = RunScript(R"(
block 0x401100 0x401104 2 return
block 0x401009 0x40100c 2 return
block 0x450010 0x450014 2 jump
block 0x450100 0x450104 2 return
block 0x900000 0x900004 3 none
)");
  EXPECT_EQ(
      run.stacks,
      (Stacks{
          {"[prog+0x450010]", 4}, {"[unknown]", 3}, {"foo", 2}, {"main", 2}}));
  EXPECT_TRUE(run.profile.call_edges.empty());
  EXPECT_EQ(run.profile.stats.unknown_region_blocks, 1u);
}

TEST(StackTest, TailCallsByDirectAndIndirectJump) {
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 jump
block 0x401200 0x401204 2 return
block 0x401009 0x401009 1 call next=0x40100f
block 0x401400 0x401400 1 jump-indirect
block 0x401100 0x401100 1 cond-taken
block 0x401150 0x401151 2 return
block 0x40100f 0x40100f 1 none
)");
  // foo's jump to bar is a tail call (bar replaces foo); the PLT stub's
  // indirect jump replaces foo@plt with foo; foo's conditional jump inside
  // foo changes nothing.
  EXPECT_EQ(
      run.stacks,
      (Stacks{
          {"main", 4}, {"main;bar", 2}, {"main;foo", 5}, {"main;foo@plt", 1}}));
  EXPECT_EQ(CallEdges(run), (std::map<std::string, uint64_t>{
                                {"main->foo", 1}, {"main->foo@plt", 1}}));
  EXPECT_EQ(FindFunction(run, "bar")->calls, 0u);
}

TEST(StackTest, JumpIntoTheBodyOfAFunctionOnTheStackUnwinds) {
  // longjmp: baz ends with an indirect jump into main's body (after the
  // setjmp call): foo, bar and baz go, main is the top again, and its own
  // later call and return work on that stack.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401200 0x401204 2 call next=0x401209
block 0x401300 0x401304 2 jump-indirect
block 0x401009 0x40100c 2 call next=0x401011
block 0x401200 0x401201 2 return
block 0x401011 0x401011 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 5},
                                {"main;bar", 2},
                                {"main;foo", 2},
                                {"main;foo;bar", 2},
                                {"main;foo;bar;baz", 2}}));
}

TEST(StackTest, UnwindingStopsAtTheNewestFrameAndKeepsItsReturnAddress) {
  // baz jumps (conditionally) into foo's body: bar and baz go; foo's return
  // then matches foo's own return address.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401200 0x401204 2 call next=0x401209
block 0x401300 0x401304 2 cond-taken
block 0x401150 0x401154 3 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3},
                                {"main;foo", 5},
                                {"main;foo;bar", 2},
                                {"main;foo;bar;baz", 2}}));
}

TEST(StackTest, JumpToAnEntryIsATailCallEvenWhenOnTheStack) {
  // bar jumps to foo's entry: a (recursive-looking) tail call, not an
  // unwind. The new foo frame keeps bar's return address.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401200 0x401204 2 jump
block 0x401100 0x401104 2 return
block 0x401109 0x40110a 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3},
                                {"main;foo", 4},
                                {"main;foo;bar", 2},
                                {"main;foo;foo", 2}}));
}

TEST(StackTest, JumpIntoABodyWithoutAFrameOrIntoUnknownCodeIsATailCall) {
  // main calls code without a symbol, which calls foo; foo jumps into that
  // code again (not an entry, but uncovered code never unwinds): a tail
  // call. It returns to its caller's call site, jumps into baz's body (no
  // baz frame: a tail call) and baz returns to main.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x450000 0x450004 2 call next=0x450009
block 0x401100 0x401104 2 jump
block 0x450020 0x450024 2 return
block 0x450009 0x45000c 2 jump
block 0x401350 0x401354 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3},
                                {"main;[prog+0x450000]", 4},
                                {"main;[prog+0x450000];[prog+0x450020]", 2},
                                {"main;[prog+0x450000];foo", 2},
                                {"main;baz", 2}}));
}

TEST(StackTest, JumpBackIntoTheTopFramesOwnFunctionChangesNothing) {
  // foo's code falls through into bar's (no branch: still foo's frame);
  // bar's code jumps back into foo's body: foo's frame is the top, nothing
  // to unwind or replace.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x4011f8 0x4011fc 2 none next=0x401200
block 0x401200 0x401204 2 jump
block 0x401180 0x401184 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3}, {"main;foo", 6}}));
}

TEST(StackTest, CallToTheNextInstructionIsNoCall) {
  // foo reads its address with `call next; pop`: no frame (it would never
  // return), no call edge; foo's own return still goes back to main.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 call next=0x401109
block 0x401109 0x40110c 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3}, {"main;foo", 4}}));
  EXPECT_EQ(CallEdges(run),
            (std::map<std::string, uint64_t>{{"main->foo", 1}}));
}

TEST(StackTest, SyscallLeavesTheStackAlone) {
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 3 far-call next=0x401106
disabled
enabled 0x401106
block 0x401106 0x401108 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3}, {"main;foo", 5}}));
  EXPECT_EQ(run.profile.stats.disables, 1u);
  EXPECT_EQ(run.profile.stats.enables, 1u);
}

TEST(StackTest, ExecStartsAFreshStackWithoutAGap) {
  // main -> foo, which execs (a syscall, tracing disabled); the new program
  // starts in bar. The EXECUTABLE record at position 130 lies between the
  // disable (offset 120) and the enable (140): bar is a new root, not a
  // frame on top of foo, and no [gap] leaf is left. Every cut of the script
  // (RunScript) puts the exec once in a segment, once between segments.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009 offset=100
block 0x401100 0x401104 2 far-call offset=110
disabled offset=120
exec at=130
region 0 0x400000 0x500000 at=130
enabled 0x401200 offset=140
block 0x401200 0x401204 2 call next=0x401209 offset=150
block 0x401300 0x401300 1 return offset=160
block 0x401209 0x401209 1 none offset=170
)");
  EXPECT_EQ(run.stacks,
            (Stacks{{"main", 2}, {"main;foo", 2}, {"bar", 3}, {"bar;baz", 1}}));
  for (const CallTree::Node& n : run.profile.merged.nodes) {
    EXPECT_NE(n.frame.kind, FrameKind::kGap);
  }
  EXPECT_EQ(CallEdges(run), (std::map<std::string, uint64_t>{
                                {"bar->baz", 1}, {"main->foo", 1}}));
}

TEST(StackTest, ExecBeforeTheFirstEventOfASegment) {
  // The exec's record (position 125) comes after the last event of the old
  // program (120) and before the next event (130): a segment that starts at
  // 130 must reset the stack its predecessor left; one that starts at 120
  // resets it itself.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009 offset=100
block 0x401100 0x401104 2 none offset=120
exec at=125
region 0 0x400000 0x500000 at=125
block 0x401200 0x401204 2 none offset=130
block 0x401300 0x401300 1 none offset=140
)");
  // baz follows bar without a branch: it runs in bar's frame.
  EXPECT_EQ(run.stacks, (Stacks{{"main", 2}, {"main;foo", 2}, {"bar", 3}}));
}

TEST(StackTest, BranchInterruptedAtItsTargetStillWentThere) {
  // main calls foo, whose first instruction faults: tracing stops before it
  // runs (an asynchronous disable at foo) and resumes in the signal handler
  // bar. The call went to foo: bar runs on top of foo's frame (no branch
  // entered it), calls baz, and returns through sigreturn (a far call) to
  // foo, which returns to main.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
disabled 0x401100 interrupted=1
enabled 0x401200
block 0x401200 0x401204 2 call next=0x401209
block 0x401300 0x401300 1 return
block 0x401209 0x40120b 2 far-call
disabled
enabled 0x401100
block 0x401100 0x401104 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks,
            (Stacks{{"main", 3}, {"main;foo", 6}, {"main;foo;baz", 1}}));
  EXPECT_EQ(CallEdges(run), (std::map<std::string, uint64_t>{
                                {"foo->baz", 1}, {"main->foo", 1}}));
  // The entry record of foo is no block of the profile.
  for (const BlockStats& b : run.profile.blocks) EXPECT_GT(b.ninsn, 0u);
  EXPECT_EQ(run.profile.blocks.size(), 6u);
}

TEST(StackTest, InterruptedBranchResumedAtItsTargetIsAnOrdinaryBranch) {
  // An interrupt right after a return: tracing resumes at the return
  // address itself; and a call whose callee ran untraced resumes at the
  // return address: neither changes what the branch does.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 return
disabled 0x401009 interrupted=1
enabled 0x401009
block 0x401009 0x40100c 2 call next=0x401011
disabled 0x401200 interrupted=1
enabled 0x401011
block 0x401011 0x401011 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 5}, {"main;foo", 2}}));
}

TEST(StackTest, GapEndsTheStackAndStartsAfresh) {
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 none
gap overflow
gap decode-error
block 0x401210 0x401214 3 return
block 0x401009 0x401009 1 none
)");
  // After the gap bar is a root; its return finds no caller, so main becomes
  // a synthetic root again (the same stack "main" as before the gap).
  EXPECT_EQ(run.stacks, (Stacks{{"bar", 3}, {"main", 3}, {"main;foo", 2}}));
  const CallTree& tree = run.profile.merged;
  int gap_nodes = 0;
  for (const CallTree::Node& n : tree.nodes) {
    if (n.frame.kind != FrameKind::kGap) continue;
    ++gap_nodes;
    EXPECT_EQ(n.gaps, 1u);  // the second gap had no stack to end
    EXPECT_EQ(run.Name(tree.nodes[n.parent].frame), "foo");
    EXPECT_EQ(n.depth, 3u);
  }
  EXPECT_EQ(gap_nodes, 1);
  EXPECT_EQ(run.profile.stats.gaps, 2u);
  EXPECT_EQ(
      run.profile.stats.gaps_by_reason[static_cast<int>(GapReason::kOverflow)],
      1u);
  // No block edge across the gap.
  for (const BlockEdge& e : run.profile.edges) {
    EXPECT_FALSE(run.profile.blocks[e.from].vaddr == 0x401100 &&
                 run.profile.blocks[e.to].vaddr == 0x401210);
  }
  EXPECT_EQ(run.profile.edges.size(), 2u);
}

TEST(StackTest, TimingWeightIsTimeUntilTheNextBlock) {
  ScriptRun run = RunScript(R"(
timestamp 100
block 0x401000 0x401004 2 call next=0x401009
timestamp 110
block 0x401100 0x401104 2 call next=0x401109
timestamp 130
block 0x401200 0x401204 2 return
timestamp 135
block 0x401109 0x401109 1 return
block 0x401009 0x401009 1 none
sync
block 0x40100a 0x40100a 1 none
timestamp 200
disabled
timestamp 250
enabled 0x40100b
block 0x40100b 0x40100b 1 none
timestamp 300
gap overflow
)");
  // main: 10 (first block) + 0 + 65 (until the disable at 200) + dropped
  // (the last block's time runs into a gap).
  EXPECT_EQ(StackWeights(run.script, run.profile.merged, /*time=*/true),
            (Stacks{{"main", 75}, {"main;foo", 20}, {"main;foo;bar", 5}}));
  EXPECT_TRUE(run.profile.has_time);
  EXPECT_EQ(run.profile.stats.time, 100u);
  EXPECT_EQ(FindFunction(run, "main")->total_time, 100u);
  EXPECT_EQ(FindFunction(run, "foo")->total_time, 25u);
  uint64_t block_time = 0;
  for (const BlockStats& b : run.profile.blocks) block_time += b.time;
  EXPECT_EQ(block_time, 100u);
}

TEST(StackTest, PerStreamAndMergedTrees) {
  ScriptRun run = RunScript(R"(
stream 0
block 0x401000 0x401004 2 call next=0x401009
stream 1
block 0x401000 0x401004 2 call next=0x401009
block 0x401200 0x401204 3 return
stream 0
block 0x401100 0x401104 4 return
block 0x401009 0x401009 1 none
stream 1
block 0x401009 0x401009 1 none
)");
  ASSERT_EQ(run.profile.threads.size(), 2u);
  EXPECT_EQ(run.profile.threads[0].stream, 0u);
  EXPECT_EQ(StackWeights(run.script, run.profile.threads[0].tree),
            (Stacks{{"main", 3}, {"main;foo", 4}}));
  EXPECT_EQ(StackWeights(run.script, run.profile.threads[1].tree),
            (Stacks{{"main", 3}, {"main;bar", 3}}));
  EXPECT_EQ(run.stacks,
            (Stacks{{"main", 6}, {"main;bar", 3}, {"main;foo", 4}}));
}

TEST(StackTest, OneThreadsMergedTreeIsItsTree) {
  // Stream 1 only lost trace: no tree of its own, so the merged tree is
  // stream 0's alone (FinishProfile copies it instead of building it again).
  ScriptRun run = RunScript(R"(
stream 1
gap overflow
stream 0
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 4 return
block 0x401009 0x401009 1 none
)");
  ASSERT_EQ(run.profile.threads.size(), 1u);
  EXPECT_EQ(run.profile.threads[0].stream, 0u);
  EXPECT_EQ(run.profile.merged.nodes, run.profile.threads[0].tree.nodes);
  EXPECT_EQ(run.profile.merged.node_blocks,
            run.profile.threads[0].tree.node_blocks);
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3}, {"main;foo", 4}}));
}

TEST(StackTest, TracedKernelHandlerGetsAFarFrame) {
  ScriptRun run = RunScript(R"(
image /boot/kernel kernel
region 1 0xffffffff80000000 0xffffffff80100000 bias=0xffffffff00000000
function 1 0x80000000 0x80000100 syscall_entry
function 1 0x80000100 0x80000200 sys_read
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 far-call next=0x401106
block 0xffffffff80000000 0xffffffff80000004 3 call next=0xffffffff80000009
block 0xffffffff80000100 0xffffffff80000104 4 return
block 0xffffffff80000009 0xffffffff8000000a 2 far-return
block 0x401106 0x401106 1 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3},
                                {"main;foo", 3},
                                {"main;foo;syscall_entry", 5},
                                {"main;foo;syscall_entry;sys_read", 4}}));
  // The far transfer is not a near call.
  EXPECT_EQ(CallEdges(run),
            (std::map<std::string, uint64_t>{{"main->foo", 1},
                                             {"syscall_entry->sys_read", 1}}));
}

TEST(StackTest, ExceptionBeforeACallTargetKeepsTheCall) {
  // An interrupt right after a call, its handler not traced: the call still
  // pushes foo when foo's first instruction runs.
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
exception 0x401100
disabled
enabled 0x401100
block 0x401100 0x401104 2 return
block 0x401009 0x401009 1 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 3}, {"main;foo", 2}}));
  EXPECT_EQ(run.profile.stats.exceptions, 1u);
}

TEST(StackTest, UntracedCalleeLeavesNoFrame) {
  ScriptRun run = RunScript(R"(
block 0x401000 0x401004 2 call next=0x401009
disabled
enabled 0x401009
block 0x401009 0x40100a 2 none
)");
  EXPECT_EQ(run.stacks, (Stacks{{"main", 4}}));
  EXPECT_TRUE(run.profile.call_edges.empty());
}

TEST(StackTest, CpuModeKeepsOneStackPerContext) {
  ScriptRun run = RunScript(R"(
option per_context
paging 0x1000
block 0x401000 0x401004 2 call next=0x401009
paging 0x2000
block 0x401200 0x401204 3 none
paging 0x1000
block 0x401100 0x401104 2 return
block 0x401009 0x401009 1 none
paging 0x2000
block 0x401205 0x401205 1 none
)");
  ASSERT_EQ(run.profile.threads.size(), 2u);
  EXPECT_EQ(run.profile.threads[0].context, 0x1000u);
  EXPECT_EQ(StackWeights(run.script, run.profile.threads[0].tree),
            (Stacks{{"main", 3}, {"main;foo", 2}}));
  EXPECT_EQ(run.profile.threads[1].context, 0x2000u);
  EXPECT_EQ(StackWeights(run.script, run.profile.threads[1].tree),
            (Stacks{{"bar", 4}}));
  // Edges follow each context's own flow: bar -> bar, never bar -> foo.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
  for (const BlockEdge& e : run.profile.edges) {
    edges[{run.profile.blocks[e.from].vaddr, run.profile.blocks[e.to].vaddr}] +=
        e.count;
  }
  EXPECT_EQ(edges, (std::map<std::pair<uint64_t, uint64_t>, uint64_t>{
                       {{0x401000, 0x401100}, 1},
                       {{0x401100, 0x401009}, 1},
                       {{0x401200, 0x401205}, 1}}));
}

TEST(StackTest, ResolverIsAskedOncePerAddress) {
  absl::StatusOr<EventScript> script =
      ParseEventScript(absl::StrCat(kProgram, R"(
block 0x401000 0x401004 2 call next=0x401009
block 0x401100 0x401104 2 cond-taken
block 0x401100 0x401104 2 cond-taken
block 0x401100 0x401104 2 cond-taken
block 0x401100 0x401108 3 return
block 0x401009 0x401009 1 call next=0x40100f
block 0x401100 0x401104 2 cond-taken
block 0x401100 0x401108 3 return
block 0x40100f 0x40100f 1 none
)"));
  ASSERT_TRUE(script.ok());
  testing::FakeResolver resolver(script->functions);
  ProfileBuilder builder(script->timeline, resolver, script->options);
  testing::FeedEvents(script->events, builder);
  for (const auto& [address, calls] : resolver.calls_per_address()) {
    EXPECT_EQ(calls, 1) << address.second;
  }
  EXPECT_EQ(builder.resolver_calls(), resolver.calls());
  // Unique addresses: 0x401000 0x401004 0x401100 0x401104 0x401108
  // 0x401009 0x40100f.
  EXPECT_EQ(resolver.calls(), 7u);
}

// Asks the wrapped resolver about every address: it does not say which
// images have no functions (FunctionResolver::HasFunctions stays true).
class AskEveryImage : public FunctionResolver {
 public:
  explicit AskEveryImage(FunctionResolver& inner) : inner_(inner) {}
  std::optional<FunctionRange> FunctionAt(uint32_t image,
                                          uint64_t vaddr) override {
    return inner_.FunctionAt(image, vaddr);
  }

 private:
  FunctionResolver& inner_;
};

TEST(StackTest, ImagesWithoutFunctionsAreNotAskedAndProfileTheSame) {
  // Image 1 is a memory dump without symbols (as the images of a CoreSight
  // snapshot): main calls into it twice, and its code calls itself.
  constexpr char kIntoTheDump[] = R"(
block 0x600000 0x600008 3 call next=0x60000c
block 0x600100 0x600104 2 return
block 0x60000c 0x600010 2 return
)";
  absl::StatusOr<EventScript> script = ParseEventScript(
      absl::StrCat(kProgram, "image /dump.bin\nregion 1 0x600000 0x700000\n",
                   "block 0x401000 0x401004 2 call next=0x401009", kIntoTheDump,
                   "block 0x401009 0x401009 1 call next=0x40100f", kIntoTheDump,
                   "block 0x40100f 0x40100f 1 none\n"));
  ASSERT_TRUE(script.ok()) << script.status();

  testing::FakeResolver told(script->functions);
  ProfileBuilder skipping(script->timeline, told, script->options);
  testing::FeedEvents(script->events, skipping);
  for (const auto& [address, calls] : told.calls_per_address()) {
    EXPECT_EQ(address.first, 0u)
        << "asked about image 1 at 0x" << std::hex << address.second;
  }
  EXPECT_EQ(skipping.resolver_calls(), told.calls());

  testing::FakeResolver untold_inner(script->functions);
  AskEveryImage untold(untold_inner);
  ProfileBuilder asking(script->timeline, untold, script->options);
  testing::FeedEvents(script->events, asking);
  // Without being told, the builder asks about image 1's addresses too.
  EXPECT_GT(asking.resolver_calls(), skipping.resolver_calls());

  const Profile skipped = skipping.Finish();
  const Profile asked = asking.Finish();
  EXPECT_EQ(
      testing::FirstDifference(ProfileToText(skipped), ProfileToText(asked)),
      "");
  EXPECT_EQ(skipped.blocks, asked.blocks);
  EXPECT_EQ(StackWeights(*script, skipped.merged),
            (Stacks{{"main", 4},
                    {"main;[dump.bin+0x600000]", 10},
                    {"main;[dump.bin+0x600000];[dump.bin+0x600100]", 4}}));
}

TEST(StackTest, BlocksThatFollowOneBlockInTurnStayApart) {
  // The blocks after 0x401000's conditional branch alternate among four
  // that share an address and differ in one field each (instruction count,
  // last address, branch kind): the builder's memo of the last two
  // successors of a block (events naming their region, as CoreSight's do)
  // must hit only on an exact match and make room for the newest.
  const char* const kSuccessors[] = {
      "0x401010 0x401014 2 jump", "0x401010 0x401018 3 jump",
      "0x401010 0x401014 2 jump", "0x401010 0x401014 2 cond-taken",
      "0x401010 0x401014 3 jump", "0x401010 0x401018 3 jump",
      "0x401010 0x401014 2 jump", "0x401010 0x401014 3 jump"};
  std::string text = absl::StrCat(
      kProgram, "block 0x401100 0x401100 1 call next=0x401105 region=1\n");
  for (const char* successor : kSuccessors) {
    absl::StrAppend(&text,
                    "block 0x401000 0x401004 2 cond-taken region=1\nblock ",
                    successor, " next=0x401000 region=1\n");
  }
  absl::StatusOr<EventScript> script = ParseEventScript(text);
  ASSERT_TRUE(script.ok()) << script.status();
  const Profile profile = testing::BuildProfile(*script);
  std::map<std::tuple<uint64_t, uint64_t, uint32_t, BranchKind>, uint64_t>
      counts;
  for (const BlockStats& b : profile.blocks) {
    counts[{b.vaddr, b.last_vaddr, b.ninsn, b.end}] += b.count;
  }
  using K = std::tuple<uint64_t, uint64_t, uint32_t, BranchKind>;
  EXPECT_EQ(counts, (std::map<K, uint64_t>{
                        {K{0x401100, 0x401100, 1, BranchKind::kCall}, 1},
                        {K{0x401000, 0x401004, 2, BranchKind::kCondTaken}, 8},
                        {K{0x401010, 0x401014, 2, BranchKind::kJump}, 3},
                        {K{0x401010, 0x401018, 3, BranchKind::kJump}, 2},
                        {K{0x401010, 0x401014, 2, BranchKind::kCondTaken}, 1},
                        {K{0x401010, 0x401014, 3, BranchKind::kJump}, 2},
                    }));
  EXPECT_EQ(profile.merged.nodes[0].total_insns,
            1u + 8 * 2 + 3 * 2 + 2 * 3 + 1 * 2 + 2 * 3);
}

}  // namespace
}  // namespace hwt::analysis
