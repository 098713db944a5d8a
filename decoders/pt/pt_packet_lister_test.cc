// Tests of the ptdump-format packet listing: packet formats as ptdump prints
// them (checked by hand against ptdump's print_packet), options, errors,
// resynchronisation and byte accounting.
#include "decoders/pt/pt_packet_lister.h"

#include <string>
#include <vector>

#include "decoders/pt/testing/pt_streams.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::pt {
namespace {

using ::hwt::pt::testing::PtWriter;

std::string List(const std::vector<uint8_t>& trace,
                 const PtdumpOptions& options = {},
                 StreamStats* stats = nullptr, uint64_t file_offset = 0,
                 const pt_config* base = nullptr) {
  pt_config config;
  pt_config_init(&config);
  if (base != nullptr) config = *base;
  StreamStats local;
  std::string out;
  ListPtPackets(
      config, trace.data(), trace.size(), file_offset, options,
      [&](uint64_t offset, std::string_view text) {
        out += PtdumpLine(offset, text) + "\n";
      },
      stats != nullptr ? stats : &local);
  return out;
}

TEST(PtPacketListerTest, PacketsAsPtdumpPrintsThem) {
  PtWriter w;
  w.Psb()
      .ModeExec64()
      .Fup(0x1000)
      .Psbend()
      .Tnt("!!.")
      .Tip(0x1234, pt_ipc_update_16)
      .TipPgd()
      .TipPge(0xffffffffff601000)
      .Pip(0xabc000)
      .Cbr(0x1f)
      .Tsc(0x12345)
      .Mnt(0xa000)
      .Ptw(0x42, true)
      .Vmcs(0xabcd000)
      .ModeTsx(true, false)
      .Ovf()
      .Pad()
      .Stop();
  EXPECT_EQ(List(w.bytes()),
            "0000000000000000  psb\n"
            "0000000000000010  mode.exec  cs.l\n"
            "0000000000000012  fup        3: 0000000000001000\n"
            "0000000000000019  psbend\n"
            "000000000000001b  tnt.8      !!.\n"
            "000000000000001c  tip        1: ????????????1234\n"
            "000000000000001f  tip.pgd    0: ????????????????\n"
            "0000000000000020  tip.pge    3: ffffffffff601000\n"
            "0000000000000027  pip        abc000                    cr3  "
            "0000000000abc000\n"
            "000000000000002f  cbr        1f\n"
            "0000000000000033  tsc        12345\n"
            "000000000000003b  mnt        a000\n"
            "0000000000000046  ptw        1: 42, ip\n"
            "0000000000000050  vmcs       abcd000                   vmcs "
            "000000000abcd000\n"
            "0000000000000057  mode.tsx   intx\n"
            "0000000000000059  ovf\n"
            "000000000000005b  pad\n"
            "000000000000005c  stop\n");
}

TEST(PtPacketListerTest, Options) {
  PtWriter w;
  w.Psb().ModeExec32().Fup(0x1000).Psbend().Pad().Tip(0x2000, pt_ipc_update_16);
  PtdumpOptions options;
  options.lastip = true;
  options.exec_mode = true;
  options.no_pad = true;
  EXPECT_EQ(List(w.bytes(), options),
            "0000000000000000  psb\n"
            "0000000000000010  mode.exec  cs.d                      em   "
            "32-bit\n"
            "0000000000000012  fup        3: 0000000000001000       ip   "
            "0000000000001000\n"
            "0000000000000019  psbend\n"
            "000000000000001c  tip        1: ????????????2000       ip   "
            "0000000000002000\n");
  PtdumpOptions raw;
  raw.raw = true;
  PtWriter v;
  v.Psb().Psbend();
  EXPECT_EQ(List(v.bytes(), raw),
            "0000000000000000  02820282028202820282028202820282  psb\n"
            "0000000000000010  0223                              psbend\n");
  EXPECT_EQ(PtdumpLine(0x10, "psbend", /*show_offset=*/false), "psbend");
}

TEST(PtPacketListerTest, ErrorsResyncAndByteAccounting) {
  PtWriter w;
  w.Raw({0x55, 0x55, 0x55});  // before the first PSB: not listed, lost
  w.Psb().Psbend();
  const uint64_t bad = w.size();
  w.Raw({0xd9});  // unknown opcode
  w.Raw({0x00, 0x00});
  const uint64_t psb = w.size();
  w.Psb().Fup(0x1000).Psbend();
  StreamStats stats;
  const std::string listing =
      List(w.bytes(), {}, &stats, /*file_offset=*/0x100);
  EXPECT_EQ(listing,
            "0000000000000103  psb\n"
            "0000000000000113  psbend\n"
            "[115: error decoding packet: unknown opcode]\n"
            "0000000000000118  psb\n"
            "0000000000000128  fup        3: 0000000000001000\n"
            "000000000000012f  psbend\n");
  EXPECT_EQ(stats.trace_bytes, w.size());
  EXPECT_EQ(stats.bytes_lost, 3 + (psb - bad));
  EXPECT_EQ(stats.bytes_decoded + stats.bytes_lost, stats.trace_bytes);
  EXPECT_EQ(stats.packets, 5u);
  ASSERT_EQ(stats.error_list.size(), 1u);
  EXPECT_EQ(stats.error_list[0].offset, 0x100 + bad);
  EXPECT_EQ(stats.error_list[0].bytes_lost, psb - bad);
  EXPECT_THAT(stats.error_list[0].message,
              ::testing::HasSubstr("unknown opcode"));
}

TEST(PtPacketListerTest, NoSyncListsFromTheFirstByte) {
  PtWriter w;
  w.Pad().Psbend().Psb();
  PtdumpOptions options;
  options.no_sync = true;
  EXPECT_EQ(List(w.bytes(), options),
            "0000000000000000  pad\n"
            "0000000000000001  psbend\n"
            "0000000000000003  psb\n");
  EXPECT_EQ(List(w.bytes()), "0000000000000003  psb\n");
}

TEST(PtPacketListerTest, PacketCutByTheEndIsNotAnError) {
  PtWriter w;
  w.Psb().Psbend().Fup(0x123456789a);
  for (size_t cut = 18; cut < w.size(); ++cut) {
    std::vector<uint8_t> trace(w.bytes().begin(), w.bytes().begin() + cut);
    StreamStats stats;
    EXPECT_EQ(List(trace, {}, &stats),
              "0000000000000000  psb\n0000000000000010  psbend\n");
    EXPECT_EQ(stats.errors, 0u);
    EXPECT_EQ(stats.bytes_lost, 0u);
  }
}

// Found by fuzz/pt_decode_fuzzer: with the errata of a Skylake server (the
// fuzzer's CPU), libipt returns the second (bad) TMA as an 8-byte invalid
// packet running one byte past the end. It is cut off by the end like any
// other packet: no diagnostic beyond the trace, no byte counted twice.
TEST(PtPacketListerTest, PacketRunningPastTheEndIsCutOff) {
  PtWriter w;
  w.Psb().Psbend();
  w.Raw({0x02, 0x73, 0x01, 0x01, 0x00, 0x01, 0x00});
  w.Raw({0x02, 0x73, 0x01, 0x01, 0x01, 0x01, 0x00});
  pt_config config;
  pt_config_init(&config);
  config.cpu.vendor = pcv_intel;
  config.cpu.family = 6;
  config.cpu.model = 85;
  config.cpu.stepping = 4;
  ASSERT_EQ(pt_cpu_errata(&config.errata, &config.cpu), 0);
  StreamStats stats;
  const std::string listing = List(w.bytes(), {}, &stats, 0, &config);
  EXPECT_EQ(listing,
            "0000000000000000  psb\n"
            "0000000000000010  psbend\n"
            "0000000000000012  tma        101, 1\n");
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(stats.bytes_lost, 0u);
  EXPECT_EQ(stats.bytes_decoded, w.size());
}

TEST(PtPacketListerTest, TimeEstimates) {
  // TSC 0xa0000; TMA: CTC 0x1fff, fast counter 1; MTCs with CTC 0 and 1 at
  // MTC frequency 0 (one CTC tick per MTC), 9/3 TSC ticks per CTC tick:
  //   TMA: base = 0xa0000 - 1, CTC 0xff (8 bits at frequency 0): no change
  //   MTC 0: 0x100 - 0xff = 1 CTC tick (wrapped) = 3 TSC ticks: 0xa0002
  //   MTC 1: 1 more tick: 0xa0005
  PtWriter w;
  w.Psb().Psbend().Tsc(0xa0000);
  pt_packet tma = {};
  tma.type = ppt_tma;
  tma.payload.tma.ctc = 0x1fff;
  tma.payload.tma.fc = 1;
  w.Packet(tma);
  pt_packet mtc = {};
  mtc.type = ppt_mtc;
  mtc.payload.mtc.ctc = 0;
  w.Packet(mtc);
  mtc.payload.mtc.ctc = 1;
  w.Packet(mtc);
  pt_config config;
  pt_config_init(&config);
  config.mtc_freq = 0;
  config.cpuid_0x15_eax = 3;
  config.cpuid_0x15_ebx = 9;
  PtdumpOptions options;
  options.time = true;
  options.time_delta = true;
  options.no_tcal = true;
  EXPECT_EQ(
      List(w.bytes(), options, nullptr, 0, &config),
      "0000000000000000  psb\n"
      "0000000000000010  psbend\n"
      "0000000000000012  tsc        a0000                     tsc  +a0000\n"
      "000000000000001a  tma        1fff, 1                   tsc  +0\n"
      "0000000000000021  mtc        0                         tsc  +2\n"
      "0000000000000023  mtc        1                         tsc  +3\n");
  options.time_delta = false;
  EXPECT_THAT(List(w.bytes(), options, nullptr, 0, &config),
              ::testing::HasSubstr("mtc        1                         tsc  "
                                   "00000000000a0005\n"));
}

}  // namespace
}  // namespace hwt::pt
