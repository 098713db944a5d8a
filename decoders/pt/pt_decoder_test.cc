// Tests of the PT decoder against hand-written traces (libipt's encoder) over
// hand-assembled code: the event mapping, branch outcomes and return
// addresses, errors and resynchronisation, truncated traces, missing images,
// chunks, address-space changes, batching and parallel decoding.
#include "decoders/pt/pt_decoder.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/testing/test_env.h"
#include "decoders/insn_walker.h"
#include "decoders/memory_image.h"
#include "decoders/pt/pt_events.h"
#include "decoders/pt/testing/pt_streams.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::pt {
namespace {

using ::hwt::pt::testing::CodeBlob;
using ::hwt::pt::testing::CollectingSink;
using ::hwt::pt::testing::MakeTestCapture;
using ::hwt::pt::testing::PtWriter;
using ::hwt::pt::testing::TestCapture;
using ::testing::HasSubstr;

// 0x1000: mov eax,0; add eax,1; cmp eax,3; jne 0x1005; call 0x1020; nop;
//         jmp rax; ...; 0x1020: ret; 0x1030: nop; nop; nop; ud2
CodeBlob LoopCode() {
  std::vector<uint8_t> code(0x40, 0xcc);
  const std::vector<uint8_t> head = {
      0xb8, 0x00, 0x00, 0x00, 0x00,  // 1000 mov eax, 0
      0x83, 0xc0, 0x01,              // 1005 add eax, 1
      0x83, 0xf8, 0x03,              // 1008 cmp eax, 3
      0x75, 0xf8,                    // 100b jne 1005
      0xe8, 0x0e, 0x00, 0x00, 0x00,  // 100d call 1020
      0x90,                          // 1012 nop
      0xff, 0xe0,                    // 1013 jmp rax
  };
  std::copy(head.begin(), head.end(), code.begin());
  code[0x20] = 0xc3;  // 1020 ret
  code[0x30] = 0x90;  // 1030 nop
  code[0x31] = 0x90;  // 1031 nop
  code[0x32] = 0x90;  // 1032 nop
  code[0x33] = 0x0f;  // 1033 ud2
  code[0x34] = 0x0b;
  return CodeBlob{0x1000, code};
}

// Runs the loop three times, calls and returns (compressed), jumps to 0x1030
// and is disabled asynchronously at 0x1032.
PtWriter LoopTrace() {
  PtWriter w;
  w.SyncAt(0x1000).Tnt("!!.!").Tip(0x1030).Fup(0x1032).TipPgd();
  return w;
}

// A capture of `first` then `second` as two chunks of one buffer, with trace
// lost between them or not, over LoopCode().
absl::StatusOr<TestCapture> TwoChunkCapture(const PtWriter& first,
                                            const PtWriter& second,
                                            bool data_lost_between) {
  std::vector<uint8_t> trace = first.bytes();
  trace.insert(trace.end(), second.bytes().begin(), second.bytes().end());
  testing::TestCaptureOptions options;
  options.chunks.push_back({0, first.size(), false, false, false});
  options.chunks.push_back(
      {first.size(), second.size(), data_lost_between, false, false});
  return MakeTestCapture(trace, {LoopCode()}, options);
}

struct Decoded {
  CollectingSink sink;
  std::vector<StreamStats> stats;
  std::vector<Event> blocks;
};

Decoded Decode(TestCapture& test, const PtDecoderOptions& options = {}) {
  Decoded result;
  auto decoder = PtDecoder::Create(*test.capture, test.timeline, options);
  EXPECT_TRUE(decoder.ok()) << decoder.status();
  EXPECT_TRUE((*decoder)->Decode(result.sink).ok());
  result.stats = (*decoder)->stats();
  result.blocks = result.sink.OfKind(EventKind::kBlock);
  for (const StreamStats& stats : result.stats) {
    EXPECT_EQ(stats.trace_bytes, stats.bytes_decoded + stats.bytes_lost);
  }
  return result;
}

// The addresses of the instructions the blocks executed.
std::vector<uint64_t> Instructions(const TestCapture& test,
                                   const std::vector<Event>& blocks) {
  MemoryImage memory(test.timeline, 0, nullptr);
  memory.AdvanceTo(0);
  InsnWalker walker(memory);
  std::vector<uint64_t> out;
  for (const Event& b : blocks) EXPECT_TRUE(walker.Expand(b, &out).ok());
  return out;
}

std::string Blocks(const std::vector<Event>& blocks) {
  std::string out;
  for (const Event& b : blocks) {
    absl::StrAppendFormat(&out, "%x-%x/%u %s next=%x\n", b.ip, b.last_ip,
                          b.ninsn, BranchKindName(b.branch), b.next_ip);
  }
  return out;
}

TEST(PtDecoderTest, BlocksBranchesAndReturnAddresses) {
  auto test = MakeTestCapture(LoopTrace().bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  EXPECT_EQ(Blocks(d.blocks),
            "1000-100b/4 cond-taken next=100d\n"
            "1005-100b/3 cond-taken next=100d\n"
            "1005-100b/3 cond-not-taken next=100d\n"
            "100d-100d/1 call next=1012\n"
            "1020-1020/1 return next=1021\n"
            "1012-1013/2 jump-indirect next=1015\n"
            "1030-1031/2 none next=1032\n");
  for (const Event& b : d.blocks) {
    EXPECT_EQ(b.region, test->regions[0] + 1);
    EXPECT_EQ(b.isa, Isa::kX86_64);
    EXPECT_EQ(b.time, 0u);  // no timing packets
  }
  EXPECT_EQ(d.stats[0].blocks, 7u);
  EXPECT_EQ(d.stats[0].instructions, 16u);
  EXPECT_EQ(d.stats[0].errors, 0u);
  EXPECT_EQ(d.stats[0].bytes_lost, 0u);
  EXPECT_EQ(d.sink.ends(0), 1);

  const auto syncs = d.sink.OfKind(EventKind::kSync);
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].offset, 0u);
  const auto disabled = d.sink.OfKind(EventKind::kDisabled);
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0].ip, 0x1032u);  // async: where tracing stopped
  EXPECT_TRUE(disabled[0].code & kPtAsync);
  EXPECT_TRUE(disabled[0].code & kPtIpSuppressed);
  // The disable comes after the last block.
  const auto all = d.sink.Events();
  EXPECT_EQ(all.back().kind, EventKind::kDisabled);
}

