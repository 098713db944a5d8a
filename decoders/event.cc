// Names and descriptions for the unified event model.
#include "decoders/event.h"

#include "absl/strings/str_format.h"

namespace hwt {

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kUnknown:
      return "unknown";
    case Isa::kX86_16:
      return "16-bit";
    case Isa::kX86_32:
      return "32-bit";
    case Isa::kX86_64:
      return "64-bit";
    case Isa::kA64:
      return "A64";
    case Isa::kA32:
      return "A32";
    case Isa::kT32:
      return "T32";
  }
  return "unknown";
}

std::string_view BranchKindName(BranchKind kind) {
  switch (kind) {
    case BranchKind::kNone:
      return "none";
    case BranchKind::kCondTaken:
      return "cond-taken";
    case BranchKind::kCondNotTaken:
      return "cond-not-taken";
    case BranchKind::kJump:
      return "jump";
    case BranchKind::kJumpIndirect:
      return "jump-indirect";
    case BranchKind::kCall:
      return "call";
    case BranchKind::kCallIndirect:
      return "call-indirect";
    case BranchKind::kReturn:
      return "return";
    case BranchKind::kFarCall:
      return "far-call";
    case BranchKind::kFarReturn:
      return "far-return";
    case BranchKind::kFarJump:
      return "far-jump";
    case BranchKind::kOther:
      return "other";
  }
  return "none";
}

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kBlock:
      return "block";
    case EventKind::kEnabled:
      return "enabled";
    case EventKind::kDisabled:
      return "disabled";
    case EventKind::kGap:
      return "gap";
    case EventKind::kExecMode:
      return "exec-mode";
    case EventKind::kPaging:
      return "paging";
    case EventKind::kContext:
      return "context";
    case EventKind::kTimestamp:
      return "timestamp";
    case EventKind::kCoreBusRatio:
      return "cbr";
    case EventKind::kException:
      return "exception";
    case EventKind::kExceptionReturn:
      return "exception-return";
    case EventKind::kSync:
      return "sync";
    case EventKind::kBackend:
      return "backend";
    case EventKind::kSample:
      return "sample";
  }
  return "unknown";
}

std::string_view GapReasonName(GapReason reason) {
  switch (reason) {
    case GapReason::kNone:
      return "none";
    case GapReason::kDecodeError:
      return "decode error";
    case GapReason::kOverflow:
      return "overflow";
    case GapReason::kLostData:
      return "lost data";
    case GapReason::kMissingImage:
      return "missing image";
    case GapReason::kNoSync:
      return "no sync";
  }
  return "unknown";
}

std::string DescribeEvent(const Event& e) {
  switch (e.kind) {
    case EventKind::kBlock:
      return absl::StrFormat("block 0x%x-0x%x %u insn %s", e.ip, e.last_ip,
                             e.ninsn, BranchKindName(e.branch));
    case EventKind::kGap:
      return absl::StrFormat("gap at offset 0x%x: %s, %u bytes lost (code %d)",
                             e.offset, GapReasonName(e.reason), e.value,
                             static_cast<int32_t>(e.code));
    case EventKind::kExecMode:
      return absl::StrFormat("exec-mode %s", IsaName(e.isa));
    case EventKind::kSample:
      return absl::StrFormat("sample pc=0x%x at offset 0x%x latency %u", e.ip,
                             e.offset, e.value);
    default:
      return absl::StrFormat("%s ip=0x%x value=0x%x", EventKindName(e.kind),
                             e.ip, e.value);
  }
}

}  // namespace hwt
