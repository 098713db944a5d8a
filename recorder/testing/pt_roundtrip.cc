// Round-trip helpers for the PT encoder's tests; see pt_roundtrip.h.
#include "recorder/testing/pt_roundtrip.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::recorder::testing {

pt_config MakeConfig(const std::string& trace, const PtTimingOptions& timing) {
  pt_config config;
  pt_config_init(&config);
  auto* begin = reinterpret_cast<uint8_t*>(const_cast<char*>(trace.data()));
  config.begin = begin;
  config.end = begin + trace.size();
  if (timing.any()) {
    config.mtc_freq = timing.mtc_freq;
    config.nom_freq = timing.nom_freq;
    config.cpuid_0x15_eax = timing.cpuid_15_eax;
    config.cpuid_0x15_ebx = timing.cpuid_15_ebx;
  }
  return config;
}

struct pt_image* MakeImage(const std::vector<Image>& images) {
  struct pt_image* image = pt_image_alloc("test");
  for (const Image& i : images) {
    int status =
        pt_image_add_file(image, i.path.c_str(), 0, i.size, nullptr, i.base);
    EXPECT_GE(status, 0) << i.path << ": " << pt_errstr(pt_errcode(status));
  }
  return image;
}

// Decodes with libipt's instruction flow decoder, from the first PSB or from
// `sync_offset`, re-syncing at the next PSB after an error.
InsnDecode DecodeInsns(const std::string& trace,
                       const std::vector<Image>& images,
                       const PtTimingOptions& timing,
                       std::optional<uint64_t> sync_offset) {
  InsnDecode out;
  pt_config config = MakeConfig(trace, timing);
  struct pt_insn_decoder* decoder = pt_insn_alloc_decoder(&config);
  struct pt_image* image = MakeImage(images);
  pt_insn_set_image(decoder, image);
  bool first = true;
  for (;;) {
    int status = first && sync_offset ? pt_insn_sync_set(decoder, *sync_offset)
                                      : pt_insn_sync_forward(decoder);
    first = false;
    if (status < 0) {
      if (status != -pte_eos)
        out.errors.push_back(pt_errstr(pt_errcode(status)));
      break;
    }
    for (;;) {
      while (status & pts_event_pending) {
        DecodedEvent e;
        e.position = out.ips.size();
        status = pt_insn_event(decoder, &e.event, sizeof(e.event));
        if (status < 0) break;
        out.events.push_back(e);
      }
      if (status < 0) break;
      if (status & pts_eos) {
        status = -pte_eos;
        break;
      }
      pt_insn insn;
      status = pt_insn_next(decoder, &insn, sizeof(insn));
      if (status < 0) break;
      out.ips.push_back(insn.ip);
      if (timing.any()) {
        uint64_t time = 0;
        uint32_t lost_mtc = 0, lost_cyc = 0;
        pt_insn_time(decoder, &time, &lost_mtc, &lost_cyc);
        out.times.push_back(time);
        uint64_t offset = 0;
        pt_insn_get_offset(decoder, &offset);
        out.offsets.push_back(offset);
      }
    }
    if (status == -pte_eos) break;
    uint64_t offset = 0;
    pt_insn_get_offset(decoder, &offset);
    out.errors.push_back(
        absl::StrFormat("%s at offset %d after %d instructions",
                        pt_errstr(pt_errcode(status)), offset, out.ips.size()));
    if (out.errors.size() > 20) break;
  }
  pt_insn_free_decoder(decoder);
  pt_image_free(image);
  return out;
}

// Decodes with the block decoder and checks the blocks against `expected`
// (each block must cover exactly the next ninsn expected instructions).
void CheckBlocks(const std::string& trace, const std::vector<Image>& images,
                 const std::vector<uint64_t>& expected) {
  pt_config config = MakeConfig(trace, {});
  struct pt_block_decoder* decoder = pt_blk_alloc_decoder(&config);
  struct pt_image* image = MakeImage(images);
  pt_blk_set_image(decoder, image);
  size_t next = 0;
  std::vector<std::string> errors;
  for (;;) {
    int status = pt_blk_sync_forward(decoder);
    if (status < 0) {
      if (status != -pte_eos) errors.push_back(pt_errstr(pt_errcode(status)));
      break;
    }
    for (;;) {
      while (status & pts_event_pending) {
        pt_event event;
        status = pt_blk_event(decoder, &event, sizeof(event));
        if (status < 0) break;
      }
      if (status < 0) break;
      if (status & pts_eos) {
        status = -pte_eos;
        break;
      }
      pt_block block;
      status = pt_blk_next(decoder, &block, sizeof(block));
      if (block.ninsn > 0) {
        ASSERT_LE(next + block.ninsn, expected.size()) << "block past the end";
        ASSERT_EQ(block.ip, expected[next]) << "block " << next;
        ASSERT_EQ(block.end_ip, expected[next + block.ninsn - 1])
            << "block " << next;
        next += block.ninsn;
      }
      if (status < 0) break;
    }
    if (status == -pte_eos) break;
    errors.push_back(pt_errstr(pt_errcode(status)));
    break;
  }
  EXPECT_THAT(errors, ::testing::IsEmpty());
  EXPECT_EQ(next, expected.size()) << "block decoder stopped early";
  pt_blk_free_decoder(decoder);
  pt_image_free(image);
}

