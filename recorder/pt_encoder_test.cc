// Round trips executions through PtEncoder and libipt's decoders: the decoded
// instruction sequence must equal the execution fed in, every packet must
// decode, and the packets must be what the packet rules say (hand-written
// programs and seeded synthetic ones). Timing and overflows:
// pt_encoder_timing_test.cc.
#include "recorder/pt_encoder.h"

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
// Hand-made code: exact packet sequences

TEST(PtEncoderPacketsTest, StartBranchesCallReturnSyscallExit) {
  Code code = SmallProgram();
  PtEncoderStats stats;
  // je taken, call, compressed ret, jmp rax -> syscall; nop, ret with an
  // empty compression stack; xor, je not taken, inc, call, compressed ret,
  // jmp rax -> syscall (exit).
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c,
                               0x100e, 0x1010, 0x1011, 0x1000, 0x1002,
                               0x1004, 0x1007, 0x1011, 0x100c, 0x100e};
  std::string trace = Encode(code, ips, {}, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64",
                  "tip.pge u16 1000",  // last IP is 0 after PSB: 2 bytes
                  "tnt.8 !!",          // je taken, compressed ret
                  "tip u16 100e",      // jmp rax
                  "tip.pgd",           // syscall: suppressed IP
                  "tip.pge u16 1010",  // back in user mode, no MODE.Exec
                  "tip u16 1000",      // ret, nothing to compress
                  "tnt.8 .!", "tip u16 100e", "tip.pgd"));
  EXPECT_EQ(stats.compressed_returns, 2u);
  EXPECT_EQ(stats.uncompressed_returns, 1u);
  EXPECT_EQ(stats.far_calls, 2u);
  EXPECT_EQ(stats.tnt_bits, 4u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
  std::vector<int> events;
  for (const auto& e : decoded.events) events.push_back(e.event.type);
  // libipt reports the PSB+ CBR as an event.
  EXPECT_THAT(events, ElementsAre(ptev_cbr, ptev_enabled, ptev_exec_mode,
                                  ptev_disabled, ptev_enabled, ptev_disabled));
}

// The block decoder's view: blocks (first and last ip, last instruction's
// class) and events, in order.
std::vector<std::string> BlockItems(const std::string& trace,
                                    const std::vector<Image>& images) {
  std::vector<std::string> out;
  pt_config config = MakeConfig(trace, {});
  struct pt_block_decoder* decoder = pt_blk_alloc_decoder(&config);
  struct pt_image* image = MakeImage(images);
  pt_blk_set_image(decoder, image);
  int status = pt_blk_sync_forward(decoder);
  while (status >= 0) {
    while (status & pts_event_pending) {
      pt_event event;
      status = pt_blk_event(decoder, &event, sizeof(event));
      if (status < 0) break;
      if (event.type == ptev_enabled) out.push_back("enabled");
      if (event.type == ptev_disabled) out.push_back("disabled");
    }
    if (status < 0 || (status & pts_eos)) break;
    pt_block block;
    status = pt_blk_next(decoder, &block, sizeof(block));
    if (block.ninsn > 0) {
      out.push_back(absl::StrFormat("%x-%x %s", block.ip, block.end_ip,
                                    block.iclass == ptic_far_call ? "far_call"
                                    : block.iclass == ptic_return ? "return"
                                    : block.iclass == ptic_jump   ? "jump"
                                                                  : "other"));
    }
  }
  EXPECT_TRUE(status >= 0 || status == -pte_eos)
      << pt_errstr(pt_errcode(status));
  pt_blk_free_decoder(decoder);
  pt_image_free(image);
  return out;
}

TEST(PtEncoderPacketsTest, BlockDecoderSeesTheSyscallAsAFarCall) {
  Code code = SmallProgram();
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c,
                               0x100e, 0x1010, 0x1011, 0x1000, 0x1002,
                               0x1004, 0x1007, 0x1011, 0x100c, 0x100e};
  std::string trace = Encode(code, ips);
  // Each block ending at a syscall ends with ptic_far_call and is followed by
  // the disable, then (but for the last) the enable.
  std::vector<std::string> items = BlockItems(trace, code.images);
  int syscalls = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].rfind("100e-", 0) == 0 ||
        items[i].find("-100e ") != std::string::npos) {
      ++syscalls;
      EXPECT_EQ(items[i], "100e-100e far_call");
      ASSERT_LT(i + 1, items.size());
      EXPECT_EQ(items[i + 1], "disabled");
      if (syscalls == 1) {
        ASSERT_LT(i + 2, items.size());
        EXPECT_EQ(items[i + 2], "enabled");
      }
    }
  }
  EXPECT_EQ(syscalls, 2);
  EXPECT_EQ(items.front(), "enabled");
  EXPECT_EQ(items.back(), "disabled");
  CheckBlocks(trace, code.images, ips);
}

