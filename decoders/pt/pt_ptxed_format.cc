// ptxed-style event lines; see pt_ptxed_format.h.
#include "decoders/pt/pt_ptxed_format.h"

#include <intel-pt.h>

#include "absl/strings/str_format.h"
#include "decoders/pt/pt_events.h"

namespace hwt::pt {
namespace {

std::string Ip(const char* label, uint64_t ip) {
  return absl::StrFormat(", %s: %016x", label, ip);
}

// The text of a kBackend event's line (between the brackets); "" when ptxed
// prints nothing for it.
std::string BackendEventText(const Event& e, const PtxedFormatOptions& options,
                             bool show_ip) {
  std::string text;
  switch (BackendType(e.code)) {
    case PtBackendEvent::kTsx:
      text = (e.value & 2)   ? "aborted"
             : (e.value & 1) ? "begin transaction"
                             : "committed";
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case PtBackendEvent::kStop:
      text = "stopped";
      break;
    case PtBackendEvent::kVmcs:
      text = absl::StrFormat("vmcs, base: %016x", e.value);
      if ((e.code & kPtAsync) && options.event_ip) text += Ip("ip", e.ip);
      break;
    case PtBackendEvent::kExstop:
      text = "exstop";
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case PtBackendEvent::kMwait:
      text =
          absl::StrFormat("mwait %x %x", e.value & 0xffffffff, e.value >> 32);
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case PtBackendEvent::kPwre:
      text = absl::StrFormat("pwre c%u.%u%s", ((e.value & 0xff) + 1) & 0xf,
                             (((e.value >> 8) & 0xff) + 1) & 0xf,
                             (e.value & (1u << 16)) ? " hw" : "");
      break;
    case PtBackendEvent::kPwrx:
      text = absl::StrFormat(
          "pwrx %s%s%sc%u (c%u)", (e.value & (1u << 16)) ? "int: " : "",
          (e.value & (1u << 17)) ? "st: " : "",
          (e.value & (1u << 18)) ? "hw: " : "", ((e.value & 0xff) + 1) & 0xf,
          (((e.value >> 8) & 0xff) + 1) & 0xf);
      break;
    case PtBackendEvent::kPtwrite:
      text = absl::StrFormat("ptwrite: %x", e.value);
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case PtBackendEvent::kMnt:
      text = absl::StrFormat("mnt: %x", e.value);
      break;
    default:
      break;
  }
  return text;
}

// The text of an event's line (between the brackets) for the events
// PtxedEventLine does not print whole; "" when ptxed prints nothing for it.
std::string EventText(const Event& e, const PtxedFormatOptions& options) {
  const bool suppressed = (e.code & kPtIpSuppressed) != 0;
  const bool show_ip = options.event_ip && !suppressed;
  std::string text;
  switch (e.kind) {
    case EventKind::kBlock:
    case EventKind::kSync:
    case EventKind::kContext:
    case EventKind::kExceptionReturn:
    case EventKind::kSample:  // SPE's; no PT decoder makes one
      break;
    case EventKind::kEnabled:
      text = (e.code & kPtResumed) ? "resumed" : "enabled";
      if (options.event_ip) text += Ip("ip", e.ip);
      break;
    case EventKind::kDisabled:
      text = "disabled";
      if (e.code & kPtAsync) {
        if (options.event_ip) {
          text += Ip("at", e.ip);
          if (!suppressed) text += Ip("ip", e.value);
        }
      } else if (show_ip) {
        text += Ip("ip", e.ip);
      }
      break;
    case EventKind::kException:
      text = "interrupt";
      if (options.event_ip) {
        text += Ip("from", e.ip);
        if (!suppressed) text += Ip("to", e.next_ip);
      }
      break;
    case EventKind::kPaging:
      text = absl::StrFormat("paging, cr3: %016x%s", e.value,
                             (e.code & kPtNonRoot) ? ", nr" : "");
      if ((e.code & kPtAsync) && options.event_ip) text += Ip("ip", e.ip);
      break;
    case EventKind::kGap:
      // Of the other gaps ptxed prints only errors, as whole lines.
      if (e.reason != GapReason::kOverflow) break;
      text = "overflow";
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case EventKind::kExecMode: {
      const char* mode = e.isa == Isa::kX86_64   ? "64-bit"
                         : e.isa == Isa::kX86_32 ? "32-bit"
                         : e.isa == Isa::kX86_16 ? "16-bit"
                                                 : "<unknown>";
      text = absl::StrFormat("exec mode: %s", mode);
      if (show_ip) text += Ip("ip", e.ip);
      break;
    }
    case EventKind::kTimestamp:
      if (!(e.code & kPtTick)) break;
      text = "tick";
      if (show_ip) text += Ip("ip", e.ip);
      break;
    case EventKind::kCoreBusRatio:
      text = absl::StrFormat("cbr: %x", e.value);
      break;
    case EventKind::kBackend:
      text = BackendEventText(e, options, show_ip);
      break;
  }
  return text;
}

}  // namespace

std::string PtxedInsnLine(uint64_t address, bool speculative) {
  return absl::StrFormat("%s%016x", speculative ? "? " : "", address);
}

std::string PtxedEventLine(const Event& e, const PtxedFormatOptions& options) {
  // The lines ptxed prints whole, without a time and for status updates too.
  if (e.kind == EventKind::kDisabled && (e.code & kPtEndOfTrace)) {
    return "[end of trace]";
  }
  if (e.kind == EventKind::kGap && (e.reason == GapReason::kDecodeError ||
                                    e.reason == GapReason::kMissingImage)) {
    return absl::StrFormat("[%x, %x: error: %s]", e.offset, e.ip,
                           pt_errstr(pt_errcode(static_cast<int32_t>(e.code))));
  }
  const std::string text = EventText(e, options);
  if (text.empty() || (e.code & kPtStatusUpdate)) return "";
  std::string time;
  if (options.event_time && (e.code & kPtHasTsc)) {
    time = absl::StrFormat("%016x  ", e.time);
  }
  return absl::StrFormat("[%s%s]", time, text);
}

}  // namespace hwt::pt
