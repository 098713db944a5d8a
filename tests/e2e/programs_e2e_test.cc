// End to end over every program of testdata/programs (static and dynamic;
// threads is left out: the ptrace recorder refuses threads): each is run
// once under the ptrace recorder, and the programs other than cpuid_probe
// once more under the valgrind recorder (its own instruction addresses and
// lengths: VEX's, and its own mapping events: where valgrind loaded ld.so and
// the libraries), and written as a PT capture bundle by
// RecordCapture, then decoded (CreateDecoder + InsnWalker) and profiled
// (ProfileCapture + Symbolizer + report/profile/folded.h) the way the tools do.
// The decoded instruction sequence must equal the recorded one exactly, and the
// folded stacks, per-function counts and call edges must equal truth/ byte
// for byte. The same run is then encoded again (replayed, not re-run) with
// return compression off, with timing packets, with a small PSB period, and
// with an injected overflow, and checked again (one test per program: the
// recording is the slow part, the encodings reuse it).
//
// Inline frames are off in the comparison: the ground truth's frames are
// real frames only (docs/call-stacks.md); the programs are built -fno-inline
// but libc's DWARF (libc6-dbg) would add inline frames below libc
// functions.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "decoders/event.h"
#include "gtest/gtest.h"
#include "recorder/ground_truth.h"
#include "recorder/testing/test_programs.h"
#include "tests/e2e/testing/e2e_pipeline.h"

namespace hwt::e2e {
namespace {

struct ProgramCase {
  std::vector<std::string> argv;  // argv[0]: a test program's name
  // The program execs: it is also encoded with a PSB right at the exec's
  // record (right after its TIP.PGD), where libipt reads ahead into the
  // PSB+ before it returns the old program's last blocks.
  bool execs = false;
  recorder::RecorderKind recorder = recorder::RecorderKind::kPtrace;
};

std::string CaseName(const ProgramCase& c) {
  // Arguments that are paths are named by their last component.
  std::string name =
      absl::StrJoin(c.argv, "_", [](std::string* out, const std::string& arg) {
        out->append(arg.substr(arg.rfind('/') + 1));
      });
  std::replace_if(
      name.begin(), name.end(), [](char ch) { return !isalnum(ch); }, '_');
  if (c.recorder == recorder::RecorderKind::kValgrind) name += "_valgrind";
  return name;
}

void PrintTo(const ProgramCase& c, std::ostream* os) { *os << CaseName(c); }

std::vector<ProgramCase> Cases() {
  std::vector<ProgramCase> cases = {
      {{"counted_static"}},
      {{"jumps_static"}},
      {{"cpuid_probe_static", "leaf0"}},
  };
  // Small arguments: the recorder steps ~10-20k instructions per second.
  const std::vector<std::vector<std::string>> programs = {
      {"fib", "8"},      {"indirect", "50"}, {"switch", "60"},
      {"strings"},       {"longjmp"},        {"hot", "300"},
      {"crash", "segv"}, {"crash", "exit"},  {"crash", "handled"},
      {"maps"},          {"execs"},
  };
  for (const char* kind : {"static", "dynamic"}) {
    for (std::vector<std::string> argv : programs) {
      argv[0] = absl::StrCat(argv[0], "_", kind);
      // execs replaces itself with counted_static.
      if (argv[0].rfind("execs", 0) == 0) {
        argv.push_back(TestProgram("counted_static"));
      }
      cases.push_back({argv, argv[0].rfind("execs", 0) == 0});
    }
  }
  // The same programs under valgrind (cpuid_probe's leaves differ there:
  // recorder/cross_check_test.cc compares the recorders on it).
  const size_t ptrace_cases = cases.size();
  for (size_t i = 0; i < ptrace_cases; ++i) {
    if (cases[i].argv[0].rfind("cpuid_probe", 0) == 0) continue;
    ProgramCase c = cases[i];
    c.recorder = recorder::RecorderKind::kValgrind;
    cases.push_back(c);
  }
  return cases;
}

// An injected overflow loses exactly the instructions the encoder says, the
// decoder reports it at the OVF packet, the profile shows a [gap].
void ExpectOverflowLosesItsInstructions(const RecordedProgram& p) {
  SCOPED_TRACE("overflow");
  const std::vector<uint64_t>& recorded = p.log().instructions();
  ASSERT_GT(recorded.size(), 10u);

  recorder::PtEncoderOptions options;
  recorder::PtOverflow overflow;
  overflow.first_instruction = recorded.size() / 2;
  overflow.instructions = std::min<uint64_t>(recorded.size() / 4, 1000);
  options.overflows.push_back(overflow);
  auto encoded = p.Encode("overflow", options);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  ASSERT_EQ(encoded->encoder.overflows, 1u);
  const std::vector<recorder::PtLostRange>& lost = encoded->encoder.lost;
  ASSERT_FALSE(lost.empty());
  const std::string bundle = p.dir() + "/overflow.hwt";

  absl::StatusOr<Decoded> decoded = DecodeInstructions(bundle);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->walk_errors.empty()) << decoded->walk_errors[0];
  EXPECT_EQ(
      SequenceDifference(decoded->instructions, WithoutLost(recorded, lost)),
      "");
  // The fast path counts the same (it leaves the overflow to libipt).
  EXPECT_EQ(TotalStats(decoded->fast_stats).instructions,
            recorded.size() - encoded->encoder.lost_instructions);
  EXPECT_EQ(TotalStats(decoded->fast_stats).overflows, 1u);
  // The decoder reports the overflow, at the OVF packet.
  EXPECT_EQ(decoded->total_overflows(), 1u);
  ASSERT_EQ(decoded->gaps.size(), 1u);
  EXPECT_EQ(decoded->gaps[0].reason, GapReason::kOverflow);
  absl::StatusOr<std::vector<uint64_t>> ovf = PacketOffsets(bundle, "ovf");
  ASSERT_TRUE(ovf.ok()) << ovf.status();
  ASSERT_EQ(ovf->size(), 1u);
  // The decoder reports the overflow at the OVF packet itself (libipt
  // returns it only after reading the FUP or TIP.PGE it binds to).
  bool listed = false;
  for (const StreamStats& s : decoded->stats) {
    for (const DecodeErrorInfo& e : s.error_list) {
      if (e.reason == GapReason::kOverflow) {
        listed = true;
        EXPECT_EQ(e.offset, (*ovf)[0]) << "overflow reported at " << e.offset
                                       << ", OVF packet at " << (*ovf)[0];
      }
    }
  }
  EXPECT_TRUE(listed);
  EXPECT_EQ(decoded->gaps[0].offset, (*ovf)[0]);
  for (const StreamStats& s : decoded->fast_stats) {
    for (const DecodeErrorInfo& e : s.error_list) {
      if (e.reason == GapReason::kOverflow) {
        EXPECT_EQ(e.offset, (*ovf)[0]);
      }
    }
  }

