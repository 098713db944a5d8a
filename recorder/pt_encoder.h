// Turns a recorded execution into the Intel PT byte stream that hardware
// configured like FreeBSD's HWT PT backend would have written: user-mode only
// (RTIT_CTL.USER=1, OS=0), BRANCHEN=1, return compression on unless disabled,
// optional TSC/MTC/CYC timing from a deterministic clock model, optional
// injected internal-buffer overflows. Packets are written with libipt's
// encoder; the packet rules (what hardware emits when, and where libipt's
// decoder dictated a choice) are documented at the top of pt_encoder.cc.
#ifndef HWT_RECORDER_PT_ENCODER_H_
#define HWT_RECORDER_PT_ENCODER_H_

#include <intel-pt.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "capture/manifest.h"
#include "capture/record.h"
#include "recorder/execution.h"
#include "recorder/pt_timing.h"

namespace hwt::recorder {

// An injected internal-buffer overflow: instructions
// [first_instruction, first_instruction + instructions) execute while the
// hardware drops packets; at instruction first_instruction + instructions it
// writes OVF and resumes (FUP there, or TIP.PGE if tracing was off).
struct PtOverflow {
  uint64_t first_instruction = 0;
  uint64_t instructions = 1;
};

struct PtEncoderOptions {
  bool return_compression = true;  // RTIT_CTL.DisRETC = 0
  // PSB+ is inserted at the first instruction boundary after this many
  // bytes since the previous PSB (hardware's PSBFreq: 2 KiB << field). 0 = only
  // the initial PSB+.
  uint64_t psb_period = 4096;
  // false: TNT-8 packets of up to 6 bits (what current cores write);
  // true: TNT-64 packets of up to 47 bits when more than 6 bits are pending.
  bool long_tnt = false;
  PtTimingOptions timing;
  std::vector<PtOverflow> overflows;  // sorted, non-overlapping, start >= 1
  size_t buffer_size = 1 << 20;       // bytes buffered before calling Writer
};

// Instruction indices [first, first + count) the trace cannot show: a decoder
// stops after the last instruction bound to a packet before an overflow and
// resumes at the instruction the OVF's FUP/TIP.PGE names.
struct PtLostRange {
  uint64_t first = 0;
  uint64_t count = 0;
};

struct PtEncoderStats {
  uint64_t instructions = 0;  // instructions received (lost ones included)
  uint64_t bytes = 0;
  uint64_t psbs = 0;
  std::array<uint64_t, 32> packets{};  // by enum pt_packet_type
  uint64_t tnt_bits = 0;
  uint64_t compressed_returns = 0;
  uint64_t uncompressed_returns = 0;
  uint64_t far_calls = 0;       // TIP.PGD at syscall/int (tracing off)
  uint64_t async_disables = 0;  // FUP+TIP.PGD where the flow jumped
  uint64_t enables = 0;         // TIP.PGE
  uint64_t overflows = 0;
  uint64_t lost_instructions = 0;
  std::vector<PtLostRange> lost;
};

// One emitted packet, for tests and debugging (see set_packet_observer).
struct PtPacketInfo {
  uint64_t offset = 0;       // in the output stream
  struct pt_packet packet;   // as given to pt_enc_next
  uint64_t instruction = 0;  // index of the instruction being handled
  // The first instruction the packet is about: a TNT's first branch, the
  // branch of a TIP/TIP.PGD, the instruction a TIP.PGE/FUP/PSB precedes.
  uint64_t first_instruction = 0;
  uint64_t cycle = 0;  // model time (core cycles) of the packet
  uint64_t tsc = 0;    // model TSC of the packet
};

class PtEncoder : public ExecutionSink {
 public:
  // Receives the trace in order, in chunks of at most options.buffer_size.
  using Writer = std::function<absl::Status(std::string_view bytes)>;

  // `insns` must outlive the encoder.
  PtEncoder(InsnSource* insns, PtEncoderOptions options, Writer writer);
  ~PtEncoder() override;
  PtEncoder(const PtEncoder&) = delete;
  PtEncoder& operator=(const PtEncoder&) = delete;

  void set_packet_observer(std::function<void(const PtPacketInfo&)> observer) {
    observer_ = std::move(observer);
  }

  void OnStart(const ExecutionInfo& info) override {}
  void OnMapping(const MappingEvent& event) override;
  void OnInstructions(absl::Span<const uint64_t> ips) override;
  void OnExit(int status) override;

  // Ends the trace if OnExit was not called (as OnExit does), hands the
  // remaining bytes to the writer and returns the first error: an instruction
  // the InsnSource could not classify, bad options, a writer error.
  absl::Status Finish();

  const PtEncoderStats& stats() const { return stats_; }
  // One record per OnMapping, with the trace offset at that moment (buffer 0).
  const std::vector<capture::Record>& records() const { return records_; }
  // RTIT_CTL and frequency fields as the options configure them.
  capture::PtConfig pt_config() const;
  // Bytes produced so far (written or buffered).
  uint64_t offset() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::function<void(const PtPacketInfo&)> observer_;
  PtEncoderStats stats_;
  std::vector<capture::Record> records_;
  friend struct Impl;
};

// A Writer that appends to *out.
PtEncoder::Writer StringWriter(std::string* out);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_PT_ENCODER_H_
