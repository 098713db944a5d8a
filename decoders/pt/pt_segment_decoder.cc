// PT decoding of one chunk or segment; see pt_segment_decoder.h.
#include "decoders/pt/pt_segment_decoder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "absl/strings/str_format.h"
#include "decoders/pt/pt_events.h"
#include "decoders/pt/pt_flow.h"
#include "decoders/pt/pt_libipt_handles.h"
#include "decoders/pt/pt_seam.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/pt_trace_buffer.h"

namespace hwt::pt {
namespace {

const std::vector<capture::AddressSpaceChange> kNoChanges;

// What went wrong, in words, for a libipt error during block decoding.
const char* ErrorWhat(int code) {
  switch (-code) {
    case pte_bad_query:
      return "trace doesn't match instruction";
    case pte_nomap:
      return "no code image mapped";
    case pte_bad_insn:
      return "cannot decode instruction";
    case pte_bad_opc:
    case pte_bad_packet:
      return "corrupt trace packet";
    case pte_bad_context:
      return "unexpected packet";
    case pte_bad_retcomp:
    case pte_retstack_empty:
      return "return compression mismatch";
    case pte_bad_status_update:
      return "inconsistent PSB+ state";
    case pte_noip:
      return "missing IP in trace";
    case pte_nosync:
      return "lost synchronisation";
    default:
      return "decode error";
  }
}

// libipt's class for an instruction our x86 decoder classified.
enum pt_insn_class ClassOf(const x86::Insn& insn) {
  switch (insn.cls) {
    case x86::InsnClass::kCondJump:
      return ptic_cond_jump;
    case x86::InsnClass::kJump:
    case x86::InsnClass::kJumpIndirect:
      return ptic_jump;
    case x86::InsnClass::kCall:
    case x86::InsnClass::kCallIndirect:
      return ptic_call;
    case x86::InsnClass::kReturn:
      return ptic_return;
    case x86::InsnClass::kFarCall:
      return ptic_far_call;
    case x86::InsnClass::kFarReturn:
      return ptic_far_return;
    case x86::InsnClass::kFarJump:
      return ptic_far_jump;
    case x86::InsnClass::kOther:
      return ptic_other;
  }
  return ptic_other;
}

}  // namespace

PtSegmentDecoder::PtSegmentDecoder(const PtRunContext& run, size_t buffer_index)
    : run_(run),
      memory_(*run.timeline, buffer_index, run.files),
      insns_(memory_),
      image_(run.sections.get()) {}

PtSegmentDecoder::~PtSegmentDecoder() = default;

uint32_t PtSegmentDecoder::RegionNumber(int isid) {
  // 1 + the region of a section (0 = unknown), cached here so the hot path
  // takes no lock.
  if (isid > 0 && static_cast<size_t>(isid) < region_numbers_.size() &&
      region_numbers_[isid] != 0) {
    return region_numbers_[isid];
  }
  const auto region = run_.sections->RegionOf(isid);
  if (!region) return 0;
  if (region_numbers_.size() <= static_cast<size_t>(isid)) {
    region_numbers_.resize(isid + 1, 0);
  }
  return region_numbers_[isid] = *region + 1;
}

void PtSegmentDecoder::AdvanceAddressSpace(uint64_t position) {
  memory_position_ = std::max(memory_position_, position);
  if (memory_.AdvanceTo(position)) image_.Sync(memory_.mapped_regions());
  const auto& changes =
      memory_.timeline().buffer_count() > memory_.buffer_index()
          ? memory_.timeline().changes(memory_.buffer_index())
          : kNoChanges;
  const auto next = std::upper_bound(
      changes.begin(), changes.end(), memory_position_,
      [](uint64_t at, const capture::AddressSpaceChange& change) {
        return at < change.position;
      });
  next_change_ = next == changes.end() ? ~uint64_t{0} : next->position;
}

uint64_t PtSegmentDecoder::OverflowOffset(pt_block_decoder* decoder,
                                          uint64_t base, uint64_t read) {
  // libipt returns the overflow event after reading the packets it binds
  // to (a FUP or TIP.PGE): the OVF packet lies before the read position,
  // after one of the last read positions (or the sync point).
  std::vector<uint64_t> starts(read_history_.begin(), read_history_.end());
  uint64_t sync = 0;
  if (pt_blk_get_sync_offset(decoder, &sync) >= 0) {
    starts.push_back(base + sync);
  }
  std::sort(starts.begin(), starts.end(), std::greater<uint64_t>());
  PacketDecoderPtr packets(pt_pkt_alloc_decoder(config_));
  if (!packets) return read;
  for (uint64_t start : starts) {
    if (start < base || start >= read) continue;
    if (pt_pkt_sync_set(packets.get(), start - base) < 0) continue;
    std::optional<uint64_t> found;
    for (;;) {
      uint64_t at = 0;
      if (pt_pkt_get_offset(packets.get(), &at) < 0 || base + at >= read) {
        break;
      }
      pt_packet packet;
      if (pt_pkt_next(packets.get(), &packet, sizeof(packet)) < 0) break;
      if (packet.type == ppt_ovf) found = base + at;
    }
    if (found) return *found;
  }
  return read;
}

void PtSegmentDecoder::FollowRead(uint64_t read) {
  if (read != read_now_) {
    read_before_ = read_now_;
    read_now_ = read;
    read_history_[read_history_next_] = read_before_;
    read_history_next_ = (read_history_next_ + 1) % read_history_.size();
  }
  // While the flow is disabled no instruction is decoded: every change
  // libipt has read past applies. While it is enabled, libipt may have read
  // ahead of the flow it still returns (through a TIP.PGD and the PSB+ after
  // it): a change applies only once the read position moved on again.
  const uint64_t upto = flow_disabled_ ? read_now_ : read_before_;
  if (upto > 0) AdvanceAddressSpace(upto - 1);
}

void PtSegmentDecoder::StartFlow(uint64_t sync, bool disabled) {
  flow_disabled_ = disabled;
  read_before_ = read_now_ = sync + 1;
  read_history_.fill(sync);
  AdvanceAddressSpace(sync);
}

void PtSegmentDecoder::AddGap(const Event& gap,
                              std::optional<DecodeErrorInfo> error) {
  leading_ = false;
  gap_errors_.push_back(std::move(error));
  out_->Add(gap);
}

std::optional<x86::Insn> PtSegmentDecoder::LastInsn(const pt_block& block) {
  const Isa isa = IsaOf(block.mode);
  if (block.truncated && block.size > 0) {
    // The instruction continues in another section: libipt gives its bytes.
    const int mode = isa == Isa::kX86_32 ? 1 : isa == Isa::kX86_16 ? 2 : 0;
    if (!raw_decoders_[mode]) {
      raw_decoders_[mode] =
          x86::InsnDecoder::Create(mode == 1   ? x86::Mode::k32
                                   : mode == 2 ? x86::Mode::k16
                                               : x86::Mode::k64);
    }
    return raw_decoders_[mode]->Decode(
        absl::MakeConstSpan(block.raw, block.size), block.end_ip);
  }
  return insns_.Get(block.end_ip, isa);
}

void PtSegmentDecoder::EmitBlock(pt_block_decoder* decoder,
                                 const pt_block& block, uint64_t offset) {
  Event event;
  event.kind = EventKind::kBlock;
  event.ip = block.ip;
  event.last_ip = block.end_ip;
  event.ninsn = block.ninsn;
  event.isa = IsaOf(block.mode);
  event.offset = offset;
  event.code = block.speculative ? kBlockSpeculative : 0;
  if (has_time_) {
    uint64_t time = 0;
    uint32_t lost_mtc = 0, lost_cyc = 0;
    if (pt_blk_time(decoder, &time, &lost_mtc, &lost_cyc) >= 0) {
      event.time = time;
    }
  }
  event.region = RegionNumber(block.isid);
  leading_ = false;

  const std::optional<x86::Insn> last = LastInsn(block);
  if (last) event.next_ip = block.end_ip + last->length;
  enum pt_insn_class iclass = block.iclass;
  if (iclass == ptic_error && last) {
    // Blocks from libipt's block cache that end in an indirect jump or a far
    // transfer do not say which (ptic_error): our decoder knows.
    iclass = ClassOf(*last);
  }
  switch (iclass) {
    case ptic_call:
      event.branch = last && last->cls == x86::InsnClass::kCallIndirect
                         ? BranchKind::kCallIndirect
                         : BranchKind::kCall;
      break;
    case ptic_return:
      event.branch = BranchKind::kReturn;
      break;
    case ptic_jump:
      event.branch = last && last->cls == x86::InsnClass::kJumpIndirect
                         ? BranchKind::kJumpIndirect
                         : BranchKind::kJump;
      break;
    case ptic_cond_jump:
      out_->AddCondBlock(event, last ? last->target : 0);
      return;
    case ptic_far_call:
      event.branch = BranchKind::kFarCall;
      break;
    case ptic_far_return:
      event.branch = BranchKind::kFarReturn;
      break;
    case ptic_far_jump:
      event.branch = BranchKind::kFarJump;
      break;
    case ptic_ptwrite:
      event.branch = BranchKind::kOther;
      break;
    case ptic_other:
    case ptic_error:
      event.branch = BranchKind::kNone;
      break;
  }
  out_->AddBlock(event);
}

namespace {

// The kPt* flags every PT event carries in Event::code.
uint32_t PtEventFlags(const pt_event& ev) {
  uint32_t flags = 0;
  if (ev.has_tsc) flags |= kPtHasTsc;
  if (ev.status_update) flags |= kPtStatusUpdate;
  if (ev.ip_suppressed) flags |= kPtIpSuppressed;
  return flags;
}

uint64_t IpUnlessSuppressed(const pt_event& ev, uint64_t ip) {
  return ev.ip_suppressed ? 0 : ip;
}

void SetBackendEvent(Event& event, PtBackendEvent type, uint32_t flags,
                     uint64_t value, uint64_t ip) {
  event.kind = EventKind::kBackend;
  event.code = static_cast<uint32_t>(type) | flags;
  event.value = value;
  event.ip = ip;
}

// Enables, disables, asynchronous branches, paging and execution-mode
// changes: the events that change where or how the flow runs. False for any
// other event type.
bool MapFlowEvent(const pt_event& ev, uint32_t flags, Event& event) {
  switch (ev.type) {
    case ptev_enabled:
      event.kind = EventKind::kEnabled;
      event.ip = ev.variant.enabled.ip;
      event.code = flags | (ev.variant.enabled.resumed ? kPtResumed : 0);
      return true;
    case ptev_disabled:
      event.kind = EventKind::kDisabled;
      event.ip = IpUnlessSuppressed(ev, ev.variant.disabled.ip);
      event.code = flags;
      return true;
    case ptev_async_disabled:
      // `at` is always known; kPtIpSuppressed refers to the destination.
      event.kind = EventKind::kDisabled;
      event.ip = ev.variant.async_disabled.at;
      event.value = IpUnlessSuppressed(ev, ev.variant.async_disabled.ip);
      event.code = flags | kPtAsync | kDisabledInterrupted;
      return true;
    case ptev_async_branch:
      event.kind = EventKind::kException;
      event.ip = ev.variant.async_branch.from;
      event.next_ip = IpUnlessSuppressed(ev, ev.variant.async_branch.to);
      event.code = flags;
      return true;
    case ptev_paging:
      event.kind = EventKind::kPaging;
      event.value = ev.variant.paging.cr3;
      event.code = flags | (ev.variant.paging.non_root ? kPtNonRoot : 0);
      return true;
    case ptev_async_paging:
      event.kind = EventKind::kPaging;
      event.value = ev.variant.async_paging.cr3;
      event.ip = ev.variant.async_paging.ip;
      event.code = flags | kPtAsync |
                   (ev.variant.async_paging.non_root ? kPtNonRoot : 0);
      return true;
    case ptev_exec_mode:
      event.kind = EventKind::kExecMode;
      event.isa = IsaOf(ev.variant.exec_mode.mode);
      event.ip = IpUnlessSuppressed(ev, ev.variant.exec_mode.ip);
      event.code = flags;
      return true;
    default:
      return false;
  }
}

// Timing packets that became events (a TSC tick, a core:bus ratio). False for
// any other event type.
bool MapTimingEvent(const pt_event& ev, uint32_t flags, Event& event) {
  switch (ev.type) {
    case ptev_tick:
      event.kind = EventKind::kTimestamp;
      event.value = ev.tsc;
      event.ip = IpUnlessSuppressed(ev, ev.variant.tick.ip);
      event.code = flags | kPtTick;
      return true;
    case ptev_cbr:
      event.kind = EventKind::kCoreBusRatio;
      event.value = ev.variant.cbr.ratio;
      event.code = flags;
      return true;
    default:
      return false;
  }
}

// The events with no generic EventKind: kBackend with a PtBackendEvent type
// (pt_events.h gives each one's value and ip). False for any other event type.
bool MapBackendEvent(const pt_event& ev, uint32_t flags, Event& event) {
  switch (ev.type) {
    case ptev_tsx:
      SetBackendEvent(event, PtBackendEvent::kTsx, flags,
                      (ev.variant.tsx.speculative ? 1 : 0) |
                          (ev.variant.tsx.aborted ? 2 : 0),
                      IpUnlessSuppressed(ev, ev.variant.tsx.ip));
      return true;
    case ptev_stop:
      SetBackendEvent(event, PtBackendEvent::kStop, flags, 0, 0);
      return true;
    case ptev_vmcs:
      SetBackendEvent(event, PtBackendEvent::kVmcs, flags, ev.variant.vmcs.base,
                      0);
      return true;
    case ptev_async_vmcs:
      SetBackendEvent(event, PtBackendEvent::kVmcs, flags,
                      ev.variant.async_vmcs.base, ev.variant.async_vmcs.ip);
      event.code |= kPtAsync;
      return true;
    case ptev_exstop:
      SetBackendEvent(event, PtBackendEvent::kExstop, flags, 0,
                      IpUnlessSuppressed(ev, ev.variant.exstop.ip));
      return true;
    case ptev_mwait:
      SetBackendEvent(event, PtBackendEvent::kMwait, flags,
                      ev.variant.mwait.hints |
                          (static_cast<uint64_t>(ev.variant.mwait.ext) << 32),
                      IpUnlessSuppressed(ev, ev.variant.mwait.ip));
      return true;
    case ptev_pwre:
      SetBackendEvent(event, PtBackendEvent::kPwre, flags,
                      ev.variant.pwre.state | (ev.variant.pwre.sub_state << 8) |
                          (ev.variant.pwre.hw ? 1u << 16 : 0),
                      0);
      return true;
    case ptev_pwrx:
      SetBackendEvent(event, PtBackendEvent::kPwrx, flags,
                      ev.variant.pwrx.last | (ev.variant.pwrx.deepest << 8) |
                          (ev.variant.pwrx.interrupt ? 1u << 16 : 0) |
                          (ev.variant.pwrx.store ? 1u << 17 : 0) |
                          (ev.variant.pwrx.autonomous ? 1u << 18 : 0),
                      0);
      return true;
    case ptev_ptwrite:
      SetBackendEvent(event, PtBackendEvent::kPtwrite, flags,
                      ev.variant.ptwrite.payload,
                      IpUnlessSuppressed(ev, ev.variant.ptwrite.ip));
      return true;
    case ptev_mnt:
      SetBackendEvent(event, PtBackendEvent::kMnt, flags,
                      ev.variant.mnt.payload, 0);
      return true;
    default:
      return false;
  }
}

}  // namespace

void PtSegmentDecoder::EmitOverflow(const pt_event& ev, uint64_t offset) {
  Event event;
  event.offset = offset;
  event.time = ev.has_tsc ? ev.tsc : 0;
  event.kind = EventKind::kGap;
  event.reason = GapReason::kOverflow;
  event.ip = IpUnlessSuppressed(ev, ev.variant.overflow.ip);
  event.code = PtEventFlags(ev);
  DecodeErrorInfo error;
  error.offset = offset;
  error.reason = GapReason::kOverflow;
  error.ip = event.ip;
  error.message = absl::StrFormat(
      "trace overflow at offset 0x%x: the CPU dropped trace; %s", offset,
      event.ip != 0 ? absl::StrFormat("tracing resumes at 0x%x", event.ip)
                    : std::string("tracing resumes later"));
  AddGap(event, std::move(error));
}

bool PtSegmentDecoder::DropWhileLeading(const Event& event) {
  // A segment leaves out the PSB+ status events that do not bind to an
  // instruction until its first other event (pt_seam.h), and an enable
  // among them: whether it resumes where tracing stopped depends on the
  // trace before the segment, which the previous segment's decoder
  // reports instead.
  if (IsLeadingStatusEvent(event)) return true;
  if (event.kind == EventKind::kEnabled) return true;
  leading_ = false;
  return false;
}

void PtSegmentDecoder::EmitEvent(const pt_event& ev, uint64_t offset) {
  if (ev.has_tsc) has_time_ = true;
  if (ev.type == ptev_overflow) {
    // A gap with its error, never left out of a segment.
    EmitOverflow(ev, offset);
    return;
  }
  Event event;
  event.offset = offset;
  event.time = ev.has_tsc ? ev.tsc : 0;
  const uint32_t flags = PtEventFlags(ev);
  if (!MapFlowEvent(ev, flags, event) && !MapTimingEvent(ev, flags, event) &&
      !MapBackendEvent(ev, flags, event)) {
    return;  // a newer libipt's event: nothing to map it to
  }
  if (leading_ && DropWhileLeading(event)) return;
  out_->Add(event);
}

uint64_t PtSegmentDecoder::ErrorIp(const pt_block& block, int code) {
  // As ptxed reports it: where the first missing instruction should have
  // been, else the last decoded instruction.
  if (block.ninsn == 0) return block.ip;
  if (code == -pte_nomap || code == -pte_bad_insn) {
    if (auto last = LastInsn(block)) {
      return last->target != 0 ? last->target : block.end_ip + last->length;
    }
  }
  return block.end_ip;
}

PtSegmentDecoder::Stop PtSegmentDecoder::DecodeFromSync(
    pt_block_decoder* decoder, int status, uint64_t base) {
  Stop stop;
  // Where the trace was last read, and what was decoded since.
  uint64_t progress_offset = ~uint64_t{0};
  uint64_t blocks_since = 0;
  uint64_t insns_since = 0;
  for (;;) {
    uint64_t offset = 0;
    while (status & pts_event_pending) {
      pt_blk_get_offset(decoder, &offset);
      FollowRead(base + offset);
      pt_event event;
      status = pt_blk_event(decoder, &event, sizeof(event));
      if (status < 0) {
        stop.error = true;
        stop.code = status;
        pt_blk_get_offset(decoder, &stop.offset);
        return stop;
      }
      uint64_t at = FlowOffset(base + offset);
      if (event.type == ptev_overflow) {
        at = std::min(at, OverflowOffset(decoder, base, base + offset));
      }
      EmitEvent(event, at);
      flow_disabled_ = event.type == ptev_disabled ||
                       event.type == ptev_async_disabled ||
                       (flow_disabled_ && event.type != ptev_enabled &&
                        event.type != ptev_overflow);
    }
    pt_blk_get_offset(decoder, &offset);
    if (status & pts_eos) {
      if (!(status & pts_ip_suppressed)) {
        Event end;
        end.kind = EventKind::kDisabled;
        end.offset = base + offset;
        end.code = kPtEndOfTrace;
        out_->Add(end);
      }
      return stop;
    }
    if (stop_) {
      stop.stopped = true;
      return stop;
    }
    Prompt(base + offset);
    FollowRead(base + offset);
    pt_block block;
    std::memset(&block, 0, sizeof(block));
    status = pt_blk_next(decoder, &block, sizeof(block));
    if (block.ninsn > 0) EmitBlock(decoder, block, FlowOffset(base + offset));
    uint64_t after = 0;
    pt_blk_get_offset(decoder, &after);
    if (after != progress_offset) {
      progress_offset = after;
      blocks_since = 0;
      insns_since = 0;
    } else if (++blocks_since > kMaxBlocksWithoutTrace ||
               (insns_since += block.ninsn) > kMaxInsnsWithoutTrace) {
      stop.error = true;
      stop.loop = true;
      stop.code = -pte_internal;
      stop.ip = block.ip;
      stop.offset = after;
      return stop;
    }
    if (status < 0) {
      if (status == -pte_eos) return stop;
      stop.error = true;
      stop.code = status;
      stop.ip = ErrorIp(block, status);
      pt_blk_get_offset(decoder, &stop.offset);
      return stop;
    }
  }
}

void PtSegmentDecoder::Decode(const PtDecodeJob& job, EventSink* sink,
                              uint32_t stream, size_t batch_size) {
  stop_ = false;
  prompt_ = false;
  gap_errors_.clear();
  other_errors_.clear();
  other_bytes_lost_ = 0;
  batch_size_ = batch_size;
  // The output of the run before, started over: its batch's storage is
  // kept from segment to segment (EventOutput::Reset).
  if (spare_out_) {
    spare_out_->Reset(sink, stream, batch_size);
    out_ = std::move(spare_out_);
  } else {
    out_ = std::make_unique<EventOutput>(sink, stream, batch_size);
  }
  if (prompt_from_ == 0) Prompt(0);
  DecodeRun(job);
  out_->Drain();
  spare_out_ = std::move(out_);
  prompt_from_ = ~uint64_t{0};
}

// The trace being skipped while decoding a run: from `from_` (relative to the
// chunk) to the next sync point, reported as one gap once that is found. The
// first one is the data before the first PSB (lost, not an error); after a
// decode error it is the error's gap.
class PtSegmentDecoder::SkippedTrace {
 public:
  SkippedTrace(PtSegmentDecoder* decoder, uint64_t base, uint64_t from)
      : decoder_(decoder), base_(base), from_(from) {
    gap_.kind = EventKind::kGap;
    gap_.reason = GapReason::kNoSync;
    gap_.offset = base + from;
  }