TEST(PtEncoderPacketsTest, WithoutReturnCompressionReturnsAreTips) {
  Code code = SmallProgram();
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c, 0x100e};
  PtEncoderOptions options;
  options.return_compression = false;
  std::string trace = Encode(code, ips, options);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !", "tip u16 100c", "tip u16 100e", "tip.pgd"));
  EXPECT_EQ(DecodeInsns(trace, code.images).ips, ips);
}

TEST(PtEncoderPacketsTest, EndInUserModeIsAnAsyncDisable) {
  Code code = SmallProgram();
  // Ends after "inc rax": FUP(next ip) + TIP.PGD, as an interrupt would.
  std::vector<uint64_t> ips = {0x1000, 0x1002, 0x1004};
  std::string trace = Encode(code, ips);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 .", "fup u16 1007", "tip.pgd"));
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
  ASSERT_FALSE(decoded.events.empty());
  EXPECT_EQ(decoded.events.back().event.type, ptev_async_disabled);
  EXPECT_EQ(decoded.events.back().event.variant.async_disabled.at, 0x1007u);

  // Ending at a conditional branch: its bit is written not-taken.
  ips = {0x1000, 0x1002};
  trace = Encode(code, ips);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 .", "fup u16 1004", "tip.pgd"));
  EXPECT_EQ(DecodeInsns(trace, code.images).ips, ips);

  // Ending at an indirect branch: TIP.PGD with a placeholder target binds.
  ips = {0x1000, 0x1002, 0x1007, 0x1011, 0x100c};
  trace = Encode(code, ips);
  EXPECT_THAT(DescribeAll(trace),
              ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64",
                          "tip.pge u16 1000", "tnt.8 !!", "tip.pgd u16 100e"));
  EXPECT_EQ(DecodeInsns(trace, code.images).ips, ips);
}

TEST(PtEncoderPacketsTest, SignalLikeDiscontinuity) {
  Code code = SmallProgram();
  // After xor the flow continues at 0x1010 (as in a signal handler) instead of
  // 0x1002: an asynchronous disable at 0x1002 and an enable at 0x1010.
  std::vector<uint64_t> ips = {0x1000, 0x1010, 0x1011, 0x1002,
                               0x1007, 0x1011, 0x100c, 0x100e};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, {}, &stats);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "fup u16 1002", "tip.pgd", "tip.pge u16 1010",
                  "tip u16 1002",  // ret with an empty compression stack
                  "tnt.8 !!", "tip u16 100e", "tip.pgd"));
  EXPECT_EQ(stats.async_disables, 1u);
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
}

TEST(PtEncoderPacketsTest, TntPacketsHoldSixOrFortySevenBits) {
  // 2000: e2 fe  loop 2000 (back to itself), then 2002: 0f 05 syscall.
  Code code;
  code.Add(0x2000, {0xe2, 0xfe, 0x0f, 0x05});
  std::vector<uint64_t> ips(100, 0x2000);
  ips.push_back(0x2002);  // 99 taken, 1 not taken
  std::string trace = Encode(code, ips);
  std::vector<std::string> listing = DescribeAll(trace);
  // 100 bits: 16 full TNT-8 and one of 4 bits, then TIP.PGD.
  ASSERT_EQ(listing.size(), 5u + 17u + 1u);
  for (int i = 5; i < 21; ++i) EXPECT_EQ(listing[i], "tnt.8 !!!!!!");
  EXPECT_EQ(listing[21], "tnt.8 !!!.");
  EXPECT_EQ(DecodeInsns(trace, code.images).ips, ips);

  PtEncoderOptions options;
  options.long_tnt = true;
  trace = Encode(code, ips, options);
  listing = DescribeAll(trace);
  ASSERT_EQ(listing.size(), 5u + 3u + 1u);
  EXPECT_EQ(listing[5], "tnt.64 " + std::string(47, '!'));
  EXPECT_EQ(listing[6], "tnt.64 " + std::string(47, '!'));
  EXPECT_EQ(listing[7], "tnt.8 !!!!!.");
  EXPECT_EQ(DecodeInsns(trace, code.images).ips, ips);
}