TEST(PtDecoderTest, WithoutEndOnJumpBlocksFollowDirectJumps) {
  // 3000: nop; jmp 3008; ... 3008: nop; nop; nop
  std::vector<uint8_t> code(16, 0xcc);
  code[0] = 0x90;
  code[1] = 0xeb;
  code[2] = 0x05;
  code[8] = code[9] = code[10] = 0x90;
  PtWriter w;
  w.SyncAt(0x3000).Fup(0x300a).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {{0x3000, code}});
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(Blocks(Decode(*test).blocks),
            "3000-3001/2 jump next=3003\n"
            "3008-3009/2 none next=300a\n");
  PtDecoderOptions options;
  options.end_on_jump = false;
  // One block that is not contiguous: 3000, 3001, 3008, 3009.
  EXPECT_EQ(Blocks(Decode(*test, options).blocks),
            "3000-3009/4 none next=300a\n");
}

TEST(PtDecoderTest, CondBranchBeforeDisableIsDecidedByTheDisableIp) {
  // The loop's jne is not taken, then tracing stops (TIP.PGD with the
  // fall-through IP): the block ends at the jne.
  PtWriter w;
  w.SyncAt(0x1008).Tnt(".").TipPgd(0x100d, pt_ipc_sext_48);
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  EXPECT_EQ(Blocks(d.blocks), "1008-100b/2 cond-not-taken next=100d\n");
}

TEST(PtDecoderTest, CondBranchAtTheEndOfTheTraceIsUnknown) {
  PtWriter w;
  w.SyncAt(0x1008).Tnt("!");
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  ASSERT_FALSE(d.blocks.empty());
  EXPECT_EQ(d.blocks[0].ip, 0x1008u);
  EXPECT_EQ(d.blocks[0].branch, BranchKind::kNone);
}

TEST(PtDecoderTest, CondBranchBeforeARestartIsUnknown) {
  // The first chunk ends right after the jne's TNT; the second starts with a
  // PSB at the jne's target: not evidence that the branch was taken.
  PtWriter first;
  first.SyncAt(0x1008).Tnt("!");
  PtWriter second;
  second.SyncAt(0x1005).Fup(0x1008).TipPgd();
  auto test = TwoChunkCapture(first, second, /*data_lost_between=*/false);
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  EXPECT_EQ(Blocks(d.blocks),
            "1008-100b/2 none next=100d\n"
            "1005-1005/1 none next=1008\n");
}

