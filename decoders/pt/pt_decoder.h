// The Intel PT decoder: libipt's block decoder over file-backed sections,
// turned into the unified event model (see pt_events.h for the mapping).
// One stream per capture buffer; each buffer chunk is decoded on its own.
//
// Blocks: with the default options every call and jump ends a block, so a
// block is contiguous straight-line code whose last instruction is the
// branch (if any). next_ip is end_ip + the size of the last instruction
// (decoded once per address with the x86 InsnDecoder over the MemoryImage).
// A conditional branch always ends a libipt block; whether it was taken is
// not in pt_block, so the block is held back until the next event that
// says where execution went: the next block's ip, a disable's ip/at, an
// interrupt's from, an asynchronous paging event's ip. Equal to next_ip:
// kCondNotTaken; equal to the branch target: kCondTaken. When nothing tells
// (a gap, the end of the trace, a disable without ip) the branch is kNone:
// the outcome is unknown.
//
// libipt may return blocks from its block cache that end in an indirect jump
// or a far transfer with iclass ptic_error; the branch kind then comes from
// decoding the last instruction. How a run of instructions is split into
// blocks can depend on the cache (several decoders share it), the flow does
// not.
//
// Errors: a failing pt_blk_next/pt_blk_event becomes a kGap with the trace
// offset and the pte_ code, plus a DecodeErrorInfo; decoding resumes at the
// next PSB and the bytes in between are counted as lost, as are the bytes
// before a chunk's first PSB. For every stream trace_bytes == bytes_decoded +
// bytes_lost. The next PSB is found by our own search (pt_sync.h), starting a
// little before the failing packet, and decoding restarts there with
// pt_blk_sync_set: equivalent to pt_blk_sync_forward, except that a PSB
// partly swallowed by the failing packet is found (as libipt >= 2.1 does)
// and libipt 2.0.5's out-of-bounds PSB search is never used. kSync marks
// these sync points only; the PSBs libipt passes while decoding do not
// interrupt the flow.
//
// Address-space changes (the timeline's kMap/kUnmap/kResetUser for the
// buffer) follow the flow, not libipt's read position: libipt's query
// decoder reads ahead of the blocks it returns (through a TIP.PGD and the
// PSB+ after it), so a change libipt has read past applies at once only
// while the flow is disabled (after a disable event; user-mode recorders
// write every record there), and otherwise once the read position has
// moved on again. Events report min(read position, position of the next
// change not applied yet) as their offset, so that a consumer that keys on
// offsets (the analysis' exec rule) sees the change where the decoder
// applied it. At a chunk or segment start changes apply exactly. Event::time is
// libipt's TSC estimate (pt_blk_time) or 0 without timing packets; kTimestamp
// events come only from libipt's tick events
// (PtDecoderOptions::enable_tick_events). StreamStats::packets is counted by
// ListPackets only (the block decoder does not report packets).
#ifndef HWT_DECODERS_PT_PT_DECODER_H_
#define HWT_DECODERS_PT_PT_DECODER_H_

#include <intel-pt.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/memory_image.h"
#include "decoders/pt/pt_cpu.h"
#include "decoders/pt/pt_packet_lister.h"
#include "decoders/pt/pt_sections.h"

namespace hwt::pt {

inline constexpr size_t kDecodeSegmentBytes = 32 << 10;

struct PtDecoderOptions {
  // End a block at every call / every jump (libipt end_on_call /
  // end_on_jump): calls and tail calls become visible in the event stream
  // and blocks are contiguous. Costs ~1% / ~10% decode speed.
  bool end_on_call = true;
  bool end_on_jump = true;
  // Ask libipt for tick events (kTimestamp + kPtTick) when time advances.
  bool enable_tick_events = false;
  // Events per EventSink::OnEvents call.
  size_t batch_size = 4096;
  // Worker threads (0 = one per core). With more than one, buffers and the
  // PSB segments of each buffer chunk are decoded in parallel
  // (pt_parallel.h); the events are exactly those of jobs = 1, delivered
  // per stream in the same order (sink calls are serialised).
  int jobs = 1;
  // Trace bytes per parallel segment. 0: for Decode() with jobs > 1,
  // kDecodeSegmentBytes (its events are held until their turn, so this
  // bounds memory); for DecodeSegments(), chosen from the trace size and the
  // number of jobs.
  size_t segment_bytes = 0;
  // Image files mapped once, shared with other readers (null: a new cache).
  std::shared_ptr<ImageFileCache> files;
  // Decode() and DecodeSegments() through the fast path (pt_fast_count.h:
  // the block-cache walker, libipt per segment where it gives up), with the
  // events of libipt's sequential decoder. With jobs > 1 the PSB segments
  // are decoded in parallel as on the libipt path (pt_parallel.h), by the
  // fast path's counter; with one job each buffer in one piece.
  bool fast = false;
};

// What every stream of one run shares: the libipt configuration, the
// section cache and the mapped image files.
struct PtRunContext {
  const capture::AddressSpaceTimeline* timeline = nullptr;
  struct pt_config config = {};  // without begin/end
  PtCpuSetup cpu;
  PtDecoderOptions options;
  std::unique_ptr<PtSectionCache> sections;
  std::shared_ptr<ImageFileCache> files;
};

// Builds the libipt configuration for a capture's manifest (CPU, errata,
// CPUID 0x15, nominal frequency, MTC frequency, address filters).
void BuildPtConfig(const capture::Manifest& manifest,
                   const PtDecoderOptions& options, PtRunContext* context);

class PtSegmentDecoder;
struct PtBufferInput;
struct PtFastCountStats;

// How the segments of a parallel decode went.
struct PtParallelStats {
  uint64_t segments = 0;   // planned
  uint64_t committed = 0;  // their output is part of the streams
  uint64_t dropped = 0;    // a predecessor found no seam and went through
};

// Decodes one stream (buffer) chunk by chunk, sequentially, delivering
// events in batches.
class PtStreamDecoder {
 public:
  PtStreamDecoder(const PtRunContext& run, size_t buffer_index, uint32_t stream,
                  EventSink* sink);
  ~PtStreamDecoder();