  // The profile shows the gap as a [gap] leaf.
  absl::StatusOr<Profiled> profiled = ProfileWithSymbols(bundle);
  ASSERT_TRUE(profiled.ok()) << profiled.status();
  EXPECT_EQ(profiled->profile.stats
                .gaps_by_reason[static_cast<size_t>(GapReason::kOverflow)],
            1u);
  uint64_t gap_leaves = 0;
  for (const analysis::CallTree::Node& node : profiled->profile.merged.nodes) {
    if (node.frame.kind == analysis::FrameKind::kGap) gap_leaves += node.gaps;
  }
  EXPECT_EQ(gap_leaves, 1u);
  EXPECT_EQ(profiled->profile.stats.instructions,
            recorded.size() - encoded->encoder.lost_instructions);
}

class ProgramE2eTest : public ::testing::TestWithParam<ProgramCase> {
 protected:
  // Encodes the run with the smallest PSB period from 64 bytes up that puts
  // a PSB exactly at the exec's position, and requires the exact result.
  void ExpectExactWithAPsbAtTheExec(const RecordedProgram& p,
                                    const std::vector<uint64_t>& expected,
                                    const Truth& truth) {
    SCOPED_TRACE("psb-at-exec");
    for (uint32_t period = 64; period <= 1024; ++period) {
      recorder::PtEncoderOptions options;
      options.psb_period = period;
      auto encoded = p.Encode("psb-at-exec", options);
      ASSERT_TRUE(encoded.ok()) << encoded.status();
      const std::string bundle = p.dir() + "/psb-at-exec.hwt";
      absl::StatusOr<std::vector<uint64_t>> execs = ExecPositions(bundle);
      ASSERT_TRUE(execs.ok()) << execs.status();
      absl::StatusOr<std::vector<uint64_t>> psbs = PacketOffsets(bundle, "psb");
      ASSERT_TRUE(psbs.ok()) << psbs.status();
      const bool at_exec =
          std::any_of(execs->begin(), execs->end(), [&](uint64_t position) {
            return position > 0 && std::find(psbs->begin(), psbs->end(),
                                             position) != psbs->end();
          });
      if (!at_exec) continue;
      std::cout << "psb-at-exec: PSB period " << period << "\n";
      absl::StatusOr<Truth> variant_truth = ReadTruth(bundle);
      ASSERT_TRUE(variant_truth.ok()) << variant_truth.status();
      ExpectExact(absl::StrCat("psb-at-exec, period ", period), bundle,
                  expected, *variant_truth);
      return;
    }
    ADD_FAILURE() << "no PSB period in [64, 1024] puts a PSB at the exec";
  }