TEST(PtDecoderTest, EventMapping) {
  PtWriter w;
  w.Psb()
      .ModeExec64()
      .Fup(0x1030)
      .Pip(0xabc000)
      .Cbr(0x1f)
      .Psbend()
      .Cbr(0x20)
      .Mnt(0x5a5a)
      .Fup(0x1031)
      .TipPgd()        // asynchronous disable at 0x1031
      .TipPge(0x1030)  // enabled again at 0x1030
      .Ovf()
      .Fup(0x1031)  // overflow; tracing resumes at 0x1031
      .Fup(0x1032)
      .TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  std::vector<std::string> kinds;
  for (const Event& e : d.sink.Events()) {
    std::string k(EventKindName(e.kind));
    if (e.code & kPtStatusUpdate) k += "(status)";
    if (e.kind == EventKind::kBackend) {
      k += absl::StrFormat("/%d", static_cast<int>(BackendType(e.code)));
    }
    if (e.kind == EventKind::kGap)
      k += "/" + std::string(GapReasonName(e.reason));
    kinds.push_back(k);
  }
  // PSB+ restates the paging state and the ratio: status updates.
  EXPECT_THAT(kinds, ::testing::Contains("paging(status)"));
  EXPECT_THAT(kinds, ::testing::Contains("cbr(status)"));
  EXPECT_THAT(kinds, ::testing::Contains("cbr"));
  EXPECT_THAT(kinds,
              ::testing::Contains(absl::StrFormat(
                  "backend/%d", static_cast<int>(PtBackendEvent::kMnt))));
  EXPECT_THAT(kinds, ::testing::Contains("enabled"));
  EXPECT_THAT(kinds, ::testing::Contains("gap/overflow"));

  for (const Event& e : d.sink.Events()) {
    switch (e.kind) {
      case EventKind::kCoreBusRatio:
        EXPECT_EQ(e.value, (e.code & kPtStatusUpdate) ? 0x1fu : 0x20u);
        break;
      case EventKind::kPaging:
        EXPECT_EQ(e.value, 0xabc000u);
        break;
      case EventKind::kBackend:
        if (BackendType(e.code) == PtBackendEvent::kMnt) {
          EXPECT_EQ(e.value, 0x5a5au);
        }
        break;
      case EventKind::kGap:
        EXPECT_EQ(e.reason, GapReason::kOverflow);
        EXPECT_EQ(e.ip, 0x1031u);
        break;
      case EventKind::kEnabled:
        EXPECT_EQ(e.ip, 0x1030u);
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(d.stats[0].overflows, 1u);
  EXPECT_EQ(d.stats[0].errors, 1u);
  ASSERT_EQ(d.stats[0].error_list.size(), 1u);
  EXPECT_THAT(d.stats[0].error_list[0].message, HasSubstr("overflow"));
  EXPECT_EQ(d.stats[0].bytes_lost, 0u);  // an overflow loses no buffer bytes
}

TEST(PtDecoderTest, TimeComesFromTsc) {
  PtWriter w;
  w.Psb().ModeExec64().Tsc(0x123456).Fup(0x1030).Psbend().Fup(0x1032).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  ASSERT_EQ(d.blocks.size(), 1u);
  EXPECT_EQ(d.blocks[0].time, 0x123456u);
}

TEST(PtDecoderTest, CorruptBytesAreReportedAndDecodingResumesAtTheNextPsb) {
  PtWriter w;
  w.SyncAt(0x1000).Tnt("!!");
  const uint64_t garbage_at = w.size();
  // 0xd9 is not a valid PT opcode (ppt_unknown without a callback).
  w.Raw({0xd9, 0xd9, 0xd9, 0xd9, 0xd9, 0xd9});
  const uint64_t second_psb = w.size();
  w.SyncAt(0x1030).Fup(0x1032).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);

  const auto gaps = d.sink.OfKind(EventKind::kGap);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].reason, GapReason::kDecodeError);
  EXPECT_GE(gaps[0].offset, garbage_at);
  EXPECT_LT(gaps[0].offset, second_psb);
  EXPECT_EQ(gaps[0].value, second_psb - gaps[0].offset);
  EXPECT_EQ(static_cast<int32_t>(gaps[0].code), -pte_bad_opc);

  const auto syncs = d.sink.OfKind(EventKind::kSync);
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_EQ(syncs[1].offset, second_psb);
  // Decoding went on after the second PSB.
  EXPECT_EQ(d.blocks.back().ip, 0x1030u);

  const StreamStats& stats = d.stats[0];
  EXPECT_EQ(stats.errors, 1u);
  EXPECT_EQ(stats.bytes_lost, second_psb - gaps[0].offset);
  ASSERT_EQ(stats.error_list.size(), 1u);
  EXPECT_EQ(stats.error_list[0].offset, gaps[0].offset);
  EXPECT_EQ(stats.error_list[0].bytes_lost, stats.bytes_lost);
  EXPECT_THAT(stats.error_list[0].message, HasSubstr("unknown opcode"));
  EXPECT_THAT(
      stats.error_list[0].message,
      HasSubstr(absl::StrFormat("next PSB at offset 0x%x", second_psb)));
}

