// AUXTRACE_INFO decoding and the backend configuration it gives; see
// perf_auxtrace_info.h. The word layouts are perf's (tools/perf/util/
// intel-pt.h, cs-etm.h, arm-spe.h), summarised in docs/perf-data.md.
#include "capture/perf/perf_auxtrace_info.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "capture/perf/perf_format.h"

namespace hwt::capture::perf {
namespace {

// Intel PT: word indices of its AUXTRACE_INFO.
enum : size_t {
  kPtPmuType = 0,
  kPtSnapshotMode = 8,
  kPtPerCpuMmaps = 9,
  kPtTscCtcN = 12,
  kPtTscCtcD = 13,
  kPtMaxNonTurboRatio = 15,
  kPtFilterStrLen = 16,
  kPtWords = 17,
};

// CoreSight: per-CPU block magics and the register names of each block, in
// the order perf stores them.
constexpr uint64_t kEtmV3Magic = 0x3030303030303030ull;
constexpr uint64_t kEtmV4Magic = 0x4040404040404040ull;
constexpr uint64_t kEteMagic = 0x5050505050505050ull;
constexpr const char* kEtmV3Regs[] = {"ETMCR", "ETMTRACEIDR", "ETMCCER",
                                      "ETMIDR"};
constexpr const char* kEtmV4Regs[] = {"TRCCONFIGR",   "TRCTRACEIDR", "TRCIDR0",
                                      "TRCIDR1",      "TRCIDR2",     "TRCIDR8",
                                      "TRCAUTHSTATUS"};
constexpr const char* kEteRegs[] = {"TRCCONFIGR",    "TRCTRACEIDR", "TRCIDR0",
                                    "TRCIDR1",       "TRCIDR2",     "TRCIDR8",
                                    "TRCAUTHSTATUS", "TRCDEVARCH"};
// ETMIDR[11:8] == 3 ... : PTM (perf's ETMIDR_PTM_VERSION test).
constexpr uint64_t kEtmIdrPtmVersion = 0x300;
// TRCTRACEIDR in the metadata of kernels that assign trace IDs at run time.
constexpr uint64_t kTraceIdUnusedFlag = 1ull << 31;

// SPE metadata version 2.
constexpr uint64_t kSpeCpuMagic = 0x1010101010101010ull;

// RTIT_CTL bits that the intel_pt PMU's config bits match one to one:
// CYCEn, PwrEvtEn, FUPonPTW, MTCEn, TSCEn, DisRETC, PTWEn, BranchEn,
// MTCFreq, CycThresh, PSBFreq, EventEn, DisTNT.
constexpr uint64_t kRtitConfigMask =
    (1ull << 1) | (1ull << 4) | (1ull << 5) | (0x1full << 9) | (0xfull << 14) |
    (0xfull << 19) | (0xfull << 24) | (1ull << 31) | (1ull << 55);
constexpr uint64_t kRtitTraceEn = 1ull << 0;
constexpr uint64_t kRtitOs = 1ull << 2;
constexpr uint64_t kRtitUser = 1ull << 3;
constexpr uint64_t kNominalRatioHz = 100'000'000;

absl::Status Bad(const PerfOffset& at, const std::string& where,
                 const std::string& what) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %s: AUXTRACE_INFO: %s", where, DescribeOffset(at), what));
}

absl::Status DecodePt(const AuxtraceInfoRecord& info, const PerfOffset& at,
                      const std::string& where, AuxtraceSetup* out) {
  const auto& w = info.priv;
  if (w.size() < kPtFilterStrLen) {
    return Bad(at, where,
               absl::StrFormat("Intel PT information of %u words (needs %u)",
                               w.size(), size_t{kPtFilterStrLen}));
  }
  out->backend = Backend::kPt;
  out->pmu_type = static_cast<uint32_t>(w[kPtPmuType]);
  out->snapshot = w[kPtSnapshotMode] != 0;
  out->tsc_ctc_numerator = w[kPtTscCtcN];
  out->tsc_ctc_denominator = w[kPtTscCtcD];
  out->max_nonturbo_ratio = w[kPtMaxNonTurboRatio];
  if (w.size() > kPtFilterStrLen && w[kPtFilterStrLen] > 0) {
    const uint64_t len = w[kPtFilterStrLen];
    const size_t words = (len + 8) / 8;
    if (len < 1u << 20 && w.size() >= kPtWords + words) {
      std::string text(reinterpret_cast<const char*>(&w[kPtWords]), len);
      out->filter = text.substr(0, text.find('\0'));
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeCoreSight(const AuxtraceInfoRecord& info,
                             const PerfOffset& at, const std::string& where,
                             AuxtraceSetup* out) {
  const auto& w = info.priv;
  if (w.size() < 3) return Bad(at, where, "CoreSight header cut short");
  const uint64_t version = w[0];
  if (version > 1) {
    return Bad(at, where,
               absl::StrFormat("CoreSight header version %u (1 is the "
                               "newest this reader knows)",
                               version));
  }
  out->backend = Backend::kCoreSight;
  out->pmu_type = static_cast<uint32_t>(w[1] >> 32);
  const uint64_t cpus = w[1] & 0xffffffffu;
  out->snapshot = w[2] != 0;
  size_t pos = 3;
  for (uint64_t i = 0; i < cpus; ++i) {
    if (pos + 2 > w.size()) {
      return Bad(at, where,
                 absl::StrFormat("CPU block %u of %u cut short", i, cpus));
    }
    const uint64_t magic = w[pos];
    CoreSightSource source;
    source.cpu = static_cast<int32_t>(w[pos + 1]);
    const char* const* names = nullptr;
    size_t known = 0;
    if (magic == kEtmV3Magic) {
      names = kEtmV3Regs;
      known = 4;
      source.architecture = "etmv3";
    } else if (magic == kEtmV4Magic) {
      names = kEtmV4Regs;
      known = 7;
      source.architecture = "etmv4";
    } else if (magic == kEteMagic && version >= 1) {
      names = kEteRegs;
      known = 8;
      source.architecture = "ete";
    } else {
      return Bad(at, where,
                 absl::StrFormat("CPU block %u: unknown magic "
                                 "0x%x at word %u",
                                 i, magic, pos));
    }
    size_t params = known;
    size_t first = pos + 2;
    if (version >= 1) {
      if (pos + 3 > w.size()) return Bad(at, where, "CPU block cut short");
      params = static_cast<size_t>(w[pos + 2]);
      first = pos + 3;
    }
    if (params < 2 || params > 64 || first + params > w.size()) {
      return Bad(at, where,
                 absl::StrFormat("CPU block %u: %u parameters do "
                                 "not fit",
                                 i, params));
    }
    for (size_t k = 0; k < std::min(params, known); ++k) {
      source.registers[names[k]] = w[first + k];
    }
    const std::string id_name =
        source.architecture == "etmv3" ? "ETMTRACEIDR" : "TRCTRACEIDR";
    const uint64_t traceidr = source.registers[id_name];
    out->trace_id_unused.push_back((traceidr & kTraceIdUnusedFlag) != 0);
    source.registers[id_name] = traceidr & 0x7f;
    source.trace_id = static_cast<uint32_t>(traceidr & 0x7f);
    if (source.architecture == "etmv3" &&
        (source.registers["ETMIDR"] & kEtmIdrPtmVersion) == kEtmIdrPtmVersion) {
      source.architecture = "ptm";
    }
    out->sources.push_back(std::move(source));
    pos = first + params;
  }
  return absl::OkStatus();
}

absl::Status DecodeSpe(const AuxtraceInfoRecord& info, const PerfOffset& at,
                       const std::string& where, AuxtraceSetup* out) {
  const auto& w = info.priv;
  out->backend = Backend::kSpe;
  if (w.empty()) return Bad(at, where, "SPE information is empty");
  if (w.size() == 2 || w[0] != 2) {  // version 1: PMU type, per-CPU mmaps
    out->pmu_type = static_cast<uint32_t>(w[0]);
    return absl::OkStatus();
  }
  if (w.size() < 4 || w[1] < 4 || w[1] > w.size()) {
    return Bad(at, where, "SPE metadata header cut short");
  }
  out->pmu_type = static_cast<uint32_t>(w[2]);
  size_t pos = static_cast<size_t>(w[1]);
  for (uint64_t i = 0; i < w[3]; ++i) {
    if (pos + 4 > w.size() || w[pos] != kSpeCpuMagic) {
      return Bad(at, where, absl::StrFormat("SPE CPU block %u malformed", i));
    }
    const uint64_t params = w[pos + 2];
    if (params < 1 || params > 64 || pos + 3 + params > w.size()) {
      return Bad(at, where, absl::StrFormat("SPE CPU block %u cut short", i));
    }
    out->midr_by_cpu[static_cast<int32_t>(w[pos + 1])] = w[pos + 3];
    pos += 3 + params;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AuxtraceSetup> DecodeAuxtraceSetup(
    const AuxtraceInfoRecord& info, const PerfOffset& at,
    const std::string& where) {
  AuxtraceSetup setup;
  setup.auxtrace_type = info.type;
  switch (info.type) {
    case kAuxtraceIntelPt:
      HWT_RETURN_IF_ERROR(DecodePt(info, at, where, &setup));
      break;
    case kAuxtraceCsEtm:
      HWT_RETURN_IF_ERROR(DecodeCoreSight(info, at, where, &setup));
      break;
    case kAuxtraceArmSpe:
      HWT_RETURN_IF_ERROR(DecodeSpe(info, at, where, &setup));
      break;
    default: {
      const char* name = info.type == kAuxtraceIntelBts     ? "Intel BTS"
                         : info.type == kAuxtraceS390Cpumsf ? "s390 CPU-MF"
                         : info.type == kAuxtraceHisiPtt    ? "HiSilicon PTT"
                                                            : "unknown";
      return Bad(at, where,
                 absl::StrFormat("AUX area type %u (%s) is not a trace this "
                                 "toolkit decodes (Intel PT, CoreSight ETM/"
                                 "ETE and Arm SPE are)",
                                 info.type, name));
    }
  }
  return setup;
}

CpuIdentity CpuFromFeatures(const PerfFeatures& features) {
  CpuIdentity cpu;
  cpu.arch = features.arch;
  const std::string& id = features.cpuid;
  std::vector<std::string> parts = absl::StrSplit(id, ',');
  uint32_t family = 0, model = 0, stepping = 0;
  if (parts.size() >= 3 && absl::SimpleAtoi(parts[1], &family) &&
      absl::SimpleAtoi(parts[2], &model)) {
    cpu.vendor = parts[0];
    cpu.family = family;
    cpu.model = model;
    if (parts.size() >= 4 && absl::SimpleAtoi(parts[3], &stepping)) {
      cpu.stepping = stepping;
    }
    if (cpu.arch.empty()) cpu.arch = "x86_64";
  } else if (id.size() > 2 && id[0] == '0' && (id[1] == 'x' || id[1] == 'X')) {
    uint64_t midr = 0;
    if (absl::SimpleHexAtoi(id.substr(2), &midr)) {
      cpu.midr = midr;
      cpu.vendor = "ARM";
      if (cpu.arch.empty()) cpu.arch = "aarch64";
    }
  }
  return cpu;
}

void ApplyAuxtraceSetup(const AuxtraceSetup& setup, const PerfAttr* aux_attr,
                        Manifest* manifest) {
  manifest->backend = setup.backend;
  const uint64_t config = aux_attr ? aux_attr->config : 0;
  const uint64_t flags = aux_attr ? aux_attr->flags : 0;
  switch (setup.backend) {
    case Backend::kPt: {
      PtConfig& pt = manifest->pt.emplace();
      pt.rtit_ctl = (config & kRtitConfigMask) | kRtitTraceEn;
      if (!(flags & kAttrExcludeKernel)) pt.rtit_ctl |= kRtitOs;
      if (!(flags & kAttrExcludeUser)) pt.rtit_ctl |= kRtitUser;
      pt.mtc_freq = static_cast<uint32_t>((config >> 14) & 0xf);
      pt.cyc_thresh = static_cast<uint32_t>((config >> 19) & 0xf);
      pt.psb_freq = static_cast<uint32_t>((config >> 24) & 0xf);
      CpuIdentity& cpu = manifest->cpu;
      if (setup.tsc_ctc_denominator != 0 && cpu.cpuid_15_eax == 0) {
        cpu.cpuid_15_eax = static_cast<uint32_t>(setup.tsc_ctc_denominator);
        cpu.cpuid_15_ebx = static_cast<uint32_t>(setup.tsc_ctc_numerator);
      }
      if (setup.max_nonturbo_ratio != 0 && cpu.nominal_frequency_hz == 0) {
        cpu.nominal_frequency_hz = setup.max_nonturbo_ratio * kNominalRatioHz;
      }
      if (cpu.arch.empty()) cpu.arch = "x86_64";
      break;
    }
    case Backend::kCoreSight: {
      CoreSightConfig& cs = manifest->coresight.emplace();
      cs.sources = setup.sources;
      if (manifest->cpu.arch.empty()) manifest->cpu.arch = "aarch64";
      break;
    }
    case Backend::kSpe: {
      SpeConfig& spe = manifest->spe.emplace();
      spe.interval = static_cast<uint32_t>(
          aux_attr ? std::min<uint64_t>(aux_attr->sample_period, 0xffffffffu)
                   : 0);
      const bool no_kernel = flags & kAttrExcludeKernel;
      const bool no_user = flags & kAttrExcludeUser;
      spe.level = no_user && !no_kernel ? 1 : no_kernel && !no_user ? 2 : 0;
      if (manifest->cpu.midr == 0 && !setup.midr_by_cpu.empty()) {
        manifest->cpu.midr = setup.midr_by_cpu.begin()->second;
      }
      if (manifest->cpu.arch.empty()) manifest->cpu.arch = "aarch64";
      break;
    }
    case Backend::kUnknown:
      break;
  }
}

}  // namespace hwt::capture::perf
