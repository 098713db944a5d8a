// The Intel PT decoder over libipt's block decoder; see pt_decoder.h and
// pt_events.h.
#include "decoders/pt/pt_decoder.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "decoders/insn_walker.h"
#include "decoders/pt/pt_event_output.h"
#include "decoders/pt/pt_events.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/pt_trace_buffer.h"

namespace hwt::pt {
namespace {

constexpr uint64_t kRtitCtlMtcFreqShift = 14;

// libipt follows direct jumps and calls without reading trace, so a flow
// that comes back to the same code without needing a packet (a jump to
// itself, a cycle of direct branches) would return blocks forever. No real
// flow runs this many blocks or instructions without reading a single
// packet: every conditional branch, return, indirect branch and far
// transfer needs one. Past either limit the flow is reported as looping.
constexpr uint64_t kMaxBlocksWithoutTrace = uint64_t{1} << 16;
constexpr uint64_t kMaxInsnsWithoutTrace = uint64_t{1} << 22;
constexpr uint64_t kNominalRatioHz = 100'000'000;  // MSR_PLATFORM_INFO unit

Isa IsaOf(enum pt_exec_mode mode) {
  switch (mode) {
    case ptem_16bit:
      return Isa::kX86_16;
    case ptem_32bit:
      return Isa::kX86_32;
    case ptem_64bit:
      return Isa::kX86_64;
    default:
      return Isa::kUnknown;
  }
}

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

struct BlockDecoderDeleter {
  void operator()(pt_block_decoder* decoder) const {
    pt_blk_free_decoder(decoder);
  }
};

}  // namespace

void BuildPtConfig(const capture::Manifest& manifest,
                   const PtDecoderOptions& options, PtRunContext* context) {
  pt_config& config = context->config;
  pt_config_init(&config);
  context->cpu = SetupPtCpu(manifest.cpu);
  config.cpu = context->cpu.cpu;
  config.errata = context->cpu.errata;
  config.cpuid_0x15_eax = manifest.cpu.cpuid_15_eax;
  config.cpuid_0x15_ebx = manifest.cpu.cpuid_15_ebx;
  config.nom_freq = static_cast<uint8_t>(std::min<uint64_t>(
      manifest.cpu.nominal_frequency_hz / kNominalRatioHz, 255));
  if (manifest.pt) {
    const capture::PtConfig& pt = *manifest.pt;
    config.mtc_freq = static_cast<uint8_t>(
        pt.mtc_freq != 0 ? pt.mtc_freq
                         : (pt.rtit_ctl >> kRtitCtlMtcFreqShift) & 0xf);
    uint64_t* ranges[][2] = {
        {&config.addr_filter.addr0_a, &config.addr_filter.addr0_b},
        {&config.addr_filter.addr1_a, &config.addr_filter.addr1_b},
        {&config.addr_filter.addr2_a, &config.addr_filter.addr2_b},
        {&config.addr_filter.addr3_a, &config.addr_filter.addr3_b}};
    for (size_t i = 0; i < pt.address_filters.size() && i < 4; ++i) {
      const capture::PtAddressFilter& filter = pt.address_filters[i];
      config.addr_filter.config.addr_cfg |=
          static_cast<uint64_t>(filter.config & 0xf) << (4 * i);
      *ranges[i][0] = filter.start;
      *ranges[i][1] = filter.end;
    }
  }
  config.flags.variant.block.end_on_call = options.end_on_call;
  config.flags.variant.block.end_on_jump = options.end_on_jump;
  config.flags.variant.block.enable_tick_events = options.enable_tick_events;
  context->options = options;
}

// One stream's decoding state.
class PtStreamDecoder::Impl {
 public:
  Impl(const PtRunContext& run, size_t buffer_index, uint32_t stream,
       EventSink* sink, std::mutex* sink_mutex, StreamStats* stats)
      : run_(run),
        memory_(*run.timeline, buffer_index, run.files),
        insns_(memory_),
        image_(run.sections.get()),
        out_(sink, sink_mutex, stream, run.options.batch_size),
        stats_(stats) {}

  void DecodeChunk(const uint8_t* data, size_t size, uint64_t base,
                   bool data_lost_before);
  void Finish() { out_.Finish(); }