TEST(PtDecoderTest, TraceThatDoesNotMatchTheCodeIsADecodeError) {
  // A TIP where the code has a conditional branch: libipt's "trace doesn't
  // match".
  PtWriter w;
  w.SyncAt(0x1008).Tip(0x1030);
  const uint64_t second_psb = w.size();
  w.SyncAt(0x1030).Fup(0x1032).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  const auto gaps = d.sink.OfKind(EventKind::kGap);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(static_cast<int32_t>(gaps[0].code), -pte_bad_query);
  ASSERT_EQ(d.stats[0].error_list.size(), 1u);
  EXPECT_THAT(d.stats[0].error_list[0].message,
              HasSubstr("trace doesn't match instruction at 0x100b"));
  EXPECT_EQ(d.sink.OfKind(EventKind::kSync).back().offset, second_psb);
}

TEST(PtDecoderTest, BytesBeforeTheFirstPsbAreLost) {
  PtWriter w;
  w.Raw({0x00, 0x00, 0x55, 0x66, 0x77});  // the tail of some earlier packet
  w.SyncAt(0x1030).Fup(0x1032).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  const auto gaps = d.sink.OfKind(EventKind::kGap);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].reason, GapReason::kNoSync);
  EXPECT_EQ(gaps[0].value, 5u);
  EXPECT_EQ(d.stats[0].bytes_lost, 5u);
  EXPECT_EQ(d.stats[0].errors, 0u);  // normal for a ring buffer
  EXPECT_EQ(d.sink.OfKind(EventKind::kSync)[0].offset, 5u);
}

TEST(PtDecoderTest, MissingImageIsAGapNamingTheAddress) {
  // An indirect jump from mapped code into unmapped memory.
  PtWriter v;
  v.SyncAt(0x1012).Tip(0x5000).Fup(0x5001).TipPgd();
  auto test = MakeTestCapture(v.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  const auto gaps = d.sink.OfKind(EventKind::kGap);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].reason, GapReason::kMissingImage);
  EXPECT_EQ(gaps[0].ip, 0x5000u);
  EXPECT_EQ(static_cast<int32_t>(gaps[0].code), -pte_nomap);
  ASSERT_EQ(d.stats[0].error_list.size(), 1u);
  EXPECT_EQ(d.stats[0].error_list[0].reason, GapReason::kMissingImage);
  EXPECT_THAT(d.stats[0].error_list[0].message,
              HasSubstr("no code image mapped at 0x5000"));
  // The jump into the void was decoded before the gap.
  EXPECT_EQ(Blocks(d.blocks), "1012-1013/2 jump-indirect next=1015\n");
}

