// PtEncoder's timing packets (TSC, MTC, CYC: the times libipt decodes must
// be those of the clock model) and injected overflows (the instructions lost
// are exactly the ones the encoder reports), through libipt's decoders.
#include <intel-pt.h>

#include <functional>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "decoders/x86/x86_insn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"
#include "recorder/testing/pt_roundtrip.h"

namespace hwt::recorder {
namespace {

using ::hwt::recorder::testing::BytesInsnSource;
using ::hwt::recorder::testing::CheckBlocks;
using ::hwt::recorder::testing::CheckRoundTrip;
using ::hwt::recorder::testing::Code;
using ::hwt::recorder::testing::DecodedEvent;
using ::hwt::recorder::testing::DecodeInsns;
using ::hwt::recorder::testing::DecodePackets;
using ::hwt::recorder::testing::Describe;
using ::hwt::recorder::testing::DescribeAll;
using ::hwt::recorder::testing::Encode;
using ::hwt::recorder::testing::Encoded;
using ::hwt::recorder::testing::EncodeSynthetic;
using ::hwt::recorder::testing::FullIp;
using ::hwt::recorder::testing::Image;
using ::hwt::recorder::testing::InsnDecode;
using ::hwt::recorder::testing::IpcName;
using ::hwt::recorder::testing::MakeConfig;
using ::hwt::recorder::testing::MakeImage;
using ::hwt::recorder::testing::MakeProgram;
using ::hwt::recorder::testing::PacketList;
using ::hwt::recorder::testing::RecordingSink;
using ::hwt::recorder::testing::SmallProgram;
using ::hwt::recorder::testing::SyntheticCase;
using ::hwt::recorder::testing::Visible;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

// ---------------------------------------------------------------------------
// Timing

bool IsQueryPacket(pt_packet_type type) {
  switch (type) {
    case ppt_tnt_8:
    case ppt_tnt_64:
    case ppt_tip:
    case ppt_tip_pge:
    case ppt_tip_pgd:
    case ppt_fup:
    case ppt_psb:
    case ppt_ovf:
      return true;
    default:
      return false;
  }
}

// A packet that answers decoder queries (branch outcomes, events) and the
// model time a decoder has when it reads it: that of the last TSC/MTC/CYC
// before it (for PSB: the TSC in its PSB+).
struct QueryPacket {
  uint64_t first_instruction = 0;
  uint64_t time = 0;
  const PtPacketInfo* info = nullptr;
};

std::vector<QueryPacket> QueryPackets(
    const std::vector<PtPacketInfo>& packets) {
  std::vector<QueryPacket> out;
  uint64_t time = 0;
  for (size_t i = 0; i < packets.size(); ++i) {
    const PtPacketInfo& p = packets[i];
    if (p.packet.type == ppt_tsc || p.packet.type == ppt_mtc ||
        p.packet.type == ppt_cyc) {
      time = p.tsc;
    }
    if (!IsQueryPacket(p.packet.type)) continue;
    uint64_t at = time;
    if (p.packet.type == ppt_psb) {
      for (size_t j = i + 1;
           j < packets.size() && packets[j].packet.type != ppt_psbend; ++j) {
        if (packets[j].packet.type == ppt_tsc) at = packets[j].tsc;
      }
    }
    out.push_back({p.first_instruction, at, &p});
  }
  return out;
}

// libipt reports for an instruction the time of the last query it answered
// (pt_qry's last_time: at the TNT packet when it is cached, at a TIP, at an
// event), "a few packets ahead" of the instruction. So the decoded time of
// execution instruction k must lie between the time of the query packet
// before the one that covers k and that of the one after it.
void CheckInstructionTimes(const Encoded& e, const InsnDecode& decoded,
                           uint64_t tolerance) {
  const std::vector<QueryPacket> queries = QueryPackets(e.packets);
  ASSERT_FALSE(queries.empty());
  size_t m = 0;  // last query packet whose first instruction is <= k
  uint64_t previous = 0;
  for (size_t k = 0; k < decoded.times.size(); ++k) {
    while (m + 1 < queries.size() && queries[m + 1].first_instruction <= k) ++m;
    const uint64_t low = queries[m > 0 ? m - 1 : 0].time;
    const uint64_t high = queries[std::min(m + 2, queries.size() - 1)].time;
    const uint64_t t = decoded.times[k];
    ASSERT_GE(t, previous) << "time went backwards at instruction " << k;
    previous = t;
    ASSERT_TRUE(t + tolerance >= low && t <= high + tolerance)
        << "instruction " << k << " decoded time " << t << " not in [" << low
        << ", " << high << "] (query packet at offset "
        << queries[m].info->offset << ")";
  }
}

// Enable/disable events carry the time at their TIP.PGE/TIP.PGD: exactly the
// model time of that packet when a CYC precedes it, the last MTC/TSC before
// it otherwise.
void CheckEventTimes(const Encoded& e, const InsnDecode& decoded,
                     uint64_t tolerance) {
  std::vector<const PtPacketInfo*> pge, pgd;
  for (const PtPacketInfo& p : e.packets) {
    if (p.packet.type == ppt_tip_pge) pge.push_back(&p);
    if (p.packet.type == ppt_tip_pgd) pgd.push_back(&p);
  }
  const std::vector<QueryPacket> queries = QueryPackets(e.packets);
  auto time_at = [&](const PtPacketInfo* info) {
    for (const QueryPacket& q : queries) {
      if (q.info == info) return q.time;
    }
    return uint64_t{0};
  };
  size_t enabled = 0, disabled = 0;
  for (const DecodedEvent& ev : decoded.events) {
    const PtPacketInfo* packet = nullptr;
    if (ev.event.type == ptev_enabled) {
      ASSERT_LT(enabled, pge.size());
      packet = pge[enabled++];
    } else if (ev.event.type == ptev_disabled ||
               ev.event.type == ptev_async_disabled) {
      ASSERT_LT(disabled, pgd.size());
      packet = pgd[disabled++];
    } else {
      continue;
    }
    ASSERT_TRUE(ev.event.has_tsc);
    const uint64_t low = time_at(packet);
    EXPECT_TRUE(ev.event.tsc + tolerance >= low &&
                ev.event.tsc <= packet->tsc + tolerance)
        << "event " << ev.event.type << " at offset " << packet->offset
        << " time " << ev.event.tsc << " model [" << low << ", " << packet->tsc
        << "]";
  }
  EXPECT_EQ(enabled, pge.size());
  EXPECT_EQ(disabled, pgd.size());
}

void CheckTiming(const PtTimingOptions& timing, uint64_t seed,
                 uint64_t tolerance) {
  SyntheticProgramOptions program;
  program.seed = seed;
  SyntheticCase c = MakeProgram(program);
  PtEncoderOptions options;
  options.timing = timing;
  options.psb_period = 2048;
  SyntheticExecutionOptions run;
  run.instructions = 40000;
  run.seed = seed;
  Encoded e = EncodeSynthetic(c.program, options, run, /*observe=*/true);
  CheckRoundTrip(c, e);
  if (timing.mtc) {
    EXPECT_GT(e.stats.packets[ppt_mtc], 100u);
  }
  if (timing.cyc) {
    EXPECT_GT(e.stats.packets[ppt_cyc], 1000u);
  }
  if (timing.tsc) {
    EXPECT_EQ(e.stats.packets[ppt_tsc], e.stats.psbs);
  }

  // Every timing packet's payload against the clock model.
  uint64_t last_cyc_tsc = timing.tsc_start;
  for (const PtPacketInfo& p : e.packets) {
    if (p.packet.type == ppt_tsc) {
      EXPECT_EQ(p.packet.payload.tsc.tsc, p.tsc);
    }
    if (p.packet.type == ppt_mtc) {
      const uint64_t ctc = p.tsc * timing.cpuid_15_eax / timing.cpuid_15_ebx;
      EXPECT_EQ(p.packet.payload.mtc.ctc, (ctc >> timing.mtc_freq) & 0xff);
    }
    if (p.packet.type == ppt_cyc) {
      EXPECT_EQ(p.tsc, e.tsc_at_cycle(p.cycle));
      EXPECT_GT(p.packet.payload.cyc.value, 0u);
      EXPECT_GE(p.tsc, last_cyc_tsc);
      last_cyc_tsc = p.tsc;
    }
  }

  // libipt adds each CYC to its fast counter as whole TSC ticks
  // ((cyc * fcr) >> shift), restarting at TSC and MTC: with a fractional
  // TSC/core ratio each CYC since the last TSC/MTC may lose up to a tick.
  if (timing.nom_freq % timing.cbr != 0) {
    uint64_t run = 0, longest = 0;
    for (const PtPacketInfo& p : e.packets) {
      if (p.packet.type == ppt_tsc || p.packet.type == ppt_mtc) run = 0;
      if (p.packet.type == ppt_cyc) longest = std::max(longest, ++run);
    }
    tolerance += longest;
    ::testing::Test::RecordProperty("cyc_rounding_tolerance",
                                    static_cast<int>(tolerance));
  }

  InsnDecode decoded = DecodeInsns(e.trace, {c.image}, timing);
  ASSERT_EQ(decoded.ips, Visible(e.ips, e.stats));
  ASSERT_EQ(decoded.times.size(), decoded.ips.size());
  CheckInstructionTimes(e, decoded, tolerance);
  CheckEventTimes(e, decoded, tolerance);
}

// A mapping change reported after a system call (exec, mmap) lies after the
// system call's TIP.PGD: the kernel acts once tracing is off, and a reset at
// an exec must not cover the old program's last blocks.
TEST(PtEncoderTest, MappingAfterASyscallLiesAfterItsTipPgd) {
  Code code = SmallProgram();
  std::string trace;
  PtEncoder encoder(&code.source, PtEncoderOptions{}, StringWriter(&trace));
  MappingEvent exec;
  exec.type = capture::RecordType::kExecutable;
  exec.path = "/bin/prog";
  encoder.OnMapping(exec);
  // xor, je taken (a pending TNT bit), call, compressed ret, jmp rax,
  // syscall; then the new program from its start.
  encoder.OnInstructions(
      std::vector<uint64_t>{0x1000, 0x1002, 0x1007, 0x1011, 0x100c, 0x100e});
  encoder.OnMapping(exec);
  encoder.OnInstructions(std::vector<uint64_t>{0x1000, 0x1002});
  encoder.OnExit(0);
  ASSERT_TRUE(encoder.Finish().ok());
  ASSERT_EQ(encoder.records().size(), 2u);
  const uint64_t position = encoder.records()[1].positions[0].offset;
  PacketList list = DecodePackets(trace);
  ASSERT_TRUE(list.errors.empty()) << list.errors[0];
  size_t pgd = 0;
  while (pgd < list.packets.size() && list.packets[pgd].type != ppt_tip_pgd) {
    ++pgd;
  }
  ASSERT_LT(pgd + 1, list.packets.size());
  EXPECT_EQ(position, list.offsets[pgd + 1]);
  EXPECT_EQ(list.packets[pgd + 1].type, ppt_tip_pge);
}

TEST(PtEncoderTimingTest, TscMtcCyc) {
  PtTimingOptions timing;
  timing.tsc = timing.mtc = timing.cyc = true;
  timing.cycles_per_far_call = 500;
  CheckTiming(timing, 1, 1);
}

TEST(PtEncoderTimingTest, TscMtcCycWithRatios) {
  PtTimingOptions timing;
  timing.tsc = timing.mtc = timing.cyc = true;
  timing.cycles_per_instruction = 3;
  timing.cbr = 16;
  timing.nom_freq = 24;  // 1.5 TSC ticks per cycle
  timing.cpuid_15_eax = 2;
  timing.cpuid_15_ebx = 250;  // 125 TSC ticks per crystal tick
  timing.mtc_freq = 1;
  timing.cycles_per_far_call = 2000;
  CheckTiming(timing, 2, 2);
}

TEST(PtEncoderTimingTest, TscAndMtcOnly) {
  PtTimingOptions timing;
  timing.tsc = timing.mtc = true;
  timing.mtc_freq = 0;
  CheckTiming(timing, 3, 0);
}

TEST(PtEncoderTimingTest, TscAndCycOnly) {
  PtTimingOptions timing;
  timing.tsc = timing.cyc = true;
  timing.cycles_per_instruction = 2;
  CheckTiming(timing, 4, 1);
}

// ---------------------------------------------------------------------------
// Overflows

TEST(PtEncoderOverflowTest, LostInstructionsAreExactlyTheReportedOnes) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SyntheticProgramOptions program;
    program.seed = seed;
    SyntheticCase c = MakeProgram(program);
    PtEncoderOptions options;
    options.return_compression = seed % 2 == 1;
    options.psb_period = seed % 3 == 0 ? 512 : 4096;
    options.overflows = {{1000 + seed, 1},
                         {3000, 50 + seed},
                         {9000, 400},
                         {15000, 7},
                         {20000, 2500}};
    SyntheticExecutionOptions run;
    run.seed = seed;
    run.instructions = 30000;
    Encoded e = EncodeSynthetic(c.program, options, run);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    CheckRoundTrip(c, e);
    EXPECT_EQ(e.stats.overflows, 5u);
    EXPECT_EQ(e.stats.packets[ppt_ovf], 5u);
    ASSERT_EQ(e.stats.lost.size(), 5u);
    uint64_t lost = 0;
    for (size_t i = 0; i < e.stats.lost.size(); ++i) {
      const PtOverflow& o = options.overflows[i];
      // The gap ends where the overflow resolved and starts at or before it.
      EXPECT_EQ(e.stats.lost[i].first + e.stats.lost[i].count,
                o.first_instruction + o.instructions);
      EXPECT_LE(e.stats.lost[i].first, o.first_instruction);
      lost += e.stats.lost[i].count;
    }
    EXPECT_EQ(lost, e.stats.lost_instructions);
    // The decoder reports each overflow just before the resume instruction.
    InsnDecode decoded = DecodeInsns(e.trace, {c.image});
    std::vector<uint64_t> resume_positions, overflow_positions;
    uint64_t lost_before = 0;
    for (const PtLostRange& r : e.stats.lost) {
      lost_before += r.count;
      resume_positions.push_back(r.first + r.count - lost_before);
    }
    for (const auto& ev : decoded.events) {
      if (ev.event.type == ptev_overflow)
        overflow_positions.push_back(ev.position);
    }
    EXPECT_EQ(overflow_positions, resume_positions);
  }
}