 private:
  // The outcome of decoding from one sync point.
  struct Stop {
    bool error = false;
    bool loop = false;  // the flow looped without reading trace
    int code = 0;
    uint64_t offset = 0;  // relative to the chunk
    uint64_t ip = 0;
  };

  Stop DecodeFromSync(pt_block_decoder* decoder, int status, uint64_t base);
  void AdvanceAddressSpace(uint64_t position);
  void EmitBlock(pt_block_decoder* decoder, const pt_block& block,
                 uint64_t offset);
  void EmitEvent(const pt_event& event, uint64_t offset);
  uint64_t ErrorIp(const pt_block& block, int code);
  // 1 + the region of a section (0 = unknown), cached per stream so the hot
  // path takes no lock.
  uint32_t RegionNumber(int isid) {
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
  std::optional<x86::Insn> LastInsn(const pt_block& block);
  void Lose(uint64_t from, uint64_t to) {
    if (to > from) stats_->bytes_lost += to - from;
  }

  const PtRunContext& run_;
  MemoryImage memory_;
  InsnCache insns_;
  PtStreamImage image_;
  EventOutput out_;
  StreamStats* stats_;
  std::unique_ptr<x86::InsnDecoder> raw_decoders_[3];
  std::vector<uint32_t> region_numbers_;  // by isid
  // Whether the trace has timing: blocks ask libipt for the time only then.
  bool has_time_ = false;
};

void PtStreamDecoder::Impl::AdvanceAddressSpace(uint64_t position) {
  if (memory_.AdvanceTo(position)) image_.Sync(memory_.mapped_regions());
}

std::optional<x86::Insn> PtStreamDecoder::Impl::LastInsn(
    const pt_block& block) {
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

void PtStreamDecoder::Impl::EmitBlock(pt_block_decoder* decoder,
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
  ++stats_->blocks;
  stats_->instructions += block.ninsn;

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
      out_.AddCondBlock(event, last ? last->target : 0);
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
  out_.Add(event);
}

void PtStreamDecoder::Impl::EmitEvent(const pt_event& ev, uint64_t offset) {
  if (ev.has_tsc) has_time_ = true;
  Event event;
  event.offset = offset;
  event.time = ev.has_tsc ? ev.tsc : 0;
  uint32_t flags = 0;
  if (ev.has_tsc) flags |= kPtHasTsc;
  if (ev.status_update) flags |= kPtStatusUpdate;
  if (ev.ip_suppressed) flags |= kPtIpSuppressed;
  auto ip_unless_suppressed = [&](uint64_t ip) {
    return ev.ip_suppressed ? 0 : ip;
  };
  auto backend = [&](PtBackendEvent type, uint64_t value, uint64_t ip) {
    event.kind = EventKind::kBackend;
    event.code = static_cast<uint32_t>(type) | flags;
    event.value = value;
    event.ip = ip;
  };
  switch (ev.type) {
    case ptev_enabled:
      event.kind = EventKind::kEnabled;
      event.ip = ev.variant.enabled.ip;
      event.code = flags | (ev.variant.enabled.resumed ? kPtResumed : 0);
      break;
    case ptev_disabled:
      event.kind = EventKind::kDisabled;
      event.ip = ip_unless_suppressed(ev.variant.disabled.ip);
      event.code = flags;
      break;
    case ptev_async_disabled:
      // `at` is always known; kPtIpSuppressed refers to the destination.
      event.kind = EventKind::kDisabled;
      event.ip = ev.variant.async_disabled.at;
      event.value = ip_unless_suppressed(ev.variant.async_disabled.ip);
      event.code = flags | kPtAsync;
      break;
    case ptev_async_branch:
      event.kind = EventKind::kException;
      event.ip = ev.variant.async_branch.from;
      event.next_ip = ip_unless_suppressed(ev.variant.async_branch.to);
      event.code = flags;
      break;
    case ptev_paging:
      event.kind = EventKind::kPaging;
      event.value = ev.variant.paging.cr3;
      event.code = flags | (ev.variant.paging.non_root ? kPtNonRoot : 0);
      break;
    case ptev_async_paging:
      event.kind = EventKind::kPaging;
      event.value = ev.variant.async_paging.cr3;
      event.ip = ev.variant.async_paging.ip;
      event.code = flags | kPtAsync |
                   (ev.variant.async_paging.non_root ? kPtNonRoot : 0);
      break;
    case ptev_overflow:
      event.kind = EventKind::kGap;
      event.reason = GapReason::kOverflow;
      event.ip = ip_unless_suppressed(ev.variant.overflow.ip);
      event.code = flags;
      {
        DecodeErrorInfo error;
        error.offset = offset;
        error.reason = GapReason::kOverflow;
        error.ip = event.ip;
        error.message = absl::StrFormat(
            "trace overflow at offset 0x%x: the CPU dropped trace; %s", offset,
            event.ip != 0 ? absl::StrFormat("tracing resumes at 0x%x", event.ip)
                          : std::string("tracing resumes later"));
        stats_->AddError(std::move(error));
      }
      break;
    case ptev_exec_mode:
      event.kind = EventKind::kExecMode;
      event.isa = IsaOf(ev.variant.exec_mode.mode);
      event.ip = ip_unless_suppressed(ev.variant.exec_mode.ip);
      event.code = flags;
      break;
    case ptev_tsx:
      backend(PtBackendEvent::kTsx,
              (ev.variant.tsx.speculative ? 1 : 0) |
                  (ev.variant.tsx.aborted ? 2 : 0),
              ip_unless_suppressed(ev.variant.tsx.ip));
      break;
    case ptev_stop:
      backend(PtBackendEvent::kStop, 0, 0);
      break;
    case ptev_vmcs:
      backend(PtBackendEvent::kVmcs, ev.variant.vmcs.base, 0);
      break;
    case ptev_async_vmcs:
      backend(PtBackendEvent::kVmcs, ev.variant.async_vmcs.base,
              ev.variant.async_vmcs.ip);
      event.code |= kPtAsync;
      break;
    case ptev_exstop:
      backend(PtBackendEvent::kExstop, 0,
              ip_unless_suppressed(ev.variant.exstop.ip));
      break;
    case ptev_mwait:
      backend(PtBackendEvent::kMwait,
              ev.variant.mwait.hints |
                  (static_cast<uint64_t>(ev.variant.mwait.ext) << 32),
              ip_unless_suppressed(ev.variant.mwait.ip));
      break;
    case ptev_pwre:
      backend(PtBackendEvent::kPwre,
              ev.variant.pwre.state | (ev.variant.pwre.sub_state << 8) |
                  (ev.variant.pwre.hw ? 1u << 16 : 0),
              0);
      break;
    case ptev_pwrx:
      backend(PtBackendEvent::kPwrx,
              ev.variant.pwrx.last | (ev.variant.pwrx.deepest << 8) |
                  (ev.variant.pwrx.interrupt ? 1u << 16 : 0) |
                  (ev.variant.pwrx.store ? 1u << 17 : 0) |
                  (ev.variant.pwrx.autonomous ? 1u << 18 : 0),
              0);
      break;
    case ptev_ptwrite:
      backend(PtBackendEvent::kPtwrite, ev.variant.ptwrite.payload,
              ip_unless_suppressed(ev.variant.ptwrite.ip));
      break;
    case ptev_tick:
      event.kind = EventKind::kTimestamp;
      event.value = ev.tsc;
      event.ip = ip_unless_suppressed(ev.variant.tick.ip);
      event.code = flags | kPtTick;
      break;
    case ptev_cbr:
      event.kind = EventKind::kCoreBusRatio;
      event.value = ev.variant.cbr.ratio;
      event.code = flags;
      break;
    case ptev_mnt:
      backend(PtBackendEvent::kMnt, ev.variant.mnt.payload, 0);
      break;
    default:
      return;  // a newer libipt's event: nothing to map it to
  }
  out_.Add(event);
}

uint64_t PtStreamDecoder::Impl::ErrorIp(const pt_block& block, int code) {
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

PtStreamDecoder::Impl::Stop PtStreamDecoder::Impl::DecodeFromSync(
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
      pt_event event;
      status = pt_blk_event(decoder, &event, sizeof(event));
      if (status < 0) {
        stop.error = true;
        stop.code = status;
        pt_blk_get_offset(decoder, &stop.offset);
        return stop;
      }
      EmitEvent(event, base + offset);
    }
    pt_blk_get_offset(decoder, &offset);
    if (status & pts_eos) {
      if (!(status & pts_ip_suppressed)) {
        Event end;
        end.kind = EventKind::kDisabled;
        end.offset = base + offset;
        end.code = kPtEndOfTrace;
        out_.Add(end);
      }
      return stop;
    }
    // A change applies once libipt has read a byte at or after its
    // position (libipt reads ahead of the flow it returns).
    if (offset > 0) AdvanceAddressSpace(base + offset - 1);
    pt_block block;
    std::memset(&block, 0, sizeof(block));
    status = pt_blk_next(decoder, &block, sizeof(block));
    if (block.ninsn > 0) EmitBlock(decoder, block, base + offset);
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

void PtStreamDecoder::Impl::DecodeChunk(const uint8_t* data, size_t size,
                                        uint64_t base, bool data_lost_before) {
  stats_->trace_bytes += size;
  if (data_lost_before) {
    Event gap;
    gap.kind = EventKind::kGap;
    gap.reason = GapReason::kLostData;
    gap.offset = base;
    out_.Add(gap);
    DecodeErrorInfo error;
    error.offset = base;
    error.reason = GapReason::kLostData;
    error.message = absl::StrFormat(
        "trace lost before offset 0x%x (the buffer wrapped or overflowed)",
        base);
    stats_->AddError(std::move(error));
  }
  if (size == 0) return;
  AdvanceAddressSpace(base);

  PtTraceBuffer buffer(data, size);
  pt_config config = run_.config;
  config.begin = buffer.begin();
  config.end = buffer.end();
  std::unique_ptr<pt_block_decoder, BlockDecoderDeleter> decoder(
      pt_blk_alloc_decoder(&config));
  if (!decoder) {
    Lose(0, size);
    DecodeErrorInfo error;
    error.offset = base;
    error.bytes_lost = size;
    error.message = "libipt could not allocate a block decoder";
    stats_->AddError(std::move(error));
    return;
  }
  pt_blk_set_image(decoder.get(), image_.image());

  // The loss in progress: from `lost_from` to the next sync point. The
  // first one is the data before the first PSB.
  uint64_t lost_from = 0;
  Event pending_gap;
  pending_gap.kind = EventKind::kGap;
  pending_gap.reason = GapReason::kNoSync;
  pending_gap.offset = base;
  std::optional<DecodeErrorInfo> pending_error;

  auto finish_loss = [&](uint64_t until, bool more) {
    Lose(lost_from, until);
    const uint64_t lost = until > lost_from ? until - lost_from : 0;
    if (pending_error) {
      pending_gap.value = lost;
      out_.Add(pending_gap);
      pending_error->bytes_lost = lost;
      absl::StrAppendFormat(
          &pending_error->message, "; %u bytes skipped to %s", lost,
          more ? absl::StrFormat("the next PSB at offset 0x%x", base + until)
               : std::string("the end of the trace"));
      stats_->AddError(std::move(*pending_error));
      pending_error.reset();
    } else if (lost > 0) {
      // Before the first PSB: normal for a ring buffer, not an error.
      pending_gap.value = lost;
      out_.Add(pending_gap);
    }
    lost_from = until;
  };
  auto start_error = [&](uint64_t offset, int code, uint64_t ip,
                         bool loop = false) {
    lost_from = offset;
    pending_gap = Event();
    pending_gap.kind = EventKind::kGap;
    pending_gap.reason =
        code == -pte_nomap ? GapReason::kMissingImage : GapReason::kDecodeError;
    pending_gap.offset = base + offset;
    pending_gap.ip = ip;
    pending_gap.code = static_cast<uint32_t>(code);
    DecodeErrorInfo error;
    error.offset = base + offset;
    error.reason = pending_gap.reason;
    error.ip = ip;
    error.message =
        loop ? absl::StrFormat(
                   "the flow loops at 0x%x without reading trace after the "
                   "PSB at offset 0x%x: a jump to itself or a cycle of "
                   "direct branches never ends",
                   ip, base + offset)
             : absl::StrFormat("%s at 0x%x (offset 0x%x): libipt: %s",
                               ErrorWhat(code), ip, base + offset,
                               pt_errstr(pt_errcode(code)));
    pending_error = std::move(error);
  };

  uint64_t search_from = 0;
  uint64_t last_sync = 0;
  for (;;) {
    const std::optional<uint64_t> psb =
        FindNextPsb(buffer.begin(), size, search_from);
    if (!psb) {
      finish_loss(size, false);
      return;
    }
    const int status = pt_blk_sync_set(decoder.get(), *psb);
    if (status < 0) {
      if (status == -pte_eos) {
        // The PSB+ is cut off by the end of the trace.
        finish_loss(size, false);
        return;
      }
      if (!pending_error) {
        // Report where libipt stopped reading the broken PSB+.
        uint64_t at = *psb;
        pt_blk_get_offset(decoder.get(), &at);
        at = std::min<uint64_t>(std::max(at, *psb), size);
        finish_loss(*psb, true);
        start_error(*psb, status, 0);
        pending_gap.offset = base + at;
        pending_error->offset = base + at;
      }
      search_from = *psb + 1;
      continue;
    }
    finish_loss(*psb, true);
    last_sync = *psb;
    if (!has_time_) {
      // A trace with timing has a TSC in every PSB+.
      uint64_t time = 0;
      uint32_t lost_mtc = 0, lost_cyc = 0;
      has_time_ =
          pt_blk_time(decoder.get(), &time, &lost_mtc, &lost_cyc) >= 0 &&
          time != 0;
    }
    Event sync_event;
    sync_event.kind = EventKind::kSync;
    sync_event.offset = base + *psb;
    out_.Add(sync_event);

    const Stop stop = DecodeFromSync(decoder.get(), status, base);
    if (!stop.error) return;
    if (stop.offset > size) {
      // libipt read a packet running past the end (with some CPUs' errata
      // a bad TMA at the end is taken for an 8-byte packet): like a packet
      // cut off by the end, it ends the trace. Found by
      // fuzz/pt_decode_fuzzer.
      finish_loss(size, false);
      return;
    }
    // Report the error, then resume at the next PSB.
    if (stop.loop) {
      // libipt's query decoder reads ahead (beyond later PSBs, already when
      // it synchronises) while the flow loops without using that trace:
      // the error is the segment's, from its PSB, and decoding resumes at
      // the next PSB.
      start_error(*psb, stop.code, stop.ip, /*loop=*/true);
      search_from = *psb + 1;
      continue;
    }
    start_error(stop.offset, stop.code, stop.ip);
    search_from = ResyncSearchStart(stop.offset, last_sync);
  }
}

PtStreamDecoder::PtStreamDecoder(const PtRunContext& run, size_t buffer_index,
                                 uint32_t stream, EventSink* sink,
                                 std::mutex* sink_mutex)
    : impl_(std::make_unique<Impl>(run, buffer_index, stream, sink, sink_mutex,
                                   &stats_)) {}

PtStreamDecoder::~PtStreamDecoder() = default;

void PtStreamDecoder::DecodeChunk(const uint8_t* data, size_t size,
                                  uint64_t file_offset, bool data_lost_before) {
  const uint64_t lost_before = stats_.bytes_lost;
  impl_->DecodeChunk(data, size, file_offset, data_lost_before);
  stats_.bytes_decoded += size - (stats_.bytes_lost - lost_before);
}

void PtStreamDecoder::Finish() { impl_->Finish(); }

absl::StatusOr<std::unique_ptr<PtDecoder>> PtDecoder::Create(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& address_space,
    const PtDecoderOptions& options) {
  const capture::Manifest& manifest = capture.manifest();
  if (manifest.backend != capture::Backend::kPt) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the PT decoder cannot decode a '%s' capture",
        capture.source_path(), capture::BackendName(manifest.backend)));
  }
  if (address_space.buffer_count() < manifest.buffers.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the address-space timeline covers %u buffers, the capture has "
        "%u",
        capture.source_path(), address_space.buffer_count(),
        manifest.buffers.size()));
  }
  std::unique_ptr<PtDecoder> decoder(new PtDecoder(capture, address_space));
  PtRunContext& run = decoder->run_;
  run.timeline = &address_space;
  BuildPtConfig(manifest, options, &run);
  run.sections = std::make_unique<PtSectionCache>(address_space);
  if (run.sections->iscache() == nullptr) {
    return absl::ResourceExhaustedError(
        "libipt could not allocate an image section cache");
  }
  run.files = std::make_shared<ImageFileCache>();
  if (!run.cpu.note.empty()) decoder->notes_.push_back(run.cpu.note);
  for (size_t i = 0; i < manifest.buffers.size(); ++i) {
    const capture::BufferInfo& buffer = manifest.buffers[i];
    StreamInfo info;
    info.id = static_cast<uint32_t>(i);
    info.buffer_index = i;
    info.cpu = buffer.cpu;
    info.thread = buffer.thread;
    if (buffer.cpu) {
      info.name = absl::StrFormat("buffer %u (cpu %d)", buffer.id, *buffer.cpu);
    } else if (buffer.thread) {
      info.name =
          absl::StrFormat("buffer %u (thread %d)", buffer.id, *buffer.thread);
    } else {
      info.name = absl::StrFormat("buffer %u", buffer.id);
    }
    decoder->streams_.push_back(std::move(info));
  }
  decoder->stats_.resize(manifest.buffers.size());
  return decoder;
}

