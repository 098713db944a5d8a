// Driving an OpenCSD decode tree and mapping its output to events; see
// coresight_decoder.h for the element mapping.
#include "decoders/coresight/decode_run.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "decoders/coresight/coresight_decoder.h"
#include "decoders/coresight/instr_range.h"
#include "decoders/coresight/ocsd_api.h"
#include "decoders/coresight/ocsd_names.h"
#include "decoders/coresight/packet_text.h"
#include "decoders/coresight/speculation_guard.h"

namespace hwt::coresight {

namespace {

constexpr size_t kFeedBlock = 1 << 20;
constexpr int kMaxConsecutiveFailures = 16;

// The kContext event of a PE_CONTEXT element (without offset and time).
Event ContextEvent(const ocsd_generic_trace_elem& elem) {
  const ocsd_pe_context& c = elem.context;
  Event e;
  e.kind = EventKind::kContext;
  e.isa = c.bits64 ? Isa::kA64 : IsaFromOcsd(RawEnum(elem.isa));
  e.value = c.ctxt_id_valid ? c.context_id : 0;
  e.code = c.el_valid ? RawEnum(c.exception_level) & kContextElMask
                      : kContextElUnknown;
  if (RawEnum(c.security_level) == ocsd_sec_nonsecure) {
    e.code |= kContextNonSecure;
  }
  if (c.ctxt_id_valid) e.code |= kContextIdValid;
  if (c.vmid_valid) e.code |= kContextVmidValid;
  if (c.bits64) e.code |= kContext64Bit;
  return e;
}

class TreeRun;

struct StreamState {
  TreeRun* run = nullptr;
  uint32_t stream = 0;
  uint8_t trace_id = 0;
  uint8_t csid = 0;      // as ocsd_dt_create_decoder returned it
  uint8_t print_id = 0;  // the ID packet lines show
  ocsd_trace_protocol_t protocol = OCSD_PROTOCOL_UNKNOWN;
  StreamStats* stats = nullptr;
  std::vector<Event> pending;
  uint64_t time = 0;
  uint64_t pending_cycles = 0;
  bool overflow_reported = false;
  bool in_bad_run = false;            // after a bad packet, until a good one
  bool bad_packet_unmatched = false;  // a bad packet no NO_SYNC reported yet
  // After a packet the decode turned into a bad one (speculation_guard.h):
  // the packet processor is still in sync, but the decoder ignores what it
  // passes on until the next A-Sync, so those bytes are lost.
  bool awaiting_async = false;
  uint32_t max_speculation = 0;  // TRCIDR8.MAXSPEC (ETMv4, ETE)
  uint64_t decoded_bytes = 0;    // bytes of good packets
};

class TreeRun {
 public:
  TreeRun(const RunContext& ctx, const BufferPlan& plan, RunMode mode,
          EventSink* events, PacketSink* packets)
      : ctx_(ctx),
        plan_(plan),
        mode_(mode),
        events_(events),
        packets_(packets) {}

  ~TreeRun() {
    if (tree_ != C_API_INVALID_TREE_HANDLE) {
      std::lock_guard<std::mutex> lock(OcsdApiMutex());
      ocsd_destroy_dcd_tree(tree_);
    }
  }