// Every packet of the trace, through libipt's packet decoder.
PacketList DecodePackets(const std::string& trace) {
  PacketList out;
  pt_config config = MakeConfig(trace, {});
  struct pt_packet_decoder* decoder = pt_pkt_alloc_decoder(&config);
  int status = pt_pkt_sync_forward(decoder);
  if (status < 0) {
    if (!trace.empty()) out.errors.push_back(pt_errstr(pt_errcode(status)));
  } else {
    uint64_t sync = 0;
    pt_pkt_get_sync_offset(decoder, &sync);
    if (sync != 0) out.errors.push_back("trace does not start with a PSB");
    for (;;) {
      uint64_t offset = 0;
      pt_pkt_get_offset(decoder, &offset);
      pt_packet packet;
      status = pt_pkt_next(decoder, &packet, sizeof(packet));
      if (status < 0) {
        if (status != -pte_eos) {
          out.errors.push_back(absl::StrFormat(
              "%s at offset %d", pt_errstr(pt_errcode(status)), offset));
        }
        break;
      }
      out.packets.push_back(packet);
      out.offsets.push_back(offset);
      if (packet.type < out.counts.size()) ++out.counts[packet.type];
    }
  }
  pt_pkt_free_decoder(decoder);
  return out;
}

std::string IpcName(pt_ip_compression ipc) {
  switch (ipc) {
    case pt_ipc_suppressed:
      return "0";
    case pt_ipc_update_16:
      return "u16";
    case pt_ipc_update_32:
      return "u32";
    case pt_ipc_sext_48:
      return "s48";
    case pt_ipc_update_48:
      return "u48";
    case pt_ipc_full:
      return "full";
  }
  return "?";
}

// The full IP of an IP packet given the last IP (libipt's rules).
uint64_t FullIp(const pt_packet_ip& p, uint64_t last_ip) {
  switch (p.ipc) {
    case pt_ipc_update_16:
      return (last_ip & ~0xffffull) | (p.ip & 0xffff);
    case pt_ipc_update_32:
      return (last_ip & ~0xffffffffull) | (p.ip & 0xffffffff);
    case pt_ipc_update_48:
      return (last_ip & ~0xffffffffffffull) | (p.ip & 0xffffffffffff);
    case pt_ipc_sext_48:
      return static_cast<uint64_t>(static_cast<int64_t>(p.ip << 16) >> 16);
    default:
      return p.ip;
  }
}

// A short ptdump-like listing with full IPs: "tip.pge u32 400000",
// "tnt.8 !.!", ... `last_ip` tracks IP compression across packets.
std::string Describe(const pt_packet& p, uint64_t* last_ip) {
  auto ip = [&](const char* name) {
    if (p.payload.ip.ipc == pt_ipc_suppressed) return std::string(name);
    *last_ip = FullIp(p.payload.ip, *last_ip);
    return absl::StrFormat("%s %s %x", name, IpcName(p.payload.ip.ipc),
                           *last_ip);
  };
  if (p.type == ppt_psb || p.type == ppt_ovf) *last_ip = 0;
  switch (p.type) {
    case ppt_psb:
      return "psb";
    case ppt_psbend:
      return "psbend";
    case ppt_fup:
      return ip("fup");
    case ppt_tip:
      return ip("tip");
    case ppt_tip_pge:
      return ip("tip.pge");
    case ppt_tip_pgd:
      return ip("tip.pgd");
    case ppt_tnt_8:
    case ppt_tnt_64: {
      std::string bits;
      for (int i = p.payload.tnt.bit_size - 1; i >= 0; --i) {
        bits += ((p.payload.tnt.payload >> i) & 1) ? '!' : '.';
      }
      return (p.type == ppt_tnt_8 ? "tnt.8 " : "tnt.64 ") + bits;
    }
    case ppt_mode:
      return p.payload.mode.leaf == pt_mol_exec && p.payload.mode.bits.exec.csl
                 ? "mode.exec 64"
                 : "mode";
    case ppt_cbr:
      return absl::StrCat("cbr ", p.payload.cbr.ratio);
    case ppt_tsc:
      return absl::StrFormat("tsc %x", p.payload.tsc.tsc);
    case ppt_tma:
      return absl::StrFormat("tma %x %x", p.payload.tma.ctc, p.payload.tma.fc);
    case ppt_mtc:
      return absl::StrFormat("mtc %x", p.payload.mtc.ctc);
    case ppt_cyc:
      return absl::StrFormat("cyc %x", p.payload.cyc.value);
    case ppt_ovf:
      return "ovf";
    default:
      return absl::StrCat("type ", static_cast<int>(p.type));
  }
}