TEST(PtDecoderTest, TruncatedTracesNeverFailAndAccountForEveryByte) {
  PtWriter w;
  w.SyncAt(0x1000).Tnt("!!.!").Tip(0x1030).Pip(0x1000).Mnt(7);
  w.SyncAt(0x1030).Fup(0x1032).TipPgd();
  const std::vector<uint8_t> full = w.bytes();
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    std::vector<uint8_t> trace(full.begin(), full.begin() + cut);
    auto test = MakeTestCapture(trace, {LoopCode()});
    ASSERT_TRUE(test.ok()) << test.status();
    Decoded d = Decode(*test);  // checks the byte accounting
    EXPECT_EQ(d.stats[0].trace_bytes, cut);
    EXPECT_EQ(d.sink.ends(0), 1);
    for (const Event& b : d.blocks) {
      EXPECT_GE(b.ip, 0x1000u) << "cut at " << cut;
      EXPECT_LE(b.last_ip, 0x1035u) << "cut at " << cut;  // int3 at 1035
    }
    if (cut < 16) {
      EXPECT_TRUE(d.blocks.empty()) << "cut at " << cut;
      EXPECT_EQ(d.stats[0].bytes_lost, cut);
    }
  }
}

// 0x1000: jmp 0x1000 (a jump to itself); 0x1010: nop; jmp rax.
CodeBlob SpinCode() {
  std::vector<uint8_t> code(0x20, 0xcc);
  code[0x00] = 0xeb;  // 1000 jmp 1000
  code[0x01] = 0xfe;
  code[0x10] = 0x90;  // 1010 nop
  code[0x11] = 0xff;  // 1011 jmp rax
  code[0x12] = 0xe0;
  return CodeBlob{0x1000, code};
}

// Whether decoding `test` finishes within `seconds` (in a child process, so
// that a decoder that never ends fails the test instead of hanging it).
bool DecodeFinishes(TestCapture& test, const PtDecoderOptions& options,
                    int seconds) {
  return ::hwt::testing::RunsInChild(
      [&] {
        auto decoder = PtDecoder::Create(*test.capture, test.timeline, options);
        CollectingSink sink;
        return decoder.ok() && (*decoder)->Decode(sink).ok() ? 0 : 1;
      },
      seconds);
}

