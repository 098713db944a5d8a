// Round trips executions through PtEncoder and libipt's decoders: the decoded
// instruction sequence must equal the execution fed in (minus the ranges the
// encoder reports as lost to overflows), every packet must decode, events and
// timestamps must match what the packet rules and the clock model say.
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

namespace hwt::recorder {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

// ---------------------------------------------------------------------------
// Test doubles and helpers

// Records an execution (the ground truth).
class RecordingSink : public ExecutionSink {
 public:
  void OnMapping(const MappingEvent& event) override {}
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    ips_.insert(ips_.end(), ips.begin(), ips.end());
  }
  std::vector<uint64_t> ips_;
};

// An InsnSource over byte regions (the fake the recorder's real source
// replaces), decoding with the project's x86 decoder.
class BytesInsnSource : public InsnSource {
 public:
  void Add(uint64_t base, std::string bytes) {
    regions_[base] = std::move(bytes);
  }
  std::optional<x86::Insn> InsnAt(uint64_t ip) override {
    ++lookups_;
    auto it = regions_.upper_bound(ip);
    if (it == regions_.begin()) return std::nullopt;
    --it;
    const uint64_t offset = ip - it->first;
    if (offset >= it->second.size()) return std::nullopt;
    const size_t size = std::min<size_t>(15, it->second.size() - offset);
    return decoder_->Decode(
        absl::MakeConstSpan(
            reinterpret_cast<const uint8_t*>(it->second.data()) + offset, size),
        ip);
  }
  const std::map<uint64_t, std::string>& regions() const { return regions_; }
  int lookups_ = 0;

 private:
  std::map<uint64_t, std::string> regions_;
  std::unique_ptr<x86::InsnDecoder> decoder_ = x86::InsnDecoder::Create();
};

struct Image {
  std::string path;
  uint64_t base = 0;
  uint64_t size = 0;
};

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

struct DecodedEvent {
  size_t position = 0;  // number of instructions decoded before the event
  pt_event event;
};

struct InsnDecode {
  std::vector<uint64_t> ips;
  std::vector<uint64_t> times;    // pt_insn_time after each instruction
  std::vector<uint64_t> offsets;  // pt_insn_get_offset after each instruction
  std::vector<DecodedEvent> events;
  std::vector<std::string> errors;  // anything but the end of the trace
};

// Decodes with libipt's instruction flow decoder, from the first PSB or from
// `sync_offset`, re-syncing at the next PSB after an error.
InsnDecode DecodeInsns(const std::string& trace,
                       const std::vector<Image>& images,
                       const PtTimingOptions& timing = {},
                       std::optional<uint64_t> sync_offset = std::nullopt) {
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

struct PacketList {
  std::vector<pt_packet> packets;
  std::vector<uint64_t> offsets;
  std::vector<std::string> errors;
  std::array<uint64_t, 32> counts{};
};

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

// A synthetic program written to a temporary file, with its execution.
struct SyntheticCase {
  SyntheticProgram program;
  TempDir dir;
  Image image;
};

SyntheticCase MakeProgram(const SyntheticProgramOptions& options) {
  SyntheticProgram program = SyntheticProgram::Generate(options);
  auto dir = TempDir::Create("pt_encoder_test");
  EXPECT_TRUE(dir.ok());
  Image image{dir->path() + "/code.bin", program.base(), program.code().size()};
  EXPECT_TRUE(program.WriteCode(image.path).ok());
  return SyntheticCase{std::move(program), std::move(*dir), image};
}

struct Encoded {
  std::function<uint64_t(uint64_t)> tsc_at_cycle;
  std::string trace;
  std::vector<uint64_t> ips;  // the execution
  PtEncoderStats stats;
  std::vector<capture::Record> records;
  std::vector<PtPacketInfo> packets;
};

Encoded EncodeSynthetic(const SyntheticProgram& program,
                        const PtEncoderOptions& options,
                        const SyntheticExecutionOptions& run,
                        bool observe = false) {
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

// ---------------------------------------------------------------------------
// Hand-made code: exact packet sequences

// Assembles small programs at fixed addresses for exact packet tests.
struct Code {
  BytesInsnSource source;
  TempDir dir = *TempDir::Create("pt_encoder_code");
  std::vector<Image> images;

  void Add(uint64_t base, std::vector<uint8_t> bytes) {
    std::string s(bytes.begin(), bytes.end());
    const std::string path =
        absl::StrFormat("%s/code_%x.bin", dir.path(), base);
    EXPECT_TRUE(WriteFileAtomically(path, s).ok());
    images.push_back({path, base, s.size()});
    source.Add(base, s);
  }
};

std::string Encode(Code& code, const std::vector<uint64_t>& ips,
                   PtEncoderOptions options = {},
                   PtEncoderStats* stats = nullptr, bool exit = true) {
  std::string trace;
  PtEncoder encoder(&code.source, options, StringWriter(&trace));
  encoder.OnInstructions(ips);
  if (exit) encoder.OnExit(0);
  absl::Status status = encoder.Finish();
  EXPECT_TRUE(status.ok()) << status;
  if (stats != nullptr) *stats = encoder.stats();
  return trace;
}

// 0x1000: loop body with a conditional branch, a call and a return.
//   1000: 31 c0          xor eax, eax
//   1002: 74 03          je 1007
//   1004: 48 ff c0       inc rax
//   1007: e8 05 00 00 00 call 1011
//   100c: ff e0          jmp rax
//   100e: 0f 05          syscall
//   1010: 90             nop
//   1011: c3             ret
//   1012: c3             ret  (unused)
Code SmallProgram() {
  Code code;
  code.Add(0x1000, {0x31, 0xc0, 0x74, 0x03, 0x48, 0xff, 0xc0, 0xe8, 0x05, 0x00,
                    0x00, 0x00, 0xff, 0xe0, 0x0f, 0x05, 0x90, 0xc3, 0xc3});
  return code;
}

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