TEST(PtEncoderPacketsTest, EveryIpCompressionForm) {
  // One "jmp rax" (ff e0) per region; the chain of targets needs each form.
  Code code;
  const uint64_t a0 = 0x400000, a1 = 0x400010, a2 = 0x410000;
  const uint64_t b0 = 0x7fff00000000;      // upper 32 bits differ, sext ok
  const uint64_t c0 = 0x0001000000400000;  // 57-bit (LA57) user address
  const uint64_t d0 = 0x0001700000000000;  // same bits 63:48 as c0
  code.Add(a0, {0xff, 0xe0});
  code.Add(a1, {0xff, 0xe0});
  code.Add(a2, {0xff, 0xe0});
  code.Add(b0, {0xff, 0xe0});
  code.Add(c0, {0xff, 0xe0});
  code.Add(d0, {0x0f, 0x05});
  std::vector<uint64_t> ips = {a0, a1, a2, b0, c0, d0};
  std::string trace = Encode(code, ips);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64",
                  "tip.pge u32 400000", "tip u16 400010", "tip u32 410000",
                  "tip s48 7fff00000000", "tip full 1000000400000",
                  "tip u48 1700000000000", "tip.pgd"));
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
}

TEST(PtEncoderPacketsTest, PsbPlusWhileEnabledAndDisabled) {
  Code code = SmallProgram();
  const std::vector<uint64_t> iteration = {0x1000, 0x1002, 0x1007, 0x1011,
                                           0x100c, 0x100e, 0x1010, 0x1011};
  std::vector<uint64_t> ips;
  for (int i = 0; i < 3; ++i)
    ips.insert(ips.end(), iteration.begin(), iteration.end());
  ips.resize(ips.size() - 2);  // end at the syscall
  PtEncoderOptions options;
  // PSB+ at the first instruction boundary with >= 32 bytes since the
  // previous PSB (and a packet after its PSBEND).
  options.psb_period = 32;
  std::string trace = Encode(code, ips, options);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 1000",
                  "tnt.8 !!", "tip u16 100e", "tip.pgd",  // 32 bytes
                  // Tracing is off: no MODE.Exec and no FUP in PSB+ ...
                  "psb", "cbr 20", "psbend",
                  // ... so MODE.Exec precedes TIP.PGE; the last IP is 0.
                  "mode.exec 64", "tip.pge u16 1010", "tip u16 1000",
                  "tnt.8 !!", "tip u16 100e",
                  // Tracing is on: MODE.Exec and FUP(next instruction).
                  "psb", "cbr 20", "mode.exec 64", "fup u16 100e", "psbend",
                  "tip.pgd", "tip.pge u16 1010", "tip u16 1000", "psb",
                  "cbr 20", "mode.exec 64", "fup u16 1000", "psbend",
                  "tnt.8 !!", "tip u16 100e", "tip.pgd"));
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
}

TEST(PtEncoderPacketsTest, CallToNextInstructionIsNotPushed) {
  // 3000: e8 00 00 00 00  call 3005 (PIC idiom: pushes 3005 on the real stack)
  // 3005: c3              ret (to 3005, then to 3006)
  // 3006: 0f 05           syscall
  // libipt does not push such calls: the return must be a TIP.
  Code code;
  code.Add(0x3000, {0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3, 0x0f, 0x05});
  std::vector<uint64_t> ips = {0x3000, 0x3005, 0x3005, 0x3006};
  PtEncoderStats stats;
  std::string trace = Encode(code, ips, {}, &stats);
  EXPECT_EQ(stats.compressed_returns, 0u);
  EXPECT_THAT(
      DescribeAll(trace),
      ElementsAre("psb", "cbr 20", "psbend", "mode.exec 64", "tip.pge u16 3000",
                  "tip u16 3005", "tip u16 3006", "tip.pgd"));
  InsnDecode decoded = DecodeInsns(trace, code.images);
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  EXPECT_EQ(decoded.ips, ips);
}