  bool has_error() const { return error_.has_value(); }

  // Ends the loss at `until`; `more`: a PSB follows there, else the trace
  // ends. Adds its gap, if any.
  void Finish(uint64_t until, bool more) {
    const uint64_t lost = until > from_ ? until - from_ : 0;
    if (error_) {
      gap_.value = lost;
      error_->bytes_lost = lost;
      absl::StrAppendFormat(
          &error_->message, "; %u bytes skipped to %s", lost,
          more ? absl::StrFormat("the next PSB at offset 0x%x", base_ + until)
               : std::string("the end of the trace"));
      decoder_->AddGap(gap_, std::move(error_));
      error_.reset();
    } else if (lost > 0) {
      // Before the first PSB: normal for a ring buffer, not an error.
      gap_.value = lost;
      decoder_->AddGap(gap_, std::nullopt);
    }
    from_ = until;
  }

  // A decode error at `offset`, where the loss starts; `loop`: the flow
  // looped without reading trace from the PSB at `offset`.
  void StartError(uint64_t offset, int code, uint64_t ip, bool loop = false) {
    from_ = offset;
    gap_ = Event();
    gap_.kind = EventKind::kGap;
    gap_.reason =
        code == -pte_nomap ? GapReason::kMissingImage : GapReason::kDecodeError;
    gap_.offset = base_ + offset;
    gap_.ip = ip;
    gap_.code = static_cast<uint32_t>(code);
    DecodeErrorInfo error;
    error.offset = base_ + offset;
    error.reason = gap_.reason;
    error.ip = ip;
    error.message =
        loop ? absl::StrFormat(
                   "the flow loops at 0x%x without reading trace after the "
                   "PSB at offset 0x%x: a jump to itself or a cycle of "
                   "direct branches never ends",
                   ip, base_ + offset)
             : absl::StrFormat("%s at 0x%x (offset 0x%x): libipt: %s",
                               ErrorWhat(code), ip, base_ + offset,
                               pt_errstr(pt_errcode(code)));
    error_ = std::move(error);
  }

