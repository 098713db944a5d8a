// Entry points of the SPE decoder: raw bytes, one buffer chunk by chunk, or a
// whole capture (HWT bundle, or a raw file as hwt(8) writes it: SPE halves of
// every CPU appended without framing) -> records in batches plus statistics.
// The shared hwt::TraceDecoder over it is trace_decoder.h (what
// CreateDecoder returns for SPE); this is the record-level API beneath it.
#ifndef HWT_DECODERS_SPE_DECODER_H_
#define HWT_DECODERS_SPE_DECODER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/file_util.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/spe/assembler.h"
#include "decoders/spe/midr.h"
#include "decoders/spe/record.h"
#include "decoders/spe/stats.h"

namespace hwt::spe {

struct DecodeOptions {
  // MIDR_EL1 of the traced CPU for implementation-defined encodings; nullopt:
  // the capture's (manifest cpu.midr, 0 = unknown).
  std::optional<uint64_t> midr;
  // Deliver partial records (flagged) to the sink; they are counted anyway.
  bool deliver_partial_records = true;
  size_t batch_size = 1024;
};

// Receives the records of every buffer, in trace order within a buffer.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void OnRecords(uint32_t buffer, absl::Span<const Record> records) = 0;
  // After the last record of a buffer.
  virtual void OnBufferEnd(uint32_t buffer) {}
};

// Decodes one buffer chunk by chunk. Each chunk is continuous trace starting
// at a record boundary (an SPE half-buffer); a record cut by its end is
// partial.
class BufferDecoder {
 public:
  // `sink` may be null (statistics only); `stats` must outlive the decoder.
  BufferDecoder(uint32_t buffer, SpeStats* stats, RecordSink* sink,
                const DecodeOptions& options);
  ~BufferDecoder();

  // `bytes` are the chunk's bytes, at `file_offset` in the buffer's raw file.
  void DecodeChunk(absl::Span<const uint8_t> bytes, uint64_t file_offset,
                   const capture::BufferChunk& flags);
  void DecodeChunk(absl::Span<const uint8_t> bytes, uint64_t file_offset);
  // Flushes records and statistics; calls sink->OnBufferEnd().
  void Finish();

 private:
  class Output : public RecordOutput {
   public:
    Output(uint32_t buffer, RecordSink* sink) : buffer_(buffer), sink_(sink) {}
    void OnRecords(absl::Span<const Record> records) override {
      sink_->OnRecords(buffer_, records);
    }

   private:
    uint32_t buffer_;
    RecordSink* sink_;
  };

  uint32_t buffer_;
  SpeStats* stats_;
  RecordSink* sink_;
  Output output_;
  RecordAssembler assembler_;
  bool finished_ = false;
};

// Not an SPE capture: a FailedPrecondition error naming it.
absl::Status CheckSpeCapture(const capture::Capture& capture);

// The CPU whose implementation-defined encodings apply: options.midr, else
// the capture's.
CpuModel CaptureCpu(const capture::Capture& capture,
                    const DecodeOptions& options);

// One buffer of a capture, mapped, with its chunks checked against the file
// (a buffer without chunks is one chunk of the whole file).
struct BufferTrace {
  MappedFile file;
  std::vector<capture::BufferChunk> chunks;
};
absl::StatusOr<BufferTrace> OpenBufferTrace(const capture::Capture& capture,
                                            size_t buffer);

// Counts a chunk of `size` bytes with its flags in `stats`.
void CountChunk(const capture::BufferChunk& flags, uint64_t size,
                SpeStats* stats);

// Decodes `bytes` as one chunk of buffer `buffer` starting at file offset 0.
SpeStats DecodeBytes(absl::Span<const uint8_t> bytes, RecordSink* sink,
                     const DecodeOptions& options = {}, uint32_t buffer = 0);

// Decodes every buffer of an SPE capture, chunk by chunk. Errors: not an SPE
// capture, unreadable buffer file, chunk outside its file (naming file and
// offset). Decode problems are statistics, not errors.
absl::StatusOr<CaptureStats> DecodeCapture(const capture::Capture& capture,
                                           RecordSink& sink,
                                           const DecodeOptions& options = {});

// Lists every packet of every buffer (stream = buffer index) in perf's
// arm-spe dump style (text without the offset: see listing.h), plus one line
// per skipped run, per chunk start and per partial record. Also returns the
// statistics.
absl::StatusOr<CaptureStats> ListCapturePackets(
    const capture::Capture& capture, PacketSink& sink,
    const DecodeOptions& options = {});

// "buffer 0 (cpu 3)", "buffer 1 (thread 2)".
std::string BufferName(const capture::BufferInfo& info, size_t index);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_DECODER_H_
