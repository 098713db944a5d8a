// ptdump-format packet listing over libipt's packet decoder; see
// pt_packet_lister.h.
#include "decoders/pt/pt_packet_lister.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "decoders/pt/pt_libipt_handles.h"
#include "decoders/pt/pt_packet_time.h"
#include "decoders/pt/pt_sync.h"
#include "decoders/pt/pt_trace_buffer.h"

namespace hwt::pt {
namespace {

// ptdump's column widths (sizeof of its fixed buffers).
constexpr int kRawWidth = 33;
constexpr int kOpcodeWidth = 10;
constexpr int kPayloadWidth = 25;
constexpr int kTrackingIdWidth = 5;

// The last IP as IP packets update it (what --lastip shows).
struct LastIp {
  uint64_t ip = 0;
  bool have_ip = false;
  bool suppressed = false;

  void Update(const pt_packet_ip& packet) {
    switch (packet.ipc) {
      case pt_ipc_suppressed:
        suppressed = true;
        return;
      case pt_ipc_update_16:
        ip = (ip & ~0xffffull) | (packet.ip & 0xffffull);
        break;
      case pt_ipc_update_32:
        ip = (ip & ~0xffffffffull) | (packet.ip & 0xffffffffull);
        break;
      case pt_ipc_update_48:
        ip = (ip & ~0xffffffffffffull) | (packet.ip & 0xffffffffffffull);
        break;
      case pt_ipc_sext_48:
        ip = (packet.ip & (1ull << 47)) ? packet.ip | ~0xffffffffffffull
                                        : packet.ip & 0xffffffffffffull;
        break;
      case pt_ipc_full:
        ip = packet.ip;
        break;
    }
    have_ip = true;
    suppressed = false;
  }
};

// The columns of one ptdump line, and the diagnostics to print before it.
struct Columns {
  std::string raw;
  std::string opcode;
  std::string payload;
  std::string tracking_id;
  std::string tracking;
  bool skip = false;
  bool skip_time = false;
  bool skip_tcal = false;
  std::vector<std::string> diags;