  // Decodes [data, data + size), which sits at `file_offset` in the buffer's
  // raw file. `data_lost_before`: trace between the previous chunk and this
  // one was lost.
  void DecodeChunk(const uint8_t* data, size_t size, uint64_t file_offset,
                   bool data_lost_before);
  // Calls OnStreamEnd().
  void Finish();

  const StreamStats& stats() const { return stats_; }

 private:
  const PtRunContext& run_;
  uint32_t stream_;
  EventSink* sink_;
  std::unique_ptr<PtSegmentDecoder> decoder_;
  StreamStats stats_;
};

class PtDecoder : public TraceDecoder {
 public:
  static absl::StatusOr<std::unique_ptr<PtDecoder>> Create(
      const capture::Capture& capture,
      const capture::AddressSpaceTimeline& address_space,
      const PtDecoderOptions& options = {});
  ~PtDecoder() override;

  const std::vector<StreamInfo>& streams() const override { return streams_; }
  absl::Status Decode(EventSink& sink) override;
  absl::Status DecodeSegments(SegmentConsumer& consumer) override;
  // Buffers are split at PSBs, except on the fast engine with one job
  // (then each buffer is one piece).
  bool SplitsStreams() const override;
  // ptdump's default listing.
  absl::Status ListPackets(PacketSink& sink) override;
  absl::Status ListPackets(PacketSink& sink, const PtdumpOptions& options);
  const std::vector<StreamStats>& stats() const override { return stats_; }

  // Counts the instructions of every buffer on the fast path
  // (pt_fast_count.h) into stats(): instructions, errors and lost bytes as
  // Decode() gives them; blocks stay 0. No events. `fast` (optional) gets
  // how much the fast path took.
  absl::Status CountInstructions(PtFastCountStats* fast);
  absl::Status CountInstructions(std::string* note) override;
  std::string EngineNote() const override;

  const PtCpuSetup& cpu() const { return run_.cpu; }
  // How much the fast path took in the last fast Decode() or
  // CountInstructions() (all zero after a libipt decode).
  const PtFastCountStats& fast_stats() const { return *fast_stats_; }
  // Segments of the last parallel decode: planned, committed, dropped.
  const PtParallelStats& segment_counts() const { return segment_counts_; }
  // Things the user should know once (unknown CPU...).
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  PtDecoder(const capture::Capture& capture,
            const capture::AddressSpaceTimeline& address_space);

  // Maps every buffer and checks its chunks.
  absl::Status MapBuffers(std::vector<MappedFile>* files,
                          std::vector<PtBufferInput>* inputs);
  absl::Status DecodeParallel(SegmentConsumer& consumer, size_t segment_bytes,
                              size_t window);
  // Every buffer through the fast path in one piece, one after the other
  // (jobs = 1); each gets one segment of `consumer` (or `sink`).
  absl::Status DecodeFast(SegmentConsumer* consumer, EventSink* sink);

  const capture::Capture& capture_;
  const capture::AddressSpaceTimeline& address_space_;
  PtRunContext run_;
  std::vector<StreamInfo> streams_;
  std::vector<StreamStats> stats_;
  std::vector<std::string> notes_;
  PtParallelStats segment_counts_;
  std::unique_ptr<PtFastCountStats> fast_stats_;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_DECODER_H_
