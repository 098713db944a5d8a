// Test helpers for the PT encoder's round trips (recorder/pt_encoder*_test.cc):
// executions of synthetic programs encoded by PtEncoder and decoded again
// with libipt's packet, instruction and block decoders.
#ifndef HWT_RECORDER_TESTING_PT_ROUNDTRIP_H_
#define HWT_RECORDER_TESTING_PT_ROUNDTRIP_H_

#include <intel-pt.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "base/file_util.h"
#include "decoders/x86/x86_insn.h"
#include "recorder/execution.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"

namespace hwt::recorder::testing {

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

pt_config MakeConfig(const std::string& trace, const PtTimingOptions& timing);

struct pt_image* MakeImage(const std::vector<Image>& images);

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
                       std::optional<uint64_t> sync_offset = std::nullopt);

// Decodes with the block decoder and checks the blocks against `expected`
// (each block must cover exactly the next ninsn expected instructions).
void CheckBlocks(const std::string& trace, const std::vector<Image>& images,
                 const std::vector<uint64_t>& expected);

struct PacketList {
  std::vector<pt_packet> packets;
  std::vector<uint64_t> offsets;
  std::vector<std::string> errors;
  std::array<uint64_t, 32> counts{};
};

// Every packet of the trace, through libipt's packet decoder.
PacketList DecodePackets(const std::string& trace);

std::string IpcName(pt_ip_compression ipc);

// The full IP of an IP packet given the last IP (libipt's rules).
uint64_t FullIp(const pt_packet_ip& p, uint64_t last_ip);

// A short ptdump-like listing with full IPs: "tip.pge u32 400000",
// "tnt.8 !.!", ... `last_ip` tracks IP compression across packets.
std::string Describe(const pt_packet& p, uint64_t* last_ip);

std::vector<std::string> DescribeAll(const std::string& trace);

// The executed instructions the trace can show.
std::vector<uint64_t> Visible(const std::vector<uint64_t>& ips,
                              const PtEncoderStats& stats);

// A synthetic program written to a temporary file, with its execution.
struct SyntheticCase {
  SyntheticProgram program;
  TempDir dir;
  Image image;
};

SyntheticCase MakeProgram(const SyntheticProgramOptions& options);

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
                        bool observe = false);

// The full round-trip check of one synthetic case.
void CheckRoundTrip(const SyntheticCase& c, const Encoded& e);

// Assembles small programs at fixed addresses for exact packet tests.
struct Code {
  BytesInsnSource source;
  TempDir dir = *TempDir::Create("pt_encoder_code");
  std::vector<Image> images;

  // Writes `bytes` as an image at `base` and serves them as code.
  void Add(uint64_t base, std::vector<uint8_t> bytes);
};

// Encodes `ips` over `code` (OnExit(0) at the end unless !exit).
std::string Encode(Code& code, const std::vector<uint64_t>& ips,
                   PtEncoderOptions options = {},
                   PtEncoderStats* stats = nullptr, bool exit = true);

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
Code SmallProgram();

}  // namespace hwt::recorder::testing

#endif  // HWT_RECORDER_TESTING_PT_ROUNDTRIP_H_
