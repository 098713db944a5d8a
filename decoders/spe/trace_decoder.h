// SPE behind the shared decoder interface (decoders/decoder.h): what
// CreateDecoder returns for SPE captures. One stream per buffer; Decode()
// delivers every complete record as a kSample event (its full record goes
// along to a SampleRecordSink, sample_sink.h) and every run of skipped bytes
// as a kGap kDecodeError event; ListPackets() is the perf-style packet
// listing; stats() maps SpeStats onto StreamStats (ToStreamStats). The
// SPE-only statistics (packets by type, partial records, operations, events,
// data sources) stay reachable through SpeCaptureStatsOf for the SPE reports.
#ifndef HWT_DECODERS_SPE_TRACE_DECODER_H_
#define HWT_DECODERS_SPE_TRACE_DECODER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/spe/decoder.h"
#include "decoders/spe/stats.h"

namespace hwt::spe {

class SpeTraceDecoder : public TraceDecoder {
 public:
  // Errors: not an SPE capture. The capture must outlive the decoder.
  static absl::StatusOr<std::unique_ptr<SpeTraceDecoder>> Create(
      const capture::Capture& capture, const DecodeOptions& options = {});

  const std::vector<StreamInfo>& streams() const override { return streams_; }
  // Buffer by buffer, in trace order. Gap events and kSample events of a
  // buffer come in batches of options.batch_size samples.
  absl::Status Decode(EventSink& sink) override;
  absl::Status ListPackets(PacketSink& sink) override;
  const std::vector<StreamStats>& stats() const override { return stats_; }
  bool ProducesSamples() const override { return true; }

  // The SPE statistics of the last Decode() or ListPackets().
  const CaptureStats& capture_stats() const { return capture_stats_; }

 private:
  SpeTraceDecoder(const capture::Capture& capture,
                  const DecodeOptions& options);
  absl::Status DecodeBuffer(uint32_t buffer, EventSink& sink);
  void StartRun();
  void FinishRun();

  const capture::Capture& capture_;
  DecodeOptions options_;
  std::vector<StreamInfo> streams_;
  std::vector<StreamStats> stats_;
  CaptureStats capture_stats_;
};

// The StreamStats an SPE buffer's statistics imply: every byte decoded or
// lost (skipped), its packets, and one error per skipped run (the first
// kMaxListedErrors with their offsets). StreamStats has no field for samples
// (its fields are what saved profiles keep): the sample count is
// SpeStats::records, one kSample event each.
StreamStats ToStreamStats(const SpeStats& stats);

// The SPE statistics of `decoder` when it is an SPE decoder, else null.
const CaptureStats* SpeCaptureStatsOf(const TraceDecoder& decoder);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_TRACE_DECODER_H_