  // Reports the error started last at `at` (relative) instead.
  void MoveErrorTo(uint64_t at) {
    gap_.offset = base_ + at;
    error_->offset = base_ + at;
  }

 private:
  PtSegmentDecoder* decoder_;
  const uint64_t base_;
  uint64_t from_;
  Event gap_;
  std::optional<DecodeErrorInfo> error_;
};

void PtSegmentDecoder::AddLostBeforeGap(uint64_t base) {
  Event gap;
  gap.kind = EventKind::kGap;
  gap.reason = GapReason::kLostData;
  gap.offset = base;
  DecodeErrorInfo error;
  error.offset = base;
  error.reason = GapReason::kLostData;
  error.message = absl::StrFormat(
      "trace lost before offset 0x%x (the buffer wrapped or overflowed)", base);
  AddGap(gap, std::move(error));
}

void PtSegmentDecoder::StartAddressSpaceAt(uint64_t position) {
  // Positions only move forward in a MemoryImage: start over for a job
  // that begins before the previous one ended.
  if (position < memory_position_) {
    memory_.Rewind();
    image_.Sync(memory_.mapped_regions());
  }
  AdvanceAddressSpace(position);
}

void PtSegmentDecoder::AddNoDecoderError(const PtDecodeJob& job) {
  DecodeErrorInfo error;
  error.offset = job.base + job.start;
  error.bytes_lost = job.size - job.start;
  error.message = "libipt could not allocate a block decoder";
  other_bytes_lost_ += job.size - job.start;
  other_errors_.push_back(std::move(error));
}

void PtSegmentDecoder::DetectTiming(pt_block_decoder* decoder) {
  if (has_time_) return;
  // A trace with timing has a TSC in every PSB+.
  uint64_t time = 0;
  uint32_t lost_mtc = 0, lost_cyc = 0;
  has_time_ =
      pt_blk_time(decoder, &time, &lost_mtc, &lost_cyc) >= 0 && time != 0;
}

void PtSegmentDecoder::EmitSync(uint64_t offset) {
  Event sync_event;
  sync_event.kind = EventKind::kSync;
  sync_event.offset = offset;
  out_->Add(sync_event);
  leading_ = false;
}

void PtSegmentDecoder::DecodeFromPsbs(pt_block_decoder* decoder,
                                      const uint8_t* trace,
                                      const PtDecodeJob& job) {
  const uint64_t base = job.base;
  const size_t size = job.size;
  const bool segment = job.start != 0;
  SkippedTrace skipped(this, base, job.start);
  uint64_t search_from = job.start;
  uint64_t last_sync = job.start;
  // A segment starts where a decoder coming from the previous one would
  // be: no restart is reported there.
  bool first_sync = true;
  leading_ = segment;
  for (;;) {
    const std::optional<uint64_t> psb = FindNextPsb(trace, size, search_from);
    if (!psb) {
      skipped.Finish(size, /*more=*/false);
      break;
    }
    const int status = pt_blk_sync_set(decoder, *psb);
    if (status < 0) {
      if (status == -pte_eos) {
        // The PSB+ is cut off by the end of the trace.
        skipped.Finish(size, /*more=*/false);
        break;
      }
      if (!skipped.has_error()) {
        // Report where libipt stopped reading the broken PSB+.
        uint64_t at = *psb;
        pt_blk_get_offset(decoder, &at);
        at = std::min<uint64_t>(std::max(at, *psb), size);
        skipped.Finish(*psb, /*more=*/true);
        skipped.StartError(*psb, status, 0);
        skipped.MoveErrorTo(at);
      }
      search_from = *psb + 1;
      first_sync = false;
      continue;
    }
    skipped.Finish(*psb, /*more=*/true);
    last_sync = *psb;
    DetectTiming(decoder);
    if (!(segment && first_sync && *psb == job.start)) EmitSync(base + *psb);
    first_sync = false;

    StartFlow(base + *psb, (status & pts_ip_suppressed) != 0);
    const Stop stop = DecodeFromSync(decoder, status, base);
    if (!stop.error) break;
    if (stop.offset > size) {
      // libipt read a packet running past the end (with some CPUs' errata
      // a bad TMA at the end is taken for an 8-byte packet): like a packet
      // cut off by the end, it ends the trace. Found by
      // fuzz/pt_decode_fuzzer.
      skipped.Finish(size, /*more=*/false);
      break;
    }
    // Report the error, then resume at the next PSB.
    if (stop.loop) {
      // libipt's query decoder reads ahead (beyond later PSBs, already when
      // it synchronises) while the flow loops without using that trace:
      // the error is the segment's, from its PSB, and decoding resumes at
      // the next PSB.
      skipped.StartError(*psb, stop.code, stop.ip, /*loop=*/true);
      search_from = *psb + 1;
      continue;
    }
    skipped.StartError(stop.offset, stop.code, stop.ip);
    search_from = ResyncSearchStart(stop.offset, last_sync);
  }
}

void PtSegmentDecoder::DecodeRun(const PtDecodeJob& job) {
  if (job.start == 0 && job.data_lost_before) AddLostBeforeGap(job.base);
  if (job.size == 0 || job.start >= job.size) return;
  StartAddressSpaceAt(job.base + job.start);

  PtTraceBuffer buffer(job.data, job.size);
  pt_config config = run_.config;
  config.begin = buffer.begin();
  config.end = buffer.end();
  config_ = &config;
  BlockDecoderPtr decoder(pt_blk_alloc_decoder(&config));
  if (!decoder) {
    AddNoDecoderError(job);
    return;
  }
  pt_blk_set_image(decoder.get(), image_.image());
  DecodeFromPsbs(decoder.get(), buffer.begin(), job);
}

}  // namespace hwt::pt