namespace {

// Checks that the chunks lie inside the mapped buffer file.
absl::Status CheckChunks(const std::string& path, const MappedFile& file,
                         const std::vector<capture::BufferChunk>& chunks) {
  for (const capture::BufferChunk& chunk : chunks) {
    if (chunk.offset > file.size() || chunk.size > file.size() - chunk.offset) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: chunk [0x%x, 0x%x) goes past the end of the file (%u bytes)",
          path, chunk.offset, chunk.offset + chunk.size, file.size()));
    }
  }
  return absl::OkStatus();
}

// Runs `work(i)` for i in [0, count) on up to `jobs` threads.
absl::Status RunParallel(size_t count, int jobs,
                         const std::function<absl::Status(size_t)>& work) {
  const size_t threads =
      std::min<size_t>(count, static_cast<size_t>(std::max(jobs, 1)));
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i) HWT_RETURN_IF_ERROR(work(i));
    return absl::OkStatus();
  }
  std::atomic<size_t> next{0};
  std::vector<absl::Status> results(count);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) results[i] = work(i);
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const absl::Status& status : results) HWT_RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

}  // namespace

absl::Status PtDecoder::DecodeBuffer(size_t index, EventSink& sink,
                                     std::mutex* sink_mutex) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, capture_.MapBuffer(index));
  const auto chunks = capture_.BufferChunks(index);
  HWT_RETURN_IF_ERROR(CheckChunks(file.path(), file, chunks));
  PtStreamDecoder stream(run_, index, static_cast<uint32_t>(index), &sink,
                         sink_mutex);
  for (const capture::BufferChunk& chunk : chunks) {
    stream.DecodeChunk(file.data() + chunk.offset, chunk.size, chunk.offset,
                       chunk.data_lost_before);
  }
  stream.Finish();
  stats_[index] = stream.stats();
  return absl::OkStatus();
}