  absl::Status Run(absl::Span<const size_t> source_indices) {
    std::unique_lock<std::mutex> printer_lock(EtePrinterMutex(),
                                              std::defer_lock);
    if (mode_ == RunMode::kPackets) {
      for (size_t i : source_indices) {
        if (plan_.sources[i].config.protocol == OCSD_PROTOCOL_ETE) {
          printer_lock.lock();
          break;
        }
      }
    }
    // The ETE printer's lines go through the library's one output logger:
    // detach it before the lock is released, on every way out.
    struct DetachPrinter {
      TreeRun* run;
      ~DetachPrinter() {
        if (run->ete_printer_ == nullptr) return;
        std::lock_guard<std::mutex> lock(OcsdApiMutex());
        ocsd_def_errlog_config_output(C_API_MSGLOGOUT_FLG_NONE, nullptr);
        run->ete_printer_ = nullptr;
      }
    } detach_printer{this};
    HWT_RETURN_IF_ERROR(Setup(source_indices));
    HWT_ASSIGN_OR_RETURN(MappedFile file,
                         ctx_.capture->MapBuffer(plan_.buffer_index));
    data_ = file.data();
    data_size_ = file.size();
    bool first = true;
    uint64_t previous_end = 0;
    for (const capture::BufferChunk& chunk : plan_.chunks) {
      if (chunk.offset + chunk.size > data_size_) {
        return absl::OutOfRangeError(absl::StrFormat(
            "%s: chunk [0x%x, 0x%x) is beyond the end of the file (%u bytes)",
            file.path(), chunk.offset, chunk.offset + chunk.size, data_size_));
      }
      bool discontinuous = !first && chunk.offset != previous_end;
      if (!first && (discontinuous || chunk.data_lost_before)) {
        Control(OCSD_OP_EOT);
        Control(OCSD_OP_RESET);
      }
      if (chunk.data_lost_before) ReportLostData(chunk.offset);
      Feed(chunk);
      previous_end = chunk.offset + chunk.size;
      first = false;
    }
    Control(OCSD_OP_EOT);
    for (auto& state : states_) {
      Deliver(*state, /*final=*/true);
      if (mode_ == RunMode::kDecode) {
        std::lock_guard<std::mutex> lock(*ctx_.sink_mutex);
        events_->OnStreamEnd(state->stream);
      }
    }
    for (auto& state : states_) {
      state->stats->bytes_decoded += state->decoded_bytes;
    }
    return absl::OkStatus();
  }

  // ---- OpenCSD callbacks

  ocsd_datapath_resp_t OnElement(ocsd_trc_index_t index, uint8_t chan,
                                 const ocsd_generic_trace_elem* elem) {
    StreamState* s = StateFor(chan);
    if (s == nullptr) return OCSD_RESP_CONT;
    HandleElement(*s, OffsetOf(index), *elem);
    if (allow_wait_ && s->pending.size() >= ctx_.batch_events) {
      // Pause the tree; Feed() delivers the batch and flushes.
      return OCSD_RESP_WAIT;
    }
    return OCSD_RESP_CONT;
  }

  void OnPacket(StreamState& s, ocsd_datapath_op_t op, ocsd_trc_index_t index,
                const void* packet, uint32_t size, const uint8_t* bytes) {
    if (op != OCSD_OP_DATA || packet == nullptr) return;
    uint64_t offset = OffsetOf(index);
    ++s.stats->packets;
    if (mode_ == RunMode::kDecode &&
        GuardSpeculation(s, offset, packet, size)) {
      return;
    }
    switch (ClassifyPacket(s.protocol, packet)) {
      case PacketClass::kGood:
        s.decoded_bytes += size;
        s.in_bad_run = false;
        break;
      case PacketClass::kBad: {
        DecodeErrorInfo error;
        error.offset = offset;
        error.bytes_lost = size;
        error.reason = GapReason::kDecodeError;
        error.message =
            absl::StrFormat("bad %s packet: %s", ProtocolName(s.protocol),
                            OcsdPacketText(s.protocol, packet));
        s.stats->AddError(std::move(error));
        s.in_bad_run = true;
        s.bad_packet_unmatched = true;
        break;
      }
      case PacketClass::kUnsynced:
      case PacketClass::kIncomplete:
        // Bytes skipped while looking for a sync point, or a packet cut off
        // at the end: lost. After a bad packet they belong to that error.
        if (s.in_bad_run && !s.stats->error_list.empty() &&
            s.stats->error_list.back().offset <= offset) {
          s.stats->error_list.back().bytes_lost += size;
        }
        break;
    }
    if (mode_ == RunMode::kPackets) {
      const std::string line =
          PacketLine(offset, s.print_id, absl::MakeConstSpan(bytes, size),
                     OcsdPacketText(s.protocol, packet));
      std::lock_guard<std::mutex> lock(*ctx_.sink_mutex);
      packets_->OnPacket(s.stream, offset, line);
    }
  }

