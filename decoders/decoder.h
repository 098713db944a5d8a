// The interface every decoder implements (decoders/pt and decoders/coresight
// for control flow, decoders/spe for samples), the per-stream statistics they
// keep, and CreateDecoder(), which picks the decoder for a capture's backend.
// SPE delivers one kSample event per sample; what only SPE records have
// (latencies, data sources, operation types) reaches SPE-aware consumers
// alongside the events (decoders/spe/sample_sink.h), and its own statistics
// through decoders/spe/trace_decoder.h.
#ifndef HWT_DECODERS_DECODER_H_
#define HWT_DECODERS_DECODER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/event.h"

namespace hwt {

class ImageFileCache;  // decoders/memory_image.h

// One decoded stream: a PT buffer, one CoreSight trace ID, or an SPE buffer.
struct StreamInfo {
  uint32_t id = 0;          // index into TraceDecoder::streams()
  size_t buffer_index = 0;  // index into manifest().buffers
  std::string name;         // "buffer 0 (thread 0)", "trace ID 0x10 (cpu 0)"
  std::optional<int32_t> cpu;
  std::optional<int32_t> thread;
  uint32_t trace_id = 0;  // CoreSight trace ID; 0 for PT

  friend bool operator==(const StreamInfo&, const StreamInfo&) = default;
};

struct DecodeErrorInfo {
  uint64_t offset = 0;      // trace offset in the buffer's raw file
  uint64_t bytes_lost = 0;  // trace bytes skipped because of this error
  GapReason reason = GapReason::kDecodeError;
  uint64_t ip = 0;      // last known IP, 0 if none
  std::string message;  // e.g. "trace doesn't match instruction (libipt:
                        // bad query)"

  friend bool operator==(const DecodeErrorInfo&,
                         const DecodeErrorInfo&) = default;
};

// Every input byte is either decoded or lost: trace_bytes == bytes_decoded +
// bytes_lost.
struct StreamStats {
  uint64_t trace_bytes = 0;
  uint64_t bytes_decoded = 0;
  uint64_t bytes_lost = 0;
  uint64_t packets = 0;
  uint64_t instructions = 0;
  uint64_t blocks = 0;
  uint64_t errors = 0;  // all gaps that are errors (decode, overflow,
                        // missing image, lost data)
  uint64_t overflows = 0;
  std::vector<DecodeErrorInfo> error_list;  // the first kMaxListedErrors

  static constexpr size_t kMaxListedErrors = 1000;
  void AddError(DecodeErrorInfo error);
  void Merge(const StreamStats& other);

  friend bool operator==(const StreamStats&, const StreamStats&) = default;
};
// The sum over all streams (the error list keeps the first kMaxListedErrors).
StreamStats TotalStats(const std::vector<StreamStats>& stats);

class PacketSink {
 public:
  virtual ~PacketSink() = default;
  // One decoded packet: its offset in the buffer's raw file and a one-line
  // description in the style of the backend's reference tool (ptdump,
  // trc_pkt_lister).
  virtual void OnPacket(uint32_t stream, uint64_t offset,
                        std::string_view text) = 0;
};

// Which engine follows the control flow where a backend has two. The
// results are the same (every report output is byte-identical; the
// differential tests check it); kFast is faster.
enum class DecoderEngine : uint8_t {
  kFast,    // PT: the block-cache walker, libipt per segment where it gives up
  kLibipt,  // PT: libipt's block decoder throughout
};

struct DecoderOptions {
  // Worker threads for independent buffers and PSB segments; 0 = one per
  // core. The events are the same for any number.
  int jobs = 1;
  // Trace bytes per parallel segment; 0 = chosen from the trace size and
  // the number of jobs (tests set it small to get many seams).
  size_t segment_bytes = 0;
  // The image files, mapped once (decoders/memory_image.h), to share with
  // other readers of the same run (block expansion, a second decoder); null:
  // the decoder maps its own.
  std::shared_ptr<ImageFileCache> files;
  DecoderEngine engine = DecoderEngine::kLibipt;
};

// Receives a decode in segments that are decoded in parallel: each segment's
// events go to their own sink, created on a worker thread; segments are
// committed per stream in trace order, and the events of the committed
// segments of a stream, in commit order, are exactly the stream's events of
// a sequential Decode(). Segments that turn out not to be needed (another
// worker decoded their stretch) are destroyed without a commit.
class SegmentConsumer {
 public:
  virtual ~SegmentConsumer() = default;
  // A sink for a new segment of `stream`. Called from worker threads,
  // possibly at the same time.
  virtual std::unique_ptr<EventSink> StartSegment(uint32_t stream) = 0;
  // The segment's events belong to the stream, after those of the previous
  // commit. Calls are serialised.
  virtual void CommitSegment(uint32_t stream,
                             std::unique_ptr<EventSink> segment) = 0;
  // After the last commit of `stream`. Serialised with CommitSegment.
  virtual void EndStream(uint32_t stream) {}
};

class TraceDecoder {
 public:
  virtual ~TraceDecoder() = default;

  virtual const std::vector<StreamInfo>& streams() const = 0;

  // Decodes everything, delivering events to `sink`. Decode problems are gap
  // events plus stats, not errors: a non-OK status means the input could not
  // be read at all.
  virtual absl::Status Decode(EventSink& sink) = 0;

  // Decode() in parallel segments (see SegmentConsumer). The default decodes
  // sequentially, one segment per stream.
  virtual absl::Status DecodeSegments(SegmentConsumer& consumer);

  // Whether DecodeSegments() may cut one stream into several segments (PT
  // on libipt: at PSBs). When false each stream is one segment, so with a
  // single stream DecodeSegments() has nothing to run in parallel and a
  // consumer does better with Decode() (no segment merge).
  virtual bool SplitsStreams() const { return false; }

  // Whether the events are samples (kSample: a sampling backend, SPE) rather
  // than control flow (blocks and the events around them): the profile of a
  // capture is built from the one or the other.
  virtual bool ProducesSamples() const { return false; }

  // Counts instructions without producing events, on a fast path where the
  // backend has one (hwt-decode --stats --fast): stats() then holds the
  // instructions, errors and lost bytes that Decode() gives, and no block
  // count. `note` gets one line on how the fast path went. The default
  // says that the backend has no fast path.
  virtual absl::Status CountInstructions(std::string* note);

  // One line on how the engine went in the last Decode(), DecodeSegments()
  // or CountInstructions() (how much took the fast path and how much fell
  // back, and why); empty when there is nothing to say.
  virtual std::string EngineNote() const { return {}; }

  // Lists packets without following control flow (needs no images).
  virtual absl::Status ListPackets(PacketSink& sink) = 0;

  // Per-stream statistics, complete after Decode() or ListPackets().
  virtual const std::vector<StreamStats>& stats() const = 0;
};

// Creates the decoder for `capture`'s backend (PT, CoreSight or SPE).
absl::StatusOr<std::unique_ptr<TraceDecoder>> CreateDecoder(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const DecoderOptions& options);

}  // namespace hwt

#endif  // HWT_DECODERS_DECODER_H_