  // The decoder and the analysis on `bundle` must reproduce `expected`
  // (the recorded sequence) and `truth` exactly.
  void ExpectExact(const std::string& what, const std::string& bundle,
                   const std::vector<uint64_t>& expected, const Truth& truth) {
    SCOPED_TRACE(what);
    absl::StatusOr<Decoded> decoded = DecodeInstructions(bundle);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(decoded->walk_errors.empty())
        << decoded->walk_errors.size()
        << " blocks not expanded, first: " << decoded->walk_errors[0];
    EXPECT_EQ(decoded->total_errors(), 0u);
    EXPECT_TRUE(decoded->gaps.empty()) << DescribeEvent(decoded->gaps.front());
    EXPECT_EQ(SequenceDifference(decoded->instructions, expected), "");
    EXPECT_EQ(decoded->total_instructions(), truth.instructions);
    EXPECT_EQ(TotalStats(decoded->fast_stats).instructions, truth.instructions);
    EXPECT_EQ(TotalStats(decoded->fast_stats).errors, 0u);
    recorder::InstructionDigest digest;
    digest.Add(decoded->instructions);
    EXPECT_EQ(absl::StrFormat("fnv1a64:%016x", digest.value()), truth.digest);

    absl::StatusOr<Profiled> profiled = ProfileWithSymbols(bundle);
    ASSERT_TRUE(profiled.ok()) << profiled.status();
    EXPECT_EQ(profiled->profile.stats.instructions, truth.instructions);
    EXPECT_EQ(profiled->profile.stats.gaps, 0u);
    EXPECT_EQ(TextDifference(profiled->folded, truth.folded), "");
    EXPECT_TRUE(profiled->functions == truth.functions)
        << "per-function self/total differ from truth/summary.json";
    for (const auto& [name, counts] : truth.functions) {
      auto it = profiled->functions.find(name);
      if (it == profiled->functions.end()) {
        ADD_FAILURE() << "function " << name << " missing";
        break;
      }
      if (it->second != counts) {
        ADD_FAILURE() << name << ": self/total " << it->second.first << "/"
                      << it->second.second << ", truth " << counts.first << "/"
                      << counts.second;
        break;
      }
    }
    EXPECT_TRUE(profiled->call_edges == truth.call_edges)
        << "call edges differ from truth/summary.json";
  }
};

TEST_P(ProgramE2eTest, DecodeAndProfileReproduceTheRecording) {
  std::vector<std::string> argv = GetParam().argv;
  argv[0] = TestProgram(argv[0]);
  if (GetParam().recorder == recorder::RecorderKind::kValgrind) {
    HWT_REQUIRE_VALGRIND();
  }
  auto program = RecordedProgram::Record(argv, GetParam().recorder);
  ASSERT_TRUE(program.ok()) << program.status();
  const RecordedProgram& p = **program;
  const std::vector<uint64_t>& recorded = p.log().instructions();
  absl::StatusOr<Truth> truth = ReadTruth(p.bundle());
  ASSERT_TRUE(truth.ok()) << truth.status();
  ASSERT_EQ(truth->instructions, recorded.size());
  std::cout << CaseName(GetParam()) << ": " << recorded.size()
            << " instructions recorded in " << p.result().recording.seconds
            << " s, " << p.result().encoder.bytes << " bytes of PT\n";

  ExpectExact("default encoding", p.bundle(), recorded, *truth);

  // The same run, other encodings: the result must not change.
  recorder::PtEncoderOptions no_retc;
  no_retc.return_compression = false;
  recorder::PtEncoderOptions timing;
  timing.timing.tsc = true;
  timing.timing.mtc = true;
  timing.timing.cyc = true;
  recorder::PtEncoderOptions small_psb;
  small_psb.psb_period = 256;
  const std::vector<std::pair<std::string, recorder::PtEncoderOptions>>
      variants = {
          {"no-retc", no_retc}, {"timing", timing}, {"small-psb", small_psb}};
  for (const auto& [name, options] : variants) {
    auto encoded = p.Encode(name, options);
    ASSERT_TRUE(encoded.ok()) << name << ": " << encoded.status();
    const std::string bundle = p.dir() + "/" + name + ".hwt";
    absl::StatusOr<Truth> variant_truth = ReadTruth(bundle);
    ASSERT_TRUE(variant_truth.ok()) << variant_truth.status();
    EXPECT_EQ(variant_truth->folded, truth->folded) << name;
    ExpectExact(name, bundle, recorded, *variant_truth);
    if (name == "timing") {
      absl::StatusOr<Profiled> profiled = ProfileWithSymbols(bundle);
      ASSERT_TRUE(profiled.ok());
      EXPECT_TRUE(profiled->profile.has_time);
      EXPECT_GT(profiled->profile.stats.time, 0u);
    }
  }

  if (GetParam().execs) ExpectExactWithAPsbAtTheExec(p, recorded, *truth);
  ExpectOverflowLosesItsInstructions(p);
}

INSTANTIATE_TEST_SUITE_P(Programs, ProgramE2eTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return CaseName(info.param); });

}  // namespace
}  // namespace hwt::e2e