  // Decode only (the monitor sees each packet before the decoder does, as
  // the same object): turns a packet OpenCSD's decoder must not see
  // (speculation_guard.h) into a bad-sequence packet, which the decoder
  // answers with a reset and NO_SYNC, and counts what the decoder then
  // ignores as lost. Returns true when the packet is accounted for.
  bool GuardSpeculation(StreamState& s, uint64_t offset, const void* packet,
                        uint32_t size) {
    if (s.protocol != OCSD_PROTOCOL_ETMV4I && s.protocol != OCSD_PROTOCOL_ETE) {
      return false;
    }
    // OpenCSD passes its own current packet (non-const) to the monitor.
    auto* etm = static_cast<ocsd_etmv4_i_pkt*>(const_cast<void*>(packet));
    if (s.awaiting_async) {
      if (etm->type == ETM4_PKT_I_ASYNC) {
        s.awaiting_async = false;
        return false;
      }
      if (!s.stats->error_list.empty()) {
        s.stats->error_list.back().bytes_lost += size;
      }
      return true;
    }
    if (!ImpossibleWithoutSpeculation(s.max_speculation, etm->type)) {
      return false;
    }
    DecodeErrorInfo error;
    error.offset = offset;
    error.bytes_lost = size;
    error.reason = GapReason::kDecodeError;
    error.message = SpeculationErrorMessage(ProtocolName(s.protocol),
                                            OcsdPacketText(s.protocol, packet));
    s.stats->AddError(std::move(error));
    etm->type = ETM4_PKT_I_BAD_SEQUENCE;
    s.in_bad_run = true;
    s.bad_packet_unmatched = true;
    s.awaiting_async = true;
    return true;
  }

  uint32_t ReadMemory(uint64_t address, ocsd_mem_space_acc_t space,
                      uint32_t size, uint8_t* out) {
    return ReadForOpenCsd(*memory_, address, space, size, out);
  }

  // Applies the address-space changes up to `position`; returns the
  // position of the next one (UINT64_MAX: none).
  uint64_t AdvanceMemory(uint64_t position) {
    memory_->AdvanceTo(position);
    return memory_->next_change_position();
  }

  // Event::region of code at `address`: 1 + the region mapped there (any
  // memory space), 0 if none.
  uint32_t RegionOf(uint64_t address) const {
    std::optional<uint32_t> region = memory_->RegionAt(address);
    return region ? *region + 1 : 0;
  }

 private:
  static ocsd_datapath_resp_t ElementCallback(
      const void* context, const ocsd_trc_index_t index, const uint8_t chan,
      const ocsd_generic_trace_elem* elem) {
    return static_cast<TreeRun*>(const_cast<void*>(context))
        ->OnElement(index, chan, elem);
  }

  static void PacketCallback(const void* context, const ocsd_datapath_op_t op,
                             const ocsd_trc_index_t index, const void* packet,
                             const uint32_t size, const uint8_t* bytes) {
    auto* s = static_cast<StreamState*>(const_cast<void*>(context));
    s->run->OnPacket(*s, op, index, packet, size, bytes);
  }

  static void PrinterCallback(const void* context, const char* text,
                              const int length) {
    static_cast<TreeRun*>(const_cast<void*>(context))
        ->OnPrinterLine(std::string_view(text, static_cast<size_t>(length)));
  }