std::vector<int> EventTypes(const InsnDecode& decoded) {
  std::vector<int> events;
  for (const auto& e : decoded.events) events.push_back(e.event.type);
  return events;
}

TEST(PtEncoderOverflowTest, OverflowResolvingWhileTracingIsOff) {
  Code code = SmallProgram();
  // 0:1000 1:1002 2:1007 3:1011 4:100c 5:100e 6:1010 7:1011 8:1000 9:1002
  // 10:1004 11:1007 12:1011 13:100c 14:100e
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c,
                               0x100e, 0x1010, 0x1011, 0x1000, 0x1002,
                               0x1004, 0x1007, 0x1011, 0x100c, 0x100e};
  // Overflow over the jmp (4) and the syscall (5): tracing is off when it
  // resolves at 0x1010, so OVF is followed by MODE.Exec, TIP.PGE.
  PtEncoderOptions options;
  options.overflows = {{4, 2}};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, options, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !!", "ovf", "mode.exec 64", "tip.pge u16 1010",
                  "tip u16 1000", "tnt.8 .!", "tip u16 100e", "tip.pgd"));
  ASSERT_EQ(stats.lost.size(), 1u);
  EXPECT_EQ(stats.lost[0].first, 4u);
  EXPECT_EQ(stats.lost[0].count, 2u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, Visible(ips, stats));
  EXPECT_THAT(EventTypes(decoded), ::testing::Contains(ptev_overflow));
}