// Recursion deeper than the 64-entry compression stack: the 64 innermost
// returns are compressed, the outer ones are TIPs.
TEST(PtEncoderPacketsTest, CompressionStackHoldsSixtyFourReturns) {
  // 1000: 74 06        je 1008
  // 1002: e8 f9 ff ff ff  call 1000
  // 1007: c3           ret
  // 1008: c3           ret
  // 2000: e8 fb ef ff ff  call 1000
  // 2005: 0f 05        syscall
  Code code;
  code.Add(0x1000, {0x74, 0x06, 0xe8, 0xf9, 0xff, 0xff, 0xff, 0xc3, 0xc3});
  code.Add(0x2000, {0xe8, 0xfb, 0xef, 0xff, 0xff, 0x0f, 0x05});
  for (int depth : {10, 63, 64, 65, 100}) {
    std::vector<uint64_t> ips = {0x2000};
    for (int d = 0; d < depth; ++d) {
      ips.push_back(0x1000);
      ips.push_back(0x1002);
    }
    ips.push_back(0x1000);
    ips.push_back(0x1008);
    for (int d = 0; d < depth; ++d) ips.push_back(0x1007);
    ips.push_back(0x2005);
    PtEncoderStats stats;
    std::string trace = Encode(code, ips, {}, &stats);
    const uint64_t calls = static_cast<uint64_t>(depth) + 1;
    EXPECT_EQ(stats.compressed_returns, std::min<uint64_t>(calls, 64)) << depth;
    EXPECT_EQ(stats.uncompressed_returns, calls - std::min<uint64_t>(calls, 64))
        << depth;
    InsnDecode decoded = DecodeInsns(trace, code.images);
    EXPECT_THAT(decoded.errors, ::testing::IsEmpty()) << depth;
    EXPECT_EQ(decoded.ips, ips) << depth;
  }
}

// ---------------------------------------------------------------------------
// Synthetic programs

TEST(PtEncoderSyntheticTest, ManySeedsRoundTrip) {
  int cases = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    SyntheticProgramOptions program;
    program.seed = seed;
    program.syscalls = seed % 4 != 0;
    program.recursive_functions = static_cast<int>(seed % 3);
    SyntheticCase c = MakeProgram(program);
    PtEncoderOptions options;
    options.return_compression = seed % 2 == 0;
    options.long_tnt = seed % 3 == 0;
    SyntheticExecutionOptions run;
    run.seed = seed * 7;
    run.instructions = 30000;
    run.end_with_exit = seed % 5 != 0;
    run.code_path = c.image.path;
    Encoded e = EncodeSynthetic(c.program, options, run);
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    CheckRoundTrip(c, e);
    if (options.return_compression) {
      EXPECT_GT(e.stats.compressed_returns, 0u);
    } else {
      EXPECT_EQ(e.stats.compressed_returns, 0u);
    }
    ++cases;
  }
  EXPECT_EQ(cases, 24);
}

TEST(PtEncoderSyntheticTest, DeepRecursionBeyondTheCompressionStack) {
  SyntheticProgramOptions program;
  program.seed = 5;
  program.functions = 8;
  program.recursive_functions = 2;
  program.max_recursion_depth = 160;
  SyntheticCase c = MakeProgram(program);
  SyntheticExecutionOptions run;
  run.instructions = 200000;
  Encoded e = EncodeSynthetic(c.program, {}, run);
  CheckRoundTrip(c, e);
  EXPECT_GT(e.stats.compressed_returns, 1000u);
  EXPECT_GT(e.stats.uncompressed_returns, 100u);
}