absl::Status PtDecoder::Decode(EventSink& sink) {
  std::mutex sink_mutex;
  const bool parallel = run_.options.jobs > 1 && streams_.size() > 1;
  return RunParallel(streams_.size(), run_.options.jobs, [&](size_t i) {
    return DecodeBuffer(i, sink, parallel ? &sink_mutex : nullptr);
  });
}

absl::Status PtDecoder::ListPackets(PacketSink& sink) {
  return ListPackets(sink, PtdumpOptions());
}

absl::Status PtDecoder::ListPackets(PacketSink& sink,
                                    const PtdumpOptions& options) {
  for (size_t i = 0; i < streams_.size(); ++i) {
    HWT_ASSIGN_OR_RETURN(MappedFile file, capture_.MapBuffer(i));
    const auto chunks = capture_.BufferChunks(i);
    HWT_RETURN_IF_ERROR(CheckChunks(file.path(), file, chunks));
    StreamStats stats;
    const uint32_t stream = static_cast<uint32_t>(i);
    auto line = [&](uint64_t offset, std::string_view text) {
      sink.OnPacket(stream, offset, text);
    };
    if (run_.cpu.errata_error != 0) {
      line(0, absl::StrFormat("[failed to determine errata: %s]",
                              pt_errstr(pt_errcode(run_.cpu.errata_error))));
    }
    for (const capture::BufferChunk& chunk : chunks) {
      ListPtPackets(run_.config, file.data() + chunk.offset, chunk.size,
                    chunk.offset, options, line, &stats);
    }
    stats_[i] = std::move(stats);
  }
  return absl::OkStatus();
}

}  // namespace hwt::pt