// A flow that comes back to the same code without needing a packet (here a
// jump to itself) would make libipt return blocks forever without reading
// trace. The decode must end at the end of the data: the loop is reported
// as an error at its trace offset and decoding resumes at the next PSB.
TEST(PtDecoderTest, FlowLoopingWithoutTraceEndsWithAnError) {
  PtWriter w;
  w.SyncAt(0x1000).Pad().Pad();
  const uint64_t second_psb = w.size();
  w.SyncAt(0x1010).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {SpinCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  for (bool end_on_jump : {true, false}) {
    PtDecoderOptions options;
    options.end_on_jump = end_on_jump;
    ASSERT_TRUE(DecodeFinishes(*test, options, 60))
        << "the decode did not end (end_on_jump " << end_on_jump << ")";
    Decoded d = Decode(*test, options);
    const StreamStats& stats = d.stats[0];
    ASSERT_EQ(stats.error_list.size(), 1u);
    EXPECT_EQ(stats.errors, 1u);
    EXPECT_LT(stats.error_list[0].offset, second_psb);
    EXPECT_EQ(stats.error_list[0].ip, 0x1000u);
    EXPECT_THAT(stats.error_list[0].message,
                HasSubstr("loops at 0x1000 without reading trace"));
    EXPECT_THAT(
        stats.error_list[0].message,
        HasSubstr(absl::StrFormat("next PSB at offset 0x%x", second_psb)));
    // Decoding went on after the loop.
    ASSERT_FALSE(d.blocks.empty());
    EXPECT_EQ(d.blocks.back().ip, 0x1010u);
    const auto gaps = d.sink.OfKind(EventKind::kGap);
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_EQ(gaps[0].reason, GapReason::kDecodeError);
  }
}

TEST(PtDecoderTest, ChunksAreDecodedSeparatelyWithAGapBetween) {
  PtWriter first;
  first.SyncAt(0x1000).Tnt("!!.");
  PtWriter second;
  second.SyncAt(0x1030).Fup(0x1032).TipPgd();
  auto test = TwoChunkCapture(first, second, /*data_lost_between=*/true);
  ASSERT_TRUE(test.ok()) << test.status();
  Decoded d = Decode(*test);
  const auto events = d.sink.Events();
  auto lost = std::find_if(events.begin(), events.end(), [](const Event& e) {
    return e.kind == EventKind::kGap && e.reason == GapReason::kLostData;
  });
  ASSERT_NE(lost, events.end());
  EXPECT_EQ(lost->offset, first.size());
  // Everything of the first chunk comes before the gap, the second after.
  for (auto it = events.begin(); it != events.end(); ++it) {
    if (it->kind != EventKind::kBlock) continue;
    if (it < lost) {
      EXPECT_LT(it->ip, 0x1010u);
    } else {
      EXPECT_EQ(it->ip, 0x1030u);
      EXPECT_GE(it->offset, first.size());
    }
  }
  const auto syncs = d.sink.OfKind(EventKind::kSync);
  ASSERT_EQ(syncs.size(), 2u);
  EXPECT_EQ(syncs[1].offset, first.size());
  EXPECT_EQ(d.stats[0].errors, 1u);
  EXPECT_EQ(d.stats[0].error_list[0].reason, GapReason::kLostData);
  EXPECT_EQ(d.stats[0].trace_bytes, first.size() + second.size());
}

TEST(PtDecoderTest, AddressSpaceChangesApplyAtTheirPosition) {
  // The same address holds different code before and after position P, the
  // start of the second chunk (chunks start exactly where they say).
  std::vector<uint8_t> old_code(16, 0x90);  // nops
  std::vector<uint8_t> new_code(16, 0x90);
  new_code[1] = 0xc3;  // 0x2001: ret
  PtWriter w;
  w.SyncAt(0x2000).Fup(0x2003).TipPgd();
  const uint64_t position = w.size();
  w.SyncAt(0x2000).Tip(0x2008);
  testing::TestCaptureOptions options;
  options.chunks.push_back({0, position, false, false, false});
  options.chunks.push_back(
      {position, w.size() - position, false, false, false});
  auto test = MakeTestCapture(w.bytes(), {}, options);
  ASSERT_TRUE(test.ok()) << test.status();
  const uint32_t old_region = test->AddCode({0x2000, old_code});
  const uint32_t new_region = test->AddCode({0x2000, new_code});
  test->Map(old_region, 0);
  test->Unmap(old_region, position);
  test->Map(new_region, position);
  Decoded d = Decode(*test);
  EXPECT_EQ(Blocks(d.blocks),
            "2000-2002/3 none next=2003\n"      // three nops, then disabled
            "2000-2001/2 return next=2002\n");  // nop; ret
  // The trace ends right after the return's TIP, with tracing on.
  const auto end = d.sink.Events().back();
  EXPECT_EQ(end.kind, EventKind::kDisabled);
  EXPECT_TRUE(end.code & kPtEndOfTrace);
  ASSERT_GE(d.blocks.size(), 2u);
  EXPECT_EQ(d.blocks[0].region, old_region + 1);
  EXPECT_EQ(d.blocks[1].region, new_region + 1);
}

TEST(PtDecoderTest, AddressSpaceChangesFollowLibiptsReadPosition) {
  // Within a chunk a change applies once libipt's read position (which runs
  // ahead of the flow it returns) passes it. Here libipt reads the second
  // PSB+ while finishing the first segment, so the change is placed after
  // that PSB+.
  std::vector<uint8_t> old_code(16, 0x90);
  std::vector<uint8_t> new_code(16, 0x90);
  new_code[1] = 0xc3;
  PtWriter w;
  w.SyncAt(0x2000).Fup(0x2003).TipPgd().SyncAt(0x2000);
  const uint64_t position = w.size();
  w.Tip(0x2008);
  auto test = MakeTestCapture(w.bytes(), {});
  ASSERT_TRUE(test.ok()) << test.status();
  const uint32_t old_region = test->AddCode({0x2000, old_code});
  const uint32_t new_region = test->AddCode({0x2000, new_code});
  test->Map(old_region, 0);
  test->Unmap(old_region, position);
  test->Map(new_region, position);
  Decoded d = Decode(*test);
  ASSERT_GE(d.blocks.size(), 1u);
  EXPECT_EQ(d.blocks[0].region, old_region + 1);
  EXPECT_EQ(d.blocks[0].ninsn, 3u);
}

TEST(PtDecoderTest, EventsComeInBatchesOfAtMostBatchSize) {
  PtWriter w;
  w.SyncAt(0x1000);
  for (int i = 0; i < 50; ++i) w.Tnt("!!.!").Tip(0x1000);
  w.Fup(0x1005).TipPgd();
  auto test = MakeTestCapture(w.bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok()) << test.status();
  // jmp rax at 0x1013 -> TIP 0x1000 loops back to the start.
  PtDecoderOptions options;
  options.batch_size = 7;
  Decoded small = Decode(*test, options);
  Decoded big = Decode(*test);
  EXPECT_LE(small.sink.max_batch(), 7u);
  EXPECT_GT(small.blocks.size(), 300u);
  ASSERT_EQ(small.sink.Events().size(), big.sink.Events().size());
  EXPECT_EQ(Blocks(small.blocks), Blocks(big.blocks));
}

// Four buffers of one PSB each: with jobs 2 the buffers are decoded on
// different workers, each in one segment (no seams: pt_parallel_test.cc
// checks those on long traces).
TEST(PtDecoderTest, ParallelDecodingOfBuffersGivesTheSameStreams) {
  std::vector<std::vector<uint8_t>> traces;
  for (int i = 0; i < 4; ++i) {
    PtWriter w;
    w.SyncAt(0x1000);
    for (int j = 0; j <= i; ++j) w.Tnt("!!.!").Tip(0x1000);
    w.Fup(0x1005).TipPgd();
    traces.push_back(w.bytes());
  }
  auto serial_capture = testing::MakeTestCaptureBuffers(traces, {LoopCode()});
  ASSERT_TRUE(serial_capture.ok());
  PtDecoderOptions parallel;
  parallel.jobs = 2;
  Decoded serial = Decode(*serial_capture);
  Decoded threaded = Decode(*serial_capture, parallel);
  for (uint32_t s = 0; s < 4; ++s) {
    // Exactly the same events.
    const auto serial_blocks = serial.sink.OfKind(EventKind::kBlock, s);
    const auto threaded_blocks = threaded.sink.OfKind(EventKind::kBlock, s);
    EXPECT_EQ(Blocks(threaded_blocks), Blocks(serial_blocks));
    EXPECT_EQ(Instructions(*serial_capture, threaded_blocks),
              Instructions(*serial_capture, serial_blocks));
    EXPECT_EQ(threaded.sink.Events(s).size(), serial.sink.Events(s).size());
    EXPECT_EQ(threaded.sink.ends(s), 1);
    EXPECT_EQ(serial.stats[s].instructions, threaded.stats[s].instructions);
    EXPECT_EQ(serial_blocks.back().ip, 0x1000u);
  }
}

TEST(PtDecoderTest, StreamNamesAndErrorsForBadInputs) {
  auto test = MakeTestCapture(LoopTrace().bytes(), {LoopCode()});
  ASSERT_TRUE(test.ok());
  auto decoder = PtDecoder::Create(*test->capture, test->timeline);
  ASSERT_TRUE(decoder.ok());
  EXPECT_EQ((*decoder)->streams()[0].name, "buffer 0 (thread 0)");

  capture::AddressSpaceTimeline empty;  // covers no buffer
  auto bad = PtDecoder::Create(*test->capture, empty);
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("timeline covers 0 buffers"));
}