std::vector<std::string> DescribeAll(const std::string& trace) {
  PacketList list = DecodePackets(trace);
  EXPECT_THAT(list.errors, ::testing::IsEmpty());
  std::vector<std::string> out;
  uint64_t last_ip = 0;
  for (const pt_packet& p : list.packets) out.push_back(Describe(p, &last_ip));
  return out;
}

// The executed instructions the trace can show.
std::vector<uint64_t> Visible(const std::vector<uint64_t>& ips,
                              const PtEncoderStats& stats) {
  std::vector<bool> lost(ips.size(), false);
  for (const PtLostRange& r : stats.lost) {
    for (uint64_t i = r.first; i < r.first + r.count && i < ips.size(); ++i) {
      lost[i] = true;
    }
  }
  std::vector<uint64_t> out;
  for (size_t i = 0; i < ips.size(); ++i) {
    if (!lost[i]) out.push_back(ips[i]);
  }
  return out;
}

SyntheticCase MakeProgram(const SyntheticProgramOptions& options) {
  SyntheticProgram program = SyntheticProgram::Generate(options);
  auto dir = TempDir::Create("pt_encoder_test");
  EXPECT_TRUE(dir.ok());
  Image image{dir->path() + "/code.bin", program.base(), program.code().size()};
  EXPECT_TRUE(program.WriteCode(image.path).ok());
  return SyntheticCase{std::move(program), std::move(*dir), image};
}

Encoded EncodeSynthetic(const SyntheticProgram& program,
                        const PtEncoderOptions& options,
                        const SyntheticExecutionOptions& run, bool observe) {
  Encoded out;
  auto source = program.NewInsnSource();
  PtEncoder encoder(source.get(), options, StringWriter(&out.trace));
  if (observe) {
    encoder.set_packet_observer(
        [&](const PtPacketInfo& info) { out.packets.push_back(info); });
  }
  RecordingSink truth;
  TeeExecutionSink tee({&encoder, &truth});
  RunSyntheticExecution(program, run, &tee);
  absl::Status status = encoder.Finish();
  EXPECT_TRUE(status.ok()) << status;
  out.ips = std::move(truth.ips_);
  out.stats = encoder.stats();
  out.records = encoder.records();
  const PtTimingOptions timing = options.timing;
  out.tsc_at_cycle = [timing](uint64_t cycle) {
    return timing.tsc_start +
           static_cast<uint64_t>(static_cast<unsigned __int128>(cycle) *
                                 timing.nom_freq / timing.cbr);
  };
  return out;
}

// The full round-trip check of one synthetic case.
void CheckRoundTrip(const SyntheticCase& c, const Encoded& e) {
  PacketList packets = DecodePackets(e.trace);
  ASSERT_THAT(packets.errors, ::testing::IsEmpty());
  EXPECT_EQ(e.stats.bytes, e.trace.size());
  for (int type = 0; type < 32; ++type) {
    EXPECT_EQ(packets.counts[type], e.stats.packets[type])
        << "packet type " << type;
  }
  EXPECT_EQ(e.stats.instructions, e.ips.size());
  const std::vector<uint64_t> expected = Visible(e.ips, e.stats);
  InsnDecode decoded = DecodeInsns(e.trace, {c.image});
  EXPECT_THAT(decoded.errors, ::testing::IsEmpty());
  ASSERT_EQ(decoded.ips.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(decoded.ips[i], expected[i]) << "instruction " << i;
  }
  CheckBlocks(e.trace, {c.image}, expected);
}

std::string Encode(Code& code, const std::vector<uint64_t>& ips,
                   PtEncoderOptions options, PtEncoderStats* stats, bool exit) {
  std::string trace;
  PtEncoder encoder(&code.source, options, StringWriter(&trace));
  encoder.OnInstructions(ips);
  if (exit) encoder.OnExit(0);
  absl::Status status = encoder.Finish();
  EXPECT_TRUE(status.ok()) << status;
  if (stats != nullptr) *stats = encoder.stats();
  return trace;
}

void Code::Add(uint64_t base, std::vector<uint8_t> bytes) {
  std::string s(bytes.begin(), bytes.end());
  const std::string path = absl::StrFormat("%s/code_%x.bin", dir.path(), base);
  EXPECT_TRUE(WriteFileAtomically(path, s).ok());
  images.push_back({path, base, s.size()});
  source.Add(base, s);
}

Code SmallProgram() {
  Code code;
  code.Add(0x1000, {0x31, 0xc0, 0x74, 0x03, 0x48, 0xff, 0xc0, 0xe8, 0x05, 0x00,
                    0x00, 0x00, 0xff, 0xe0, 0x0f, 0x05, 0x90, 0xc3, 0xc3});
  return code;
}

}  // namespace hwt::recorder::testing