// PSB+ after (almost) every packet; decoding from each PSB on its own gives
// the rest of the execution from the instruction at which it was written
// (its FUP's, or the TIP.PGE's that follows it when tracing was off).
TEST(PtEncoderSyntheticTest, TinyPsbPeriodsAndDecodingFromEveryPsb) {
  for (uint64_t period : {1, 16, 40, 64}) {
    SyntheticProgramOptions program;
    program.seed = period;
    SyntheticCase c = MakeProgram(program);
    PtEncoderOptions options;
    options.psb_period = period;
    options.return_compression = period != 16;
    SyntheticExecutionOptions run;
    run.instructions = 8000;
    run.seed = period + 1;
    Encoded e = EncodeSynthetic(c.program, options, run, /*observe=*/true);
    SCOPED_TRACE(absl::StrCat("period ", period));
    CheckRoundTrip(c, e);
    EXPECT_GT(e.stats.psbs, 20u);
    std::vector<std::pair<uint64_t, uint64_t>> psbs;  // offset, instruction
    for (const PtPacketInfo& p : e.packets) {
      if (p.packet.type == ppt_psb) psbs.push_back({p.offset, p.instruction});
    }
    ASSERT_EQ(psbs.size(), e.stats.psbs);
    int checked = 0;
    for (size_t i = 1; i < psbs.size();
         i += std::max<size_t>(1, psbs.size() / 40)) {
      InsnDecode decoded = DecodeInsns(e.trace, {c.image}, {}, psbs[i].first);
      ASSERT_THAT(decoded.errors, ::testing::IsEmpty())
          << "PSB at " << psbs[i].first;
      const std::vector<uint64_t> tail(
          e.ips.begin() + static_cast<std::ptrdiff_t>(psbs[i].second),
          e.ips.end());
      ASSERT_EQ(decoded.ips, tail) << "PSB at " << psbs[i].first;
      ++checked;
    }
    EXPECT_GE(checked, 20);
  }
}

TEST(PtEncoderSyntheticTest, SyscallsDisableAndEnable) {
  SyntheticProgramOptions program;
  program.seed = 11;
  SyntheticCase c = MakeProgram(program);
  SyntheticExecutionOptions run;
  run.instructions = 50000;
  Encoded e = EncodeSynthetic(c.program, {}, run);
  CheckRoundTrip(c, e);
  ASSERT_GT(e.stats.far_calls, 10u);
  InsnDecode decoded = DecodeInsns(e.trace, {c.image});
  int disabled = 0, enabled = 0;
  for (const auto& ev : decoded.events) {
    if (ev.event.type == ptev_disabled) {
      ++disabled;
      // Bound to the syscall: the instruction decoded just before.
      ASSERT_GT(ev.position, 0u);
      const auto* insn = c.program.InsnAt(decoded.ips[ev.position - 1]);
      ASSERT_NE(insn, nullptr);
      EXPECT_TRUE(insn->site == SyntheticSite::kSyscall ||
                  insn->site == SyntheticSite::kExit);
    }
    if (ev.event.type == ptev_enabled) ++enabled;
  }
  EXPECT_EQ(static_cast<uint64_t>(disabled), e.stats.far_calls);
  EXPECT_EQ(static_cast<uint64_t>(enabled), e.stats.enables);
}

TEST(PtEncoderSyntheticTest, IncrementalWriterGivesTheSameBytes) {
  SyntheticProgramOptions program;
  SyntheticCase c = MakeProgram(program);
  SyntheticExecutionOptions run;
  run.instructions = 40000;
  Encoded whole = EncodeSynthetic(c.program, {}, run);

  auto source = c.program.NewInsnSource();
  PtEncoderOptions options;
  options.buffer_size = 256;
  std::string chunks;
  int calls = 0;
  size_t largest = 0;
  PtEncoder encoder(source.get(), options, [&](std::string_view bytes) {
    ++calls;
    largest = std::max(largest, bytes.size());
    chunks.append(bytes);
    return absl::OkStatus();
  });
  RunSyntheticExecution(c.program, run, &encoder);
  ASSERT_TRUE(encoder.Finish().ok());
  EXPECT_EQ(chunks, whole.trace);
  EXPECT_GT(calls, 10);
  EXPECT_LE(largest, 256u);

  // To a file, through the atomic writer.
  auto writer = AtomicFileWriter::Create(c.dir.path() + "/trace.pt");
  ASSERT_TRUE(writer.ok());
  PtEncoder to_file(source.get(), {}, [&](std::string_view bytes) {
    return writer->Write(bytes);
  });
  RunSyntheticExecution(c.program, run, &to_file);
  ASSERT_TRUE(to_file.Finish().ok());
  ASSERT_TRUE(writer->Commit().ok());
  EXPECT_EQ(*ReadFileToString(c.dir.path() + "/trace.pt"), whole.trace);
}