TEST(PtEncoderOverflowTest, OverflowResolvingWhileTracingIsOn) {
  Code code = SmallProgram();
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c,
                               0x100e, 0x1010, 0x1011, 0x1000, 0x1002,
                               0x1004, 0x1007, 0x1011, 0x100c, 0x100e};
  // Overflow at the je (9), resolved at 1004 (10): OVF, FUP. The xor (8)
  // ran before the overflow but no packet binds it: it is lost too.
  PtEncoderOptions options;
  options.overflows = {{9, 1}};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, options, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !!", "tip u16 100e", "tip.pgd", "tip.pge u16 1010",
                  "tip u16 1000", "ovf", "fup u16 1004", "tnt.8 !",
                  "tip u16 100e", "tip.pgd"));
  ASSERT_EQ(stats.lost.size(), 1u);
  EXPECT_EQ(stats.lost[0].first, 8u);
  EXPECT_EQ(stats.lost[0].count, 2u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, Visible(ips, stats));
  ASSERT_THAT(EventTypes(decoded), ::testing::Contains(ptev_overflow));

  // Overflow at the call (11): pending TNT bits are written first; the call
  // is lost, so the compression stack is emptied and the ret is a TIP.
  options.overflows = {{11, 1}};
  trace = Encode(code, ips, options, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !!", "tip u16 100e", "tip.pgd", "tip.pge u16 1010",
                  "tip u16 1000", "tnt.8 .", "ovf", "fup u16 1011",
                  "tip u16 100c", "tip u16 100e", "tip.pgd"));
  ASSERT_EQ(stats.lost.size(), 1u);
  EXPECT_EQ(stats.lost[0].first, 10u);
  EXPECT_EQ(stats.lost[0].count, 2u);
  decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, Visible(ips, stats));
}