  // An ETE packet line from OpenCSD's printer: "Idx:N; ID:X; [0x.. ];\t..."
  void OnPrinterLine(std::string_view text) {
    std::optional<EtePrinterLine> line = ParseEtePrinterLine(text);
    if (ete_printer_ == nullptr || !line) return;
    StreamState& s = *ete_printer_;
    uint64_t offset = OffsetOf(static_cast<ocsd_trc_index_t>(line->index));
    ++s.stats->packets;
    if (line->bad()) {
      DecodeErrorInfo error;
      error.offset = offset;
      error.bytes_lost = line->size;
      error.reason = GapReason::kDecodeError;
      error.message = absl::StrFormat("bad ETE packet: %s", line->packet);
      s.stats->AddError(std::move(error));
    } else if (!line->carries_no_packet()) {
      s.decoded_bytes += line->size;
    }
    std::lock_guard<std::mutex> lock(*ctx_.sink_mutex);
    packets_->OnPacket(s.stream, offset, line->line);
  }

  static uint32_t MemoryCallback(const void* context,
                                 const ocsd_vaddr_t address,
                                 const ocsd_mem_space_acc_t space,
                                 const uint8_t /*trace_id*/,
                                 const uint32_t size, uint8_t* out) {
    return static_cast<TreeRun*>(const_cast<void*>(context))
        ->ReadMemory(address, space, size, out);
  }