TEST(PtEncoderTest, WriterErrorsAndUnknownCodeAreReported) {
  Code code = SmallProgram();
  PtEncoder failing(&code.source, {}, [](std::string_view) {
    return absl::DataLossError("disk full");
  });
  failing.OnInstructions(std::vector<uint64_t>{0x1000, 0x1002});
  EXPECT_EQ(failing.Finish().code(), absl::StatusCode::kDataLoss);

  std::string trace;
  PtEncoder encoder(&code.source, {}, StringWriter(&trace));
  encoder.OnInstructions(std::vector<uint64_t>{0x1000, 0x9999});
  absl::Status status = encoder.Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("0x9999"));
  EXPECT_THAT(status.message(), ::testing::HasSubstr("instruction 1"));

  PtEncoderOptions bad;
  bad.overflows = {{5, 2}, {6, 1}};
  PtEncoder rejected(&code.source, bad, StringWriter(&trace));
  EXPECT_EQ(rejected.Finish().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PtEncoderTest, RecordsConfigAndStats) {
  Code code = SmallProgram();
  std::string trace;
  PtEncoderOptions options;
  options.psb_period = 8192;
  options.timing.tsc = true;
  options.timing.mtc = true;
  options.timing.mtc_freq = 5;
  options.timing.cyc = true;
  PtEncoder encoder(&code.source, options, StringWriter(&trace));
  MappingEvent exec;
  exec.type = capture::RecordType::kExecutable;
  exec.path = "/bin/prog";
  exec.baseaddr = 0x7f0000000000;
  encoder.OnMapping(exec);
  encoder.OnInstructions(std::vector<uint64_t>{0x1000, 0x1002, 0x1007, 0x1011});
  MappingEvent mmap;
  mmap.path = "/lib/libc.so.7";
  mmap.addr = 0x800000000;
  encoder.OnMapping(mmap);
  encoder.OnInstructions(std::vector<uint64_t>{0x100c, 0x100e});
  encoder.OnExit(0);
  ASSERT_TRUE(encoder.Finish().ok());
  ASSERT_EQ(encoder.records().size(), 2u);
  EXPECT_EQ(encoder.records()[0].type, capture::RecordType::kExecutable);
  EXPECT_EQ(encoder.records()[0].baseaddr, 0x7f0000000000u);
  ASSERT_EQ(encoder.records()[0].positions.size(), 1u);
  EXPECT_EQ(encoder.records()[0].positions[0].offset, 0u);
  EXPECT_EQ(encoder.records()[1].path, "/lib/libc.so.7");
  EXPECT_EQ(encoder.records()[1].addr, 0x800000000u);
  // After PSB+ (16+8+7+4+2), MODE.Exec, TIP.PGE (5), the TNT is pending.
  const uint64_t second = encoder.records()[1].positions[0].offset;
  EXPECT_GT(second, 0u);
  EXPECT_LT(second, trace.size());
  capture::PtConfig config = encoder.pt_config();
  // TraceEn, CYCEn, User, ToPA, MTCEn, TSCEn, BranchEn, MTCFreq 5, PSBFreq 2.
  EXPECT_EQ(config.rtit_ctl, 0x1u | 0x2 | 0x8 | 0x100 | 0x200 | 0x400 | 0x2000 |
                                 (5u << 14) | (2u << 24));
  EXPECT_EQ(config.mtc_freq, 5u);
  EXPECT_EQ(config.psb_freq, 2u);
  PtEncoderOptions plain;
  plain.return_compression = false;
  PtEncoder other(&code.source, plain, StringWriter(&trace));
  EXPECT_EQ(other.pt_config().rtit_ctl,
            0x1u | 0x8 | 0x100 | 0x800 | 0x2000 | (1u << 24));
  EXPECT_EQ(encoder.stats().instructions, 6u);
  EXPECT_EQ(encoder.stats().psbs, 1u);
  EXPECT_EQ(encoder.stats().bytes, trace.size());
  EXPECT_EQ(encoder.offset(), trace.size());
}

}  // namespace
}  // namespace hwt::recorder
