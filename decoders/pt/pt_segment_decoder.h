// Decodes one stretch of a PT buffer chunk with libipt's block decoder into
// events: either a whole chunk (the sequential decoder) or a PSB-delimited
// segment of it (parallel decoding, pt_parallel.h). See pt_decoder.h for the
// event mapping, error handling and address-space rules, which are the same for
// both.
//
// A segment that starts at a PSB in the middle of a chunk is decoded as if
// the decoder had synchronised there (pt_blk_sync_set); its output leaves
// out what a decoder coming from the previous segment does not report there:
// the kSync of the restart and the PSB+ status events that do not bind to an
// instruction (see pt_seam.h). A decode may be told to stop early (the
// SegmentOutput found the seam with the next segment).
//
// Events leave through an EventOutput (conditional-branch outcomes) into an
// EventSink, normally a SegmentOutput that counts the stream statistics from
// what it delivers. Errors that come with a gap event are queued in
// gap_errors() in event order, one entry per kGap event (nullopt for gaps
// that are not errors), so that the consumer can count exactly the errors
// of the events it keeps.
#ifndef HWT_DECODERS_PT_PT_SEGMENT_DECODER_H_
#define HWT_DECODERS_PT_PT_SEGMENT_DECODER_H_

#include <intel-pt.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "decoders/decoder.h"
#include "decoders/insn_walker.h"
#include "decoders/memory_image.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/pt_event_output.h"
#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_sections.h"

namespace hwt::pt {

// One decode run.
struct PtDecodeJob {
  const uint8_t* data = nullptr;  // the whole chunk
  size_t size = 0;
  uint64_t base = 0;  // file offset of data[0]
  bool data_lost_before = false;
  // 0: from the chunk's start (bytes before its first PSB are lost, a lost-
  // data gap first if data_lost_before); else the offset of a PSB in the
  // chunk where a segment starts.
  uint64_t start = 0;
};

class PtSegmentDecoder : public SeamControl {
 public:
  PtSegmentDecoder(const PtRunContext& run, size_t buffer_index);
  ~PtSegmentDecoder() override;
  PtSegmentDecoder(const PtSegmentDecoder&) = delete;
  PtSegmentDecoder& operator=(const PtSegmentDecoder&) = delete;

  // Decodes `job` into `sink` (as stream `stream`, batches of `batch_size`
  // events), until the end of the chunk or until stop() is set. Delivers
  // everything decoded before returning (OnStreamEnd is not called).
  void Decode(const PtDecodeJob& job, EventSink* sink, uint32_t stream,
              size_t batch_size);

  // Checked between blocks: the sink may set it from OnEvents.
  void RequestStop() override { stop_ = true; }
  // Trace offset (file offset) from which events should reach the sink one
  // by one (the sink looks for a seam there); ~0 = never.
  void set_prompt_from(uint64_t offset) override {
    prompt_from_ = offset;
    if (prompt_ && out_) {
      prompt_ = false;
      out_->set_batch_size(batch_size_);
    }
  }

  // One entry per kGap event delivered so far in this run, oldest first.
  std::deque<std::optional<DecodeErrorInfo>>& gap_errors() override {
    return gap_errors_;
  }
  // Errors without a gap event (the decoder could not even be allocated).
  std::vector<DecodeErrorInfo>& other_errors() override {
    return other_errors_;
  }
  uint64_t other_bytes_lost() const override { return other_bytes_lost_; }

 private:
  // The outcome of decoding from one sync point.
  struct Stop {
    bool error = false;
    bool stopped = false;  // stop() was requested
    bool loop = false;     // the flow looped without reading trace
    int code = 0;
    uint64_t offset = 0;  // relative to the chunk
    uint64_t ip = 0;
  };

  class SkippedTrace;