  absl::Status Setup(absl::Span<const size_t> source_indices) {
    InitOcsdOnce();
    if (mode_ == RunMode::kDecode) {
      memory_ = std::make_unique<MemoryImage>(*ctx_.timeline,
                                              plan_.buffer_index, ctx_.files);
    }
    std::lock_guard<std::mutex> lock(OcsdApiMutex());
    tree_ = plan_.formatted ? ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED,
                                                   plan_.deformatter_flags)
                            : ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    if (tree_ == C_API_INVALID_TREE_HANDLE) {
      return absl::InternalError(absl::StrFormat(
          "OpenCSD could not create a decode tree for buffer %u (deformatter "
          "flags 0x%x)",
          plan_.buffer_index, plan_.deformatter_flags));
    }
    for (size_t i : source_indices) {
      const PlannedSource& source = plan_.sources[i];
      const SourceDecoderConfig& cfg = source.config;
      unsigned char csid = 0;
      int flags = mode_ == RunMode::kDecode ? OCSD_CREATE_FLG_FULL_DECODER
                                            : OCSD_CREATE_FLG_PACKET_PROC;
      // A decode runs ETE on the ETMv4 decoder, to which a packet monitor
      // can be attached (ocsd_config.h).
      const bool ete_as_etmv4 =
          mode_ == RunMode::kDecode && cfg.etmv4_equivalent.has_value();
      const char* decoder_name =
          ete_as_etmv4 ? OCSD_BUILTIN_DCD_ETMV4I : cfg.decoder_name;
      const void* decoder_config =
          ete_as_etmv4 ? &*cfg.etmv4_equivalent : cfg.config_ptr();
      ocsd_err_t err = ocsd_dt_create_decoder(tree_, decoder_name, flags,
                                              decoder_config, &csid);
      if (err != OCSD_OK) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "OpenCSD rejected the %s decoder configuration of CoreSight %s: "
            "%s",
            decoder_name, cfg.description, OcsdErrorName(err)));
      }
      auto state = std::make_unique<StreamState>();
      state->run = this;
      state->stream = source.stream;
      state->trace_id = plan_.formatted ? csid : cfg.trace_id;
      state->protocol = cfg.protocol;
      state->max_speculation = cfg.max_speculation;
      state->stats = &(*ctx_.stats)[source.stream];
      if (cfg.protocol == OCSD_PROTOCOL_ETE && !ete_as_etmv4) {
        // A listing on the ETE decoder: no packet monitor, its printer.
        err = ocsd_dt_set_pkt_protocol_printer(tree_,
                                               plan_.formatted ? csid : 0, 1);
        if (err == OCSD_OK) {
          ete_printer_ = state.get();
          err = ocsd_def_errlog_set_strprint_cb(tree_, this,
                                                &TreeRun::PrinterCallback);
        }
      } else {
        err = ocsd_dt_attach_packet_callback(
            tree_, csid, OCSD_C_API_CB_PKT_MON,
            reinterpret_cast<void*>(&TreeRun::PacketCallback), state.get());
      }
      if (err != OCSD_OK) {
        return absl::InternalError(absl::StrFormat(
            "OpenCSD: cannot attach the packet monitor to trace ID 0x%x: %s",
            csid, OcsdErrorName(err)));
      }
      state->csid = csid;
      // trc_pkt_lister shows packets of a single-source tree as ID 0.
      state->print_id = plan_.formatted ? csid : 0;
      by_csid_[csid] = state.get();
      states_.push_back(std::move(state));
    }
    if (mode_ == RunMode::kDecode) {
      ocsd_err_t err =
          ocsd_dt_set_gen_elem_outfn(tree_, &TreeRun::ElementCallback, this);
      if (err == OCSD_OK) {
        err = ocsd_dt_add_callback_trcid_mem_acc(
            tree_, 0, std::numeric_limits<ocsd_vaddr_t>::max(),
            OCSD_MEM_SPACE_ANY, &TreeRun::MemoryCallback, this);
      }
      if (err != OCSD_OK) {
        return absl::InternalError(absl::StrFormat(
            "OpenCSD: cannot set up element output or memory access: %s",
            OcsdErrorName(err)));
      }
    }
    return absl::OkStatus();
  }

  StreamState* StateFor(uint8_t chan) {
    if (!plan_.formatted) return states_.empty() ? nullptr : states_[0].get();
    auto it = by_csid_.find(chan);
    return it == by_csid_.end() ? nullptr : it->second;
  }

  // OpenCSD indexes are 32 bits: rebuild the 64-bit offset from the end of
  // the data fed so far (an element never refers to data not yet fed, nor
  // to data 4 GiB back).
  uint64_t OffsetOf(ocsd_trc_index_t index) const {
    uint32_t back = static_cast<uint32_t>(fed_end_) - index;
    return fed_end_ - back;
  }

  void Feed(const capture::BufferChunk& chunk) {
    uint64_t pos = chunk.offset;
    const uint64_t end = chunk.offset + chunk.size;
    uint64_t next_change = std::numeric_limits<uint64_t>::max();
    if (memory_) next_change = AdvanceMemory(pos);
    while (pos < end) {
      uint64_t limit = std::min<uint64_t>(end, pos + kFeedBlock);
      if (next_change > pos && next_change < limit) {
        // Stop at the address-space change, on a whole unit.
        uint64_t n = next_change - pos;
        n -= n % plan_.alignment;
        if (n > 0) limit = pos + n;
      }
      uint32_t n = static_cast<uint32_t>(limit - pos);
      uint32_t processed = 0;
      fed_end_ = limit;
      allow_wait_ = true;
      ocsd_datapath_resp_t resp = ocsd_dt_process_data(
          tree_, OCSD_OP_DATA, static_cast<ocsd_trc_index_t>(pos), n,
          data_ + pos, &processed);
      pos += std::min(processed, n);
      resp = DrainWaits(resp);
      allow_wait_ = false;
      bool failed = OCSD_DATA_RESP_IS_FATAL(resp) ||
                    (processed == 0 && !OCSD_DATA_RESP_IS_WAIT(resp));
      if (failed && ++consecutive_failures_ > kMaxConsecutiveFailures) {
        // A decoder that fails on every unit (e.g. a configuration OpenCSD
        // accepted but cannot use) would report one error per frame.
        ReportFatal(resp, pos, end - pos,
                    " (it failed on every attempt since: the rest of the "
                    "chunk is not decoded)");
        Control(OCSD_OP_RESET);
        pos = end;
      } else if (failed) {
        // Skip at least one unit so that the reset decoder makes progress.
        uint64_t skip = processed == 0 ? plan_.alignment : 0;
        skip = std::min<uint64_t>(skip, end - pos);
        ReportFatal(resp, pos, skip, "");
        Control(OCSD_OP_RESET);
        pos += skip;
      } else {
        consecutive_failures_ = 0;
      }
      if (memory_ && pos >= next_change) next_change = AdvanceMemory(pos);
    }
  }

  // WAIT from our element callback means a batch is full: deliver, then
  // let the tree continue with FLUSH until it stops asking to wait.
  ocsd_datapath_resp_t DrainWaits(ocsd_datapath_resp_t resp) {
    while (OCSD_DATA_RESP_IS_WAIT(resp)) {
      DeliverFull();
      resp = ocsd_dt_process_data(tree_, OCSD_OP_FLUSH, 0, 0, nullptr, nullptr);
    }
    DeliverFull();
    return resp;
  }

  void Control(ocsd_datapath_op_t op) {
    // EOT and RESET complete in one call; the element callback must not ask
    // to wait meanwhile.
    allow_wait_ = false;
    uint32_t unused = 0;
    ocsd_datapath_resp_t resp =
        ocsd_dt_process_data(tree_, op, static_cast<ocsd_trc_index_t>(fed_end_),
                             0, nullptr, &unused);
    if (OCSD_DATA_RESP_IS_FATAL(resp) && op == OCSD_OP_EOT) {
      ReportFatal(resp, fed_end_, 0, "");
      ocsd_dt_process_data(tree_, OCSD_OP_RESET,
                           static_cast<ocsd_trc_index_t>(fed_end_), 0, nullptr,
                           &unused);
    }
    DeliverFull();
  }

  void ReportFatal(ocsd_datapath_resp_t resp, uint64_t offset, uint64_t skipped,
                   std::string_view note) {
    if (states_.empty()) return;
    StreamState& s = *states_.front();
    DecodeErrorInfo error;
    error.offset = offset;
    error.bytes_lost = skipped;
    error.reason = GapReason::kDecodeError;
    error.message = absl::StrFormat(
        "OpenCSD stopped on a fatal error (%s) at offset 0x%x: decoder reset, "
        "%u bytes skipped%s",
        DatapathResponseName(resp), offset, skipped, note);
    s.stats->AddError(std::move(error));
    for (auto& state : states_) {
      Event gap;
      gap.kind = EventKind::kGap;
      gap.reason = GapReason::kDecodeError;
      gap.offset = offset;
      gap.time = state->time;
      gap.value = skipped;
      gap.code = static_cast<uint32_t>(resp);
      Push(*state, gap);
    }
  }

  void ReportLostData(uint64_t offset) {
    for (auto& state : states_) {
      DecodeErrorInfo error;
      error.offset = offset;
      error.reason = GapReason::kLostData;
      error.message = absl::StrFormat(
          "trace lost before offset 0x%x (the buffer wrapped or the "
          "recorder missed data)",
          offset);
      state->stats->AddError(std::move(error));
      Event gap;
      gap.kind = EventKind::kGap;
      gap.reason = GapReason::kLostData;
      gap.offset = offset;
      gap.time = state->time;
      Push(*state, gap);
    }
  }

  void Push(StreamState& s, const Event& e) {
    if (mode_ == RunMode::kDecode) s.pending.push_back(e);
  }

  void Gap(StreamState& s, uint64_t offset, GapReason reason, uint64_t ip,
           uint32_t code) {
    Event gap;
    gap.kind = EventKind::kGap;
    gap.reason = reason;
    gap.offset = offset;
    gap.ip = ip;
    gap.time = s.time;
    gap.code = code;
    Push(s, gap);
  }

  void Error(StreamState& s, uint64_t offset, GapReason reason, uint64_t ip,
             std::string message) {
    DecodeErrorInfo error;
    error.offset = offset;
    error.reason = reason;
    error.ip = ip;
    error.message = std::move(message);
    s.stats->AddError(std::move(error));
  }

  // NO_SYNC: a gap, with an error for an overflow or a bad packet.
  void HandleNoSync(StreamState& s, uint64_t offset,
                    const ocsd_generic_trace_elem& elem) {
    switch (RawEnum(elem.unsync_eot_info)) {
      case UNSYNC_OVERFLOW:
        Gap(s, offset, GapReason::kOverflow, 0, RawEnum(elem.unsync_eot_info));
        Error(s, offset, GapReason::kOverflow, 0,
              "trace overflow: the trace unit dropped trace");
        s.overflow_reported = true;
        break;
      case UNSYNC_BAD_PACKET:
        Gap(s, offset, GapReason::kDecodeError, 0,
            RawEnum(elem.unsync_eot_info));
        if (!s.bad_packet_unmatched) {
          Error(s, offset, GapReason::kDecodeError, 0,
                "bad packet: the decoder lost synchronisation");
        }
        break;
      default:
        Gap(s, offset, GapReason::kNoSync, 0, RawEnum(elem.unsync_eot_info));
        break;
    }
    s.bad_packet_unmatched = false;
  }

  // TRACE_ON: kEnabled, after an overflow gap the NO_SYNC did not report.
  void HandleTraceOn(StreamState& s, uint64_t offset,
                     const ocsd_generic_trace_elem& elem) {
    if (RawEnum(elem.trace_on_reason) == TRACE_ON_OVERFLOW &&
        !s.overflow_reported) {
      Gap(s, offset, GapReason::kOverflow, 0, 0);
      Error(s, offset, GapReason::kOverflow, 0,
            "trace overflow: tracing restarted after the trace unit "
            "dropped trace");
    }
    s.overflow_reported = false;
    Event e;
    e.kind = EventKind::kEnabled;
    e.offset = offset;
    e.time = s.time;
    e.value = RawEnum(elem.trace_on_reason);
    s.pending.push_back(e);
  }

  void HandleElement(StreamState& s, uint64_t offset,
                     const ocsd_generic_trace_elem& elem) {
    switch (elem.elem_type) {
      case OCSD_GEN_TRC_ELEM_INSTR_RANGE: {
        Event e = BlockFromRange(elem);
        e.offset = offset;
        e.time = s.time;
        e.region = RegionOf(e.ip);
        if (s.pending_cycles != 0) {
          e.value += s.pending_cycles;
          s.pending_cycles = 0;
        }
        s.stats->instructions += e.ninsn;
        ++s.stats->blocks;
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH:
        Gap(s, offset, GapReason::kLostData, elem.st_addr, 0);
        Error(
            s, offset, GapReason::kLostData, elem.st_addr,
            absl::StrFormat("%u instructions executed between 0x%x and 0x%x "
                            "without path information (I_RANGE_NOPATH)",
                            elem.num_instr_range, elem.st_addr, elem.en_addr));
        break;
      case OCSD_GEN_TRC_ELEM_ADDR_NACC:
        Gap(s, offset, GapReason::kMissingImage, elem.st_addr, 0);
        Error(s, offset, GapReason::kMissingImage, elem.st_addr,
              absl::StrFormat("no code image at 0x%x (OpenCSD ADDR_NACC): "
                              "execution there cannot be followed until the "
                              "next address packet",
                              elem.st_addr));
        break;
      case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
        Gap(s, offset, GapReason::kDecodeError, 0, 0);
        Error(s, offset, GapReason::kDecodeError, 0,
              "address unknown (OpenCSD ADDR_UNKNOWN): waiting for an "
              "address packet");
        break;
      case OCSD_GEN_TRC_ELEM_NO_SYNC:
        HandleNoSync(s, offset, elem);
        break;
      case OCSD_GEN_TRC_ELEM_TRACE_ON:
        HandleTraceOn(s, offset, elem);
        break;
      case OCSD_GEN_TRC_ELEM_EO_TRACE: {
        Event e;
        e.kind = EventKind::kDisabled;
        e.offset = offset;
        e.time = s.time;
        e.value = RawEnum(elem.unsync_eot_info);
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_PE_CONTEXT: {
        Event e = ContextEvent(elem);
        e.offset = offset;
        e.time = s.time;
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_EXCEPTION: {
        Event e;
        e.kind = EventKind::kException;
        e.offset = offset;
        e.time = s.time;
        e.ip = elem.excep_ret_addr ? elem.en_addr : 0;
        e.value = elem.exception_number;
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_EXCEPTION_RET: {
        Event e;
        e.kind = EventKind::kExceptionReturn;
        e.offset = offset;
        e.time = s.time;
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_TIMESTAMP: {
        s.time = elem.timestamp;
        Event e;
        e.kind = EventKind::kTimestamp;
        e.offset = offset;
        e.time = s.time;
        e.value = elem.timestamp;
        s.pending.push_back(e);
        break;
      }
      case OCSD_GEN_TRC_ELEM_CYCLE_COUNT: {
        // Cycles since the previous count: they belong to the block right
        // before, when it is the stream's latest event (Deliver keeps such
        // a block back, so batching never changes the result); otherwise
        // to the next block.
        if (!s.pending.empty() && s.pending.back().kind == EventKind::kBlock &&
            (s.pending.back().code >> kBlockCycleCountShift) !=
                kBlockCycleCountOverflow) {
          s.pending.back().value += elem.cycle_count;
          break;
        }
        s.pending_cycles += elem.cycle_count;
        break;
      }
      default:
        break;
    }
  }

  void DeliverFull() {
    for (auto& state : states_) {
      if (state->pending.size() >= ctx_.batch_events) {
        Deliver(*state, /*final=*/false);
      }
    }
  }

  // Hands the pending events to the sink. Unless final, a block that is the
  // latest event stays back: a CYCLE_COUNT may still be added to it.
  void Deliver(StreamState& s, bool final) {
    if (mode_ != RunMode::kDecode) {
      s.pending.clear();
      return;
    }
    size_t n = s.pending.size();
    if (!final && n > 0 && s.pending.back().kind == EventKind::kBlock) --n;
    if (n == 0) return;
    {
      std::lock_guard<std::mutex> lock(*ctx_.sink_mutex);
      events_->OnEvents(s.stream, absl::Span<const Event>(s.pending.data(), n));
    }
    s.pending.erase(s.pending.begin(), s.pending.begin() + n);
  }

  const RunContext& ctx_;
  const BufferPlan& plan_;
  RunMode mode_;
  EventSink* events_;
  PacketSink* packets_;
  dcd_tree_handle_t tree_ = C_API_INVALID_TREE_HANDLE;
  std::unique_ptr<MemoryImage> memory_;
  std::vector<std::unique_ptr<StreamState>> states_;
  std::map<uint8_t, StreamState*> by_csid_;
  StreamState* ete_printer_ = nullptr;
  const uint8_t* data_ = nullptr;
  size_t data_size_ = 0;
  uint64_t fed_end_ = 0;
  bool allow_wait_ = false;
  int consecutive_failures_ = 0;
};

}  // namespace

absl::Status RunDecodeTree(const RunContext& ctx, const BufferPlan& plan,
                           absl::Span<const size_t> source_indices,
                           RunMode mode, EventSink* events,
                           PacketSink* packets) {
  TreeRun run(ctx, plan, mode, events, packets);
  return run.Run(source_indices);
}

}  // namespace hwt::coresight

// OpenCSD 1.3.3's C API never frees the callback object that
// ocsd_dt_set_gen_elem_outfn allocates (32 bytes per decode tree; checked
// with a five-line program). Defined here, beside the call, so that every
// program that decodes CoreSight tells LeakSanitizer (sanitizer builds only;
// otherwise nothing calls it) that this leak is the library's.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:ocsd_dt_set_gen_elem_outfn\n";
}