TEST(PtEncoderOverflowTest, OverflowStartingWhileTracingIsOff) {
  Code code = SmallProgram();
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c,
                               0x100e, 0x1010, 0x1011, 0x1000, 0x1002,
                               0x1004, 0x1007, 0x1011, 0x100c, 0x100e};
  // The overflow starts as the syscall returns (its TIP.PGE is dropped) and
  // resolves at 1000 (8) with tracing on: OVF, FUP.
  PtEncoderOptions options;
  options.overflows = {{6, 2}};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, options, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !!", "tip u16 100e", "tip.pgd", "ovf", "fup u16 1000",
                  "tnt.8 .!", "tip u16 100e", "tip.pgd"));
  ASSERT_EQ(stats.lost.size(), 1u);
  EXPECT_EQ(stats.lost[0].first, 6u);
  EXPECT_EQ(stats.lost[0].count, 2u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, Visible(ips, stats));
  EXPECT_THAT(EventTypes(decoded), ::testing::Contains(ptev_overflow));
}

TEST(PtEncoderOverflowTest, OverflowUntilTheEnd) {
  Code code = SmallProgram();
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c, 0x100e,
                               0x1010, 0x1011, 0x1000, 0x1002, 0x1004};
  PtEncoderOptions options;
  options.overflows = {{7, 100}};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, options, &stats);
  EXPECT_THAT(DescribeAll(trace),
              ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64",
                          "tip.pge u16 1000", "tnt.8 !!", "tip u16 100e",
                          "tip.pgd", "tip.pge u16 1010", "ovf"));
  ASSERT_EQ(stats.lost.size(), 1u);
  EXPECT_EQ(stats.lost[0].first, 6u);
  EXPECT_EQ(stats.lost[0].count, 5u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, Visible(ips, stats));
  EXPECT_EQ(EventTypes(decoded).back(), ptev_overflow);
}

}  // namespace
}  // namespace hwt::recorder