  void DecodeRun(const PtDecodeJob& job);
  // The gap of a chunk whose data before it was lost (data_lost_before).
  void AddLostBeforeGap(uint64_t base);
  void AddNoDecoderError(const PtDecodeJob& job);
  // Sets the address space to that at `position`, which may lie before the
  // previous job's.
  void StartAddressSpaceAt(uint64_t position);
  // Synchronises at each PSB of the job in turn and decodes from there until
  // the end of the trace or an error (then resumes at a later PSB).
  void DecodeFromPsbs(pt_block_decoder* decoder, const uint8_t* trace,
                      const PtDecodeJob& job);
  // Sets has_time_ once a PSB+ the decoder synchronised at has a TSC.
  void DetectTiming(pt_block_decoder* decoder);
  void EmitSync(uint64_t offset);
  Stop DecodeFromSync(pt_block_decoder* decoder, int status, uint64_t base);
  void AdvanceAddressSpace(uint64_t position);
  // Address-space changes follow the flow, not libipt's read position:
  // called with the read position before every libipt call.
  void FollowRead(uint64_t read);
  // After a sync at (absolute) `sync`: changes up to it apply; `disabled`:
  // tracing is off there (the PSB+ has no FUP).
  void StartFlow(uint64_t sync, bool disabled);
  // The offset events report: the read position, but never past a change
  // not applied yet (events at or before a change's position precede it,
  // decoders/event.h), so that consumers see where the flow switched.
  uint64_t FlowOffset(uint64_t read) const {
    return std::min(read, next_change_);
  }
  // The offset of the OVF packet of an overflow event libipt returned with
  // its read position at `read` (absolute).
  uint64_t OverflowOffset(pt_block_decoder* decoder, uint64_t base,
                          uint64_t read);
  void EmitBlock(pt_block_decoder* decoder, const pt_block& block,
                 uint64_t offset);
  void EmitEvent(const pt_event& event, uint64_t offset);
  void EmitOverflow(const pt_event& event, uint64_t offset);
  // While leading_: whether `event` is one of a segment's leading events to
  // leave out (pt_seam.h); the first other event ends the leading stretch.
  bool DropWhileLeading(const Event& event);
  void AddGap(const Event& gap, std::optional<DecodeErrorInfo> error);
  uint64_t ErrorIp(const pt_block& block, int code);
  uint32_t RegionNumber(int isid);
  std::optional<x86::Insn> LastInsn(const pt_block& block);
  void Prompt(uint64_t offset) {
    if (offset >= prompt_from_ && !prompt_) {
      prompt_ = true;
      out_->set_batch_size(1);
    }
  }

  const PtRunContext& run_;
  MemoryImage memory_;
  InsnCache insns_;
  PtStreamImage image_;
  std::unique_ptr<EventOutput> out_;        // during Decode()
  std::unique_ptr<EventOutput> spare_out_;  // out_ between runs, kept
  std::unique_ptr<x86::InsnDecoder> raw_decoders_[3];
  std::vector<uint32_t> region_numbers_;  // by isid
  // Whether the trace has timing: blocks ask libipt for the time only then.
  bool has_time_ = false;
  // Leading PSB+ status events of a segment are still being dropped.
  bool leading_ = false;
  uint64_t memory_position_ = 0;         // furthest position applied to memory_
  uint64_t next_change_ = ~uint64_t{0};  // position of the next change
  // The flow (the events returned so far) is in a disabled stretch.
  bool flow_disabled_ = false;
  uint64_t read_now_ = 0;     // libipt's read position (absolute)
  uint64_t read_before_ = 0;  // the one before it last moved
  // The last read positions before a move (where an OVF is looked for).
  std::array<uint64_t, 4> read_history_{};
  size_t read_history_next_ = 0;
  const pt_config* config_ = nullptr;  // of the run in progress
  std::atomic<bool> stop_{false};
  uint64_t prompt_from_ = ~uint64_t{0};
  bool prompt_ = false;
  size_t batch_size_ = 1;
  std::deque<std::optional<DecodeErrorInfo>> gap_errors_;
  std::vector<DecodeErrorInfo> other_errors_;
  uint64_t other_bytes_lost_ = 0;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_SEGMENT_DECODER_H_