TEST(PtDecoderTest, ChunkPastTheEndOfTheFileIsAnError) {
  testing::TestCaptureOptions options;
  options.chunks.push_back({0, 1000000, false, false, false});
  auto test = MakeTestCapture(LoopTrace().bytes(), {LoopCode()}, options);
  ASSERT_TRUE(test.ok());
  auto decoder = PtDecoder::Create(*test->capture, test->timeline);
  ASSERT_TRUE(decoder.ok());
  CollectingSink sink;
  absl::Status status = (*decoder)->Decode(sink);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("goes past the end of the file"));
}

TEST(PtDecoderTest, UnknownCpuIsSaidOnce) {
  testing::TestCaptureOptions options;
  options.cpu.vendor = "GenuineIntel";
  options.cpu.family = 6;
  options.cpu.model = 250;  // not a real model
  auto test = MakeTestCapture(LoopTrace().bytes(), {LoopCode()}, options);
  ASSERT_TRUE(test.ok());
  auto decoder = PtDecoder::Create(*test->capture, test->timeline);
  ASSERT_TRUE(decoder.ok());
  ASSERT_EQ((*decoder)->notes().size(), 1u);
  EXPECT_THAT((*decoder)->notes()[0], HasSubstr("model 250"));
  EXPECT_EQ((*decoder)->cpu().errata_error, -pte_bad_cpu);
}

}  // namespace
}  // namespace hwt::pt