  void Diag(const char* what, int error) {
    if (error < 0) {
      diags.push_back(
          absl::StrFormat("[%s: %s]", what, pt_errstr(pt_errcode(error))));
    } else {
      diags.push_back(absl::StrFormat("[%s]", what));
    }
  }
};

// State carried from packet to packet.
struct Tracking {
  LastIp last_ip;
  PtTime time;
  PtTimeCalibration tcal;
  uint64_t last_tsc = 0;  // for --time-delta
  uint64_t last_fcr = 0;
  bool in_header = false;  // inside PSB+
};

// ptdump's time columns after a timing packet.
void ShowTime(const PtdumpOptions& options, Tracking* t, Columns* c) {
  if (options.tcal && !c->skip_tcal) {
    c->tracking_id = "fcr";
    uint64_t fcr = 0;
    const int status = t->tcal.Fcr(&fcr);
    if (status < 0) {
      c->tracking = "<unavailable>";
      c->Diag("error printing time", status);
    } else {
      const double value = static_cast<double>(fcr) / (1u << kFcrShift);
      if (options.time_delta) {
        const double old = static_cast<double>(t->last_fcr) / (1u << kFcrShift);
        c->tracking = absl::StrFormat("%+.3f", value - old);
        t->last_fcr = fcr;
      } else {
        c->tracking = absl::StrFormat("%.3f", value);
      }
    }
  }
  if (options.time && !c->skip_time) {
    c->tracking_id = "tsc";
    uint64_t tsc = 0;
    const int status = t->time.Query(&tsc);
    if (status < 0 && !(status == -pte_no_time && options.no_wall_clock)) {
      c->Diag("error printing time", status);
      c->tracking = "<unavailable>";
      return;
    }
    if (options.time_delta) {
      c->tracking = t->last_tsc <= tsc
                        ? absl::StrFormat("+%x", tsc - t->last_tsc)
                        : absl::StrFormat("-%x", t->last_tsc - tsc);
      t->last_tsc = tsc;
    } else {
      c->tracking = absl::StrFormat("%016x", tsc);
    }
  }
}

// Updates the time tracking for a timing packet, as ptdump does.
void TrackTime(const pt_packet& packet, const pt_config& config,
               const PtdumpOptions& options, Tracking* t, Columns* c) {
  int status = 0;
  switch (packet.type) {
    case ppt_tsc:
      if (!options.no_tcal) {
        status = t->in_header ? t->tcal.HeaderTsc(packet.payload.tsc)
                              : t->tcal.UpdateTsc(packet.payload.tsc);
        if (status < 0) c->Diag("error calibrating time", status);
      }
      status = t->time.UpdateTsc(packet.payload.tsc);
      if (status < 0) c->Diag("error updating time", status);
      break;
    case ppt_cbr:
      if (!options.no_tcal) {
        status = t->in_header ? t->tcal.HeaderCbr(packet.payload.cbr, config)
                              : t->tcal.UpdateCbr(packet.payload.cbr, config);
        if (status < 0) c->Diag("error calibrating time", status);
      }
      status = t->time.UpdateCbr(packet.payload.cbr);
      if (status < 0) c->Diag("error updating time", status);
      c->skip_time = true;  // no time update at this packet
      break;
    case ppt_tma:
      status = t->time.UpdateTma(packet.payload.tma, config);
      if (status < 0) c->Diag("error updating time", status);
      c->skip_tcal = true;  // no calibration update at this packet
      break;
    case ppt_mtc:
      if (!options.no_tcal) {
        status = t->tcal.UpdateMtc(packet.payload.mtc, config);
        if (status < 0) c->Diag("error calibrating time", status);
      }
      status = t->time.UpdateMtc(packet.payload.mtc, config);
      if (status < 0) c->Diag("error updating time", status);
      break;
    case ppt_cyc: {
      uint64_t fcr = 0;
      if (!options.no_tcal) {
        status = t->tcal.Fcr(&fcr);
        if (status < 0) c->Diag("calibration error", status);
        status = t->tcal.UpdateCyc(packet.payload.cyc);
        if (status < 0) c->Diag("error calibrating time", status);
      }
      status = t->time.UpdateCyc(packet.payload.cyc, config, fcr);
      if (status < 0) {
        c->Diag("error updating time", status);
      } else if (fcr == 0) {
        c->Diag("error updating time: no calibration", 0);
      }
      c->skip_tcal = true;
      break;
    }
    default:
      return;
  }
  ShowTime(options, t, c);
}

std::string IpPayload(const pt_packet_ip& ip) {
  switch (ip.ipc) {
    case pt_ipc_suppressed:
      return "0: ????????????????";
    case pt_ipc_update_16:
      return absl::StrFormat("1: ????????????%04x", ip.ip);
    case pt_ipc_update_32:
      return absl::StrFormat("2: ????????%08x", ip.ip);
    case pt_ipc_update_48:
      return absl::StrFormat("4: ????%012x", ip.ip);
    case pt_ipc_sext_48: {
      const uint64_t value = (ip.ip & (1ull << 47)) ? ip.ip | ~0xffffffffffffull
                                                    : ip.ip & 0xffffffffffffull;
      return absl::StrFormat("3: %016x", value);
    }
    case pt_ipc_full:
      return absl::StrFormat("6: %016x", ip.ip);
  }
  return absl::StrFormat("%x: %016x", static_cast<int>(ip.ipc), ip.ip);
}

std::string TntPayload(const pt_packet_tnt& tnt) {
  std::string bits;
  for (int bit = tnt.bit_size; bit > 0; --bit) {
    bits.push_back((tnt.payload >> (bit - 1)) & 1 ? '!' : '.');
  }
  return bits;
}

const char* ExecModeName(const pt_packet_mode_exec& exec) {
  switch (pt_get_exec_mode(&exec)) {
    case ptem_64bit:
      return "64-bit";
    case ptem_32bit:
      return "32-bit";
    case ptem_16bit:
      return "16-bit";
    case ptem_unknown:
      return "unknown";
  }
  return "invalid";
}

std::string JoinFlags(const char* a, const char* b) {
  if (*a && *b) return absl::StrFormat("%s, %s", a, b);
  return std::string(a) + b;
}

// Packets that frame the trace (PSB+, padding, overflow, stop) and those
// libipt could not decode. PSB+ and OVF also move the time calibration.
void DescribeControlPacket(const pt_packet& packet, const pt_config& config,
                           const PtdumpOptions& options, Tracking* tracking,
                           Columns* c) {
  const bool track_time = options.time || options.tcal;
  switch (packet.type) {
    case ppt_unknown:
      c->opcode = "<unknown>";
      return;
    case ppt_invalid:
      c->opcode = "<invalid>";
      return;
    case ppt_psb:
      c->opcode = "psb";
      if (track_time) {
        const int status = tracking->tcal.UpdatePsb(config);
        if (status < 0) c->Diag("error calibrating time", status);
      }
      tracking->in_header = true;
      return;
    case ppt_psbend:
      c->opcode = "psbend";
      tracking->in_header = false;
      return;
    case ppt_pad:
      c->opcode = "pad";
      c->skip = options.no_pad;
      return;
    case ppt_ovf:
      c->opcode = "ovf";
      if (track_time) {
        if (options.keep_tcal_on_ovf) {
          tracking->tcal.UpdateOvf();
        } else {
          tracking->tcal.Reset();
        }
      }
      return;
    case ppt_stop:
      c->opcode = "stop";
      return;
    default:
      return;
  }
}

// FUP, TIP, TIP.PGE, TIP.PGD: the IP payload and, for --lastip, the IP
// the packets give so far.
void DescribeIpPacket(const char* opcode, const pt_packet_ip& ip,
                      const PtdumpOptions& options, LastIp* last_ip,
                      Columns* c) {
  c->opcode = opcode;
  c->payload = IpPayload(ip);
  if (options.lastip) {
    last_ip->Update(ip);
    c->tracking_id = "ip";
    if (!last_ip->have_ip) {
      c->tracking = "<unavailable>";
    } else if (last_ip->suppressed) {
      c->tracking = "<suppressed>";
    } else {
      c->tracking = absl::StrFormat("%016x", last_ip->ip);
    }
  }
}

// TSC, CBR, TMA, MTC, CYC: time tracking, hidden by --no-timing (CYC by
// --no-cyc too, which also leaves it out of the tracking).
void DescribeTimingPacket(const pt_packet& packet, const pt_config& config,
                          const PtdumpOptions& options, Tracking* tracking,
                          Columns* c) {
  const bool track_time = options.time || options.tcal;
  switch (packet.type) {
    case ppt_tsc:
      c->opcode = "tsc";
      c->payload = absl::StrFormat("%x", packet.payload.tsc.tsc);
      break;
    case ppt_cbr:
      c->opcode = "cbr";
      c->payload = absl::StrFormat("%x", packet.payload.cbr.ratio);
      break;
    case ppt_tma:
      c->opcode = "tma";
      c->payload = absl::StrFormat("%x, %x", packet.payload.tma.ctc,
                                   packet.payload.tma.fc);
      break;
    case ppt_mtc:
      c->opcode = "mtc";
      c->payload = absl::StrFormat("%x", packet.payload.mtc.ctc);
      break;
    case ppt_cyc:
      c->opcode = "cyc";
      c->payload = absl::StrFormat("%x", packet.payload.cyc.value);
      if (track_time && !options.no_cyc) {
        TrackTime(packet, config, options, tracking, c);
      }
      c->skip = options.no_timing || options.no_cyc;
      return;
    default:
      return;
  }
  if (track_time) TrackTime(packet, config, options, tracking, c);
  c->skip = options.no_timing;
}

void DescribeModePacket(const pt_packet_mode& mode,
                        const PtdumpOptions& options, Columns* c) {
  if (mode.leaf == pt_mol_exec) {
    const pt_packet_mode_exec& exec = mode.bits.exec;
    c->opcode = "mode.exec";
    c->payload = JoinFlags(exec.csd ? "cs.d" : "", exec.csl ? "cs.l" : "");
    if (options.exec_mode) {
      c->tracking_id = "em";
      c->tracking = ExecModeName(exec);
    }
  } else if (mode.leaf == pt_mol_tsx) {
    const pt_packet_mode_tsx& tsx = mode.bits.tsx;
    c->opcode = "mode.tsx";
    c->payload = JoinFlags(tsx.intx ? "intx" : "", tsx.abrt ? "abrt" : "");
  } else {
    c->opcode = "mode";
    c->payload = absl::StrFormat("leaf: %x", static_cast<int>(mode.leaf));
  }
}

// EXSTOP, MWAIT, PWRE, PWRX.
void DescribePowerPacket(const pt_packet& packet, Columns* c) {
  switch (packet.type) {
    case ppt_exstop:
      c->opcode = "exstop";
      c->payload = packet.payload.exstop.ip ? "ip" : "";
      return;
    case ppt_mwait:
      c->opcode = "mwait";
      c->payload = absl::StrFormat("%08x, %08x", packet.payload.mwait.hints,
                                   packet.payload.mwait.ext);
      return;
    case ppt_pwre:
      c->opcode = "pwre";
      c->payload =
          absl::StrFormat("c%u.%u%s", (packet.payload.pwre.state + 1) & 0xf,
                          (packet.payload.pwre.sub_state + 1) & 0xf,
                          packet.payload.pwre.hw ? ", hw" : "");
      return;
    case ppt_pwrx: {
      const pt_packet_pwrx& pwrx = packet.payload.pwrx;
      const int reasons = pwrx.interrupt + pwrx.store + pwrx.autonomous;
      const char* why = reasons != 1     ? "bad"
                        : pwrx.interrupt ? "int"
                        : pwrx.store     ? " st"
                                         : " hw";
      c->opcode = "pwrx";
      c->payload = absl::StrFormat("%s: c%u, c%u", why, (pwrx.last + 1) & 0xf,
                                   (pwrx.deepest + 1) & 0xf);
      return;
    }
    default:
      return;
  }
}

// The packets with a plain payload: PIP and VMCS (which ptdump also tracks),
// TNT, MNT and PTW.
void DescribePayloadPacket(const pt_packet& packet, Columns* c) {
  switch (packet.type) {
    case ppt_pip:
      c->opcode = "pip";
      c->payload = absl::StrFormat("%x%s", packet.payload.pip.cr3,
                                   packet.payload.pip.nr ? ", nr" : "");
      c->tracking_id = "cr3";
      c->tracking = absl::StrFormat("%016x", packet.payload.pip.cr3);
      return;
    case ppt_vmcs:
      c->opcode = "vmcs";
      c->payload = absl::StrFormat("%x", packet.payload.vmcs.base);
      c->tracking_id = "vmcs";
      c->tracking = absl::StrFormat("%016x", packet.payload.vmcs.base);
      return;
    case ppt_tnt_8:
      c->opcode = "tnt.8";
      c->payload = TntPayload(packet.payload.tnt);
      return;
    case ppt_tnt_64:
      c->opcode = "tnt.64";
      c->payload = TntPayload(packet.payload.tnt);
      return;
    case ppt_mnt:
      c->opcode = "mnt";
      c->payload = absl::StrFormat("%x", packet.payload.mnt.payload);
      return;
    case ppt_ptw:
      c->opcode = "ptw";
      c->payload = absl::StrFormat("%x: %x%s", packet.payload.ptw.plc,
                                   packet.payload.ptw.payload,
                                   packet.payload.ptw.ip ? ", ip" : "");
      return;
    default:
      return;
  }
}

// Fills `c` for `packet`; tracks the last IP for --lastip. Names every
// packet type (-Wswitch tells of new ones) and hands it to its family's
// helper.
void Describe(const pt_packet& packet, const pt_config& config,
              const PtdumpOptions& options, Tracking* tracking, Columns* c) {
  switch (packet.type) {
    case ppt_unknown:
    case ppt_invalid:
    case ppt_psb:
    case ppt_psbend:
    case ppt_pad:
    case ppt_ovf:
    case ppt_stop:
      DescribeControlPacket(packet, config, options, tracking, c);
      return;
    case ppt_fup:
    case ppt_tip:
    case ppt_tip_pge:
    case ppt_tip_pgd:
      DescribeIpPacket(packet.type == ppt_fup       ? "fup"
                       : packet.type == ppt_tip     ? "tip"
                       : packet.type == ppt_tip_pge ? "tip.pge"
                                                    : "tip.pgd",
                       packet.payload.ip, options, &tracking->last_ip, c);
      return;
    case ppt_tsc:
    case ppt_cbr:
    case ppt_tma:
    case ppt_mtc:
    case ppt_cyc:
      DescribeTimingPacket(packet, config, options, tracking, c);
      return;
    case ppt_mode:
      DescribeModePacket(packet.payload.mode, options, c);
      return;
    case ppt_exstop:
    case ppt_mwait:
    case ppt_pwre:
    case ppt_pwrx:
      DescribePowerPacket(packet, c);
      return;
    case ppt_pip:
    case ppt_vmcs:
    case ppt_tnt_8:
    case ppt_tnt_64:
    case ppt_mnt:
    case ppt_ptw:
      DescribePayloadPacket(packet, c);
      return;
  }
  c->opcode = absl::StrFormat("<type %d>", static_cast<int>(packet.type));
}

// ptdump's print_buffer without the offset column.
std::string Render(const Columns& c) {
  std::string line;
  const char* sep = "";
  if (!c.raw.empty()) {
    line = absl::StrFormat("%-*s", kRawWidth, c.raw);
    sep = " ";
  }
  if (!c.payload.empty()) {
    absl::StrAppendFormat(&line, "%s%-*s", sep, kOpcodeWidth, c.opcode);
  } else {
    absl::StrAppendFormat(&line, "%s%s", sep, c.opcode);
  }
  if (!c.tracking_id.empty()) {
    absl::StrAppendFormat(&line, " %-*s %-*s%s", kPayloadWidth, c.payload,
                          kTrackingIdWidth, c.tracking_id, c.tracking);
  } else if (!c.payload.empty()) {
    absl::StrAppendFormat(&line, " %s", c.payload);
  }
  return line;
}

// SKD007: an OVF may replace the remaining bytes of a multi-byte CYC. libipt
// 2.0.5 handles it in the query decoder only; its packet decoder returns a
// 2-byte CYC whose second byte is the OVF's 0x02 and then a bogus 1-byte CYC
// (the OVF's 0xf3). libipt >= 2.1's packet decoder reports the OVF, and so
// do we.
bool IsSkd007Ovf(const pt_config& config, const pt_packet& packet,
                 const uint8_t* data, size_t size, uint64_t offset) {
  constexpr uint8_t kExtOvf = 0xf3;
  return config.errata.skd007 && packet.type == ppt_cyc && packet.size == 2 &&
         (packet.payload.cyc.value & ~0x1full) == 0x20 && offset + 2 < size &&
         data[offset + 2] == kExtOvf;
}

}  // namespace

std::string PtdumpLine(uint64_t offset, std::string_view text,
                       bool show_offset) {
  if (!text.empty() && text[0] == '[') {
    return absl::StrFormat("[%x: %s", offset, text.substr(1));
  }
  if (!show_offset) return std::string(text);
  return absl::StrFormat("%-17s %s", absl::StrFormat("%016x", offset), text);
}

void ListPtPackets(const struct pt_config& base, const uint8_t* data,
                   size_t size, uint64_t file_offset,
                   const PtdumpOptions& options, const PtPacketLineFn& line,
                   StreamStats* stats) {
  stats->trace_bytes += size;
  if (size == 0) return;
  // Every byte of the chunk is decoded unless counted as lost.
  const uint64_t lost_before = stats->bytes_lost;
  struct Account {
    StreamStats* stats;
    uint64_t size, lost_before;
    ~Account() {
      stats->bytes_decoded += size - (stats->bytes_lost - lost_before);
    }
  } account{stats, size, lost_before};
  PtTraceBuffer buffer(data, size);
  pt_config config = base;
  config.begin = buffer.begin();
  config.end = buffer.end();
  PacketDecoderPtr decoder(pt_pkt_alloc_decoder(&config));
  auto lose = [&](uint64_t from, uint64_t to) {
    if (to > from) stats->bytes_lost += to - from;
  };
  if (!decoder) {
    line(file_offset, "[failed to allocate decoder]");
    lose(0, size);
    return;
  }
  auto diag = [&](uint64_t offset, const char* what, int error) {
    line(file_offset + offset,
         absl::StrFormat("[%s: %s]", what, pt_errstr(pt_errcode(error))));
  };

  uint64_t lost_from = 0;
  uint64_t search_from = 0;
  uint64_t last_sync = 0;
  Tracking tracking;
  for (bool first = true;; first = false) {
    uint64_t sync = 0;
    if (first && options.no_sync) {
      // ptdump --no-sync: assume a sync point at the first byte.
      pt_pkt_sync_set(decoder.get(), 0);
    } else {
      const std::optional<uint64_t> psb =
          FindNextPsb(buffer.begin(), size, search_from);
      if (!psb) break;
      sync = *psb;
      pt_pkt_sync_set(decoder.get(), sync);
    }
    lose(lost_from, sync);
    last_sync = sync;
    uint64_t offset = sync;
    int status = 0;
    for (;;) {
      pt_pkt_get_offset(decoder.get(), &offset);
      pt_packet packet;
      status = pt_pkt_next(decoder.get(), &packet, sizeof(packet));
      if (status < 0) break;
      // With some CPUs' errata libipt 2.0.5 returns an invalid packet that
      // runs past the end (a bad TMA at the end of the buffer): like any
      // packet cut off by the end, it ends the listing.
      if (offset + packet.size > size) {
        status = -pte_eos;
        break;
      }
      if (IsSkd007Ovf(config, packet, buffer.begin(), size, offset)) {
        // The OVF is at offset + 1 and ends at offset + 3.
        packet.type = ppt_ovf;
        pt_pkt_sync_set(decoder.get(), offset + 3);
      }
      ++stats->packets;
      Columns columns;
      if (options.raw) {
        for (int i = 0; i < packet.size && offset + i < size; ++i) {
          absl::StrAppendFormat(&columns.raw, "%02x",
                                buffer.begin()[offset + i]);
        }
      }
      Describe(packet, config, options, &tracking, &columns);
      for (const std::string& diag : columns.diags) {
        line(file_offset + offset, diag);
      }
      if (!columns.skip) line(file_offset + offset, Render(columns));
    }
    // The end, or a packet cut off by the end (its bytes were read).
    if (status == -pte_eos) return;
    diag(offset, "error decoding packet", status);
    search_from = ResyncSearchStart(offset, last_sync);
    const std::optional<uint64_t> next =
        FindNextPsb(buffer.begin(), size, search_from);
    const uint64_t until = next ? std::max(*next, offset) : size;
    DecodeErrorInfo error;
    error.offset = file_offset + offset;
    error.reason = GapReason::kDecodeError;
    error.bytes_lost = until - offset;
    error.message = absl::StrFormat(
        "undecodable packet at offset 0x%x (libipt: %s): %u bytes skipped to "
        "%s",
        error.offset, pt_errstr(pt_errcode(status)), error.bytes_lost,
        next ? "the next PSB" : "the end of the chunk");
    stats->AddError(std::move(error));
    lost_from = offset;
    tracking = Tracking();
  }
  lose(lost_from, size);
}

}  // namespace hwt::pt
