// Register-to-config mapping for the four OpenCSD program-flow decoders.
#include "decoders/coresight/ocsd_config.h"

#include <optional>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace hwt::coresight {
namespace {

struct RegisterSpec {
  const char* name;
  bool required;
  uint32_t default_value;
  uint32_t* out;
};

absl::Status ReadRegisters(const capture::CoreSightSource& source,
                           const std::string& description,
                           std::initializer_list<RegisterSpec> specs) {
  for (const RegisterSpec& spec : specs) {
    auto it = source.registers.find(spec.name);
    if (it == source.registers.end()) {
      if (spec.required) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "CoreSight %s: register %s missing (OpenCSD's %s decoder needs "
            "it; the recorder must save it)",
            description, spec.name, source.architecture));
      }
      *spec.out = spec.default_value;
      continue;
    }
    if (it->second > 0xffffffffu) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "CoreSight %s: register %s = 0x%x does not fit in 32 bits",
          description, spec.name, it->second));
    }
    *spec.out = static_cast<uint32_t>(it->second);
  }
  return absl::OkStatus();
}

absl::StatusOr<ocsd_arch_version_t> ArchVersion(
    const capture::CoreSightSource& source, const std::string& description) {
  const std::string& v = source.arch_version;
  if (v.empty()) {
    if (source.architecture == "etmv3" || source.architecture == "ptm") {
      return ARCH_V7;
    }
    if (source.architecture == "ete") return ARCH_AA64;
    return ARCH_V8;
  }
  if (v == "v7") return ARCH_V7;
  if (v == "v8") return ARCH_V8;
  if (v == "v8.3") return ARCH_V8r3;
  if (v == "aa64") return ARCH_AA64;
  return absl::InvalidArgumentError(absl::StrFormat(
      "CoreSight %s: unknown core architecture version '%s' (expected v7, "
      "v8, v8.3 or aa64)",
      description, v));
}

absl::StatusOr<ocsd_core_profile_t> CoreProfile(
    const capture::CoreSightSource& source, const std::string& description) {
  const std::string& p = source.core_profile;
  if (p.empty() || p == "A") return profile_CortexA;
  if (p == "R") return profile_CortexR;
  if (p == "M") return profile_CortexM;
  return absl::InvalidArgumentError(absl::StrFormat(
      "CoreSight %s: unknown core profile '%s' (expected A, R or M)",
      description, p));
}

// The trace ID register and the manifest's trace_id must agree; either one
// alone is enough.
absl::StatusOr<uint32_t> TraceIdRegisterValue(
    const capture::CoreSightSource& source, const char* reg_name,
    const std::string& description) {
  auto it = source.registers.find(reg_name);
  if (it == source.registers.end()) return source.trace_id;
  uint32_t from_register = static_cast<uint32_t>(it->second & 0x7f);
  if (source.trace_id != 0 && from_register != source.trace_id) {
    return absl::InvalidArgumentError(
        absl::StrFormat("CoreSight %s: trace ID 0x%x disagrees with %s = 0x%x",
                        description, source.trace_id, reg_name, it->second));
  }
  return static_cast<uint32_t>(it->second);
}

// OpenCSD 1.3.3's ETMv4/ETE instruction decoder refuses these TRCCONFIGR
// settings (TrcPktDecodeEtmV4I::onProtocolConfig) and then fails on the
// first byte with "no decoder configuration": say so before decoding.
absl::Status CheckEtmv4Config(uint32_t configr, const std::string& d) {
  auto unsupported = [&](const char* what, const char* field) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "CoreSight %s: TRCCONFIGR = 0x%x enables %s (%s), which OpenCSD's "
        "instruction trace decoder does not support",
        d, configr, what, field));
  };
  if (configr & 0x30000) return unsupported("data trace", "DA/DV, bits 17:16");
  if (configr & 0x6)
    return unsupported("load/store P0 elements", "INSTP0, bits 2:1");
  if (configr & 0x700) {
    return unsupported("conditional instruction tracing", "COND, bits 10:8");
  }
  return absl::OkStatus();
}

// What OpenCSD's ETE configuration class makes of `ete` for its ETMv4
// classes: the registers the two share, TRCIDR9-13 zero, and the major and
// minor version (TRCIDR1 bits 11:8 and 7:4 for ETMv4) from TRCDEVARCH bits
// 15:12 and 19:16.
ocsd_etmv4_cfg Etmv4EquivalentOfEte(const ocsd_ete_cfg& ete) {
  ocsd_etmv4_cfg cfg{};
  cfg.reg_idr0 = ete.reg_idr0;
  const uint32_t major = (ete.reg_devarch >> 12) & 0xf;
  const uint32_t minor = (ete.reg_devarch >> 16) & 0xf;
  cfg.reg_idr1 = (ete.reg_idr1 & ~0xff0u) | (major << 8) | (minor << 4);
  cfg.reg_idr2 = ete.reg_idr2;
  cfg.reg_idr8 = ete.reg_idr8;
  cfg.reg_configr = ete.reg_configr;
  cfg.reg_traceidr = ete.reg_traceidr;
  cfg.arch_ver = ete.arch_ver;
  cfg.core_prof = ete.core_prof;
  return cfg;
}

}  // namespace

const void* SourceDecoderConfig::config_ptr() const {
  return std::visit([](const auto& c) -> const void* { return &c; }, config);
}

absl::StatusOr<SourceDecoderConfig> MakeSourceDecoderConfig(
    const capture::CoreSightSource& source, size_t index) {
  SourceDecoderConfig out;
  out.architecture = source.architecture;
  out.description = absl::StrFormat("source %u (%s, trace ID 0x%x", index,
                                    source.architecture, source.trace_id);
  if (source.cpu) out.description += absl::StrFormat(", cpu %d", *source.cpu);
  if (source.thread) {
    out.description += absl::StrFormat(", thread %d", *source.thread);
  }
  out.description += ")";
  const std::string& d = out.description;
  HWT_ASSIGN_OR_RETURN(ocsd_arch_version_t arch, ArchVersion(source, d));
  HWT_ASSIGN_OR_RETURN(ocsd_core_profile_t profile, CoreProfile(source, d));

  if (source.architecture == "etmv3" || source.architecture == "ptm") {
    uint32_t idr = 0, ctrl = 0, ccer = 0;
    HWT_RETURN_IF_ERROR(ReadRegisters(source, d,
                                      {{"ETMIDR", true, 0, &idr},
                                       {"ETMCR", true, 0, &ctrl},
                                       {"ETMCCER", true, 0, &ccer}}));
    HWT_ASSIGN_OR_RETURN(uint32_t trc_id,
                         TraceIdRegisterValue(source, "ETMTRACEIDR", d));
    out.trace_id = static_cast<uint8_t>(trc_id & 0x7f);
    if (source.architecture == "etmv3") {
      ocsd_etmv3_cfg cfg{};
      cfg.reg_idr = idr;
      cfg.reg_ctrl = ctrl;
      cfg.reg_ccer = ccer;
      cfg.reg_trc_id = trc_id;
      cfg.arch_ver = arch;
      cfg.core_prof = profile;
      out.config = cfg;
      out.decoder_name = OCSD_BUILTIN_DCD_ETMV3;
      out.protocol = OCSD_PROTOCOL_ETMV3;
    } else {
      ocsd_ptm_cfg cfg{};
      cfg.reg_idr = idr;
      cfg.reg_ctrl = ctrl;
      cfg.reg_ccer = ccer;
      cfg.reg_trc_id = trc_id;
      cfg.arch_ver = arch;
      cfg.core_prof = profile;
      out.config = cfg;
      out.decoder_name = OCSD_BUILTIN_DCD_PTM;
      out.protocol = OCSD_PROTOCOL_PTM;
    }
    return out;
  }

  if (source.architecture == "etmv4") {
    ocsd_etmv4_cfg cfg{};
    HWT_RETURN_IF_ERROR(
        ReadRegisters(source, d,
                      {{"TRCCONFIGR", true, 0, &cfg.reg_configr},
                       {"TRCIDR0", true, 0, &cfg.reg_idr0},
                       {"TRCIDR1", false, 0x4100F403, &cfg.reg_idr1},
                       {"TRCIDR2", true, 0, &cfg.reg_idr2},
                       {"TRCIDR8", false, 0, &cfg.reg_idr8},
                       {"TRCIDR9", false, 0, &cfg.reg_idr9},
                       {"TRCIDR10", false, 0, &cfg.reg_idr10},
                       {"TRCIDR11", false, 0, &cfg.reg_idr11},
                       {"TRCIDR12", false, 0, &cfg.reg_idr12},
                       {"TRCIDR13", false, 0, &cfg.reg_idr13}}));
    HWT_ASSIGN_OR_RETURN(cfg.reg_traceidr,
                         TraceIdRegisterValue(source, "TRCTRACEIDR", d));
    HWT_RETURN_IF_ERROR(CheckEtmv4Config(cfg.reg_configr, d));
    cfg.arch_ver = arch;
    cfg.core_prof = profile;
    out.trace_id = static_cast<uint8_t>(cfg.reg_traceidr & 0x7f);
    out.max_speculation = cfg.reg_idr8;
    out.config = cfg;
    out.decoder_name = OCSD_BUILTIN_DCD_ETMV4I;
    out.protocol = OCSD_PROTOCOL_ETMV4I;
    return out;
  }

  if (source.architecture == "ete") {
    ocsd_ete_cfg cfg{};
    HWT_RETURN_IF_ERROR(
        ReadRegisters(source, d,
                      {{"TRCCONFIGR", true, 0, &cfg.reg_configr},
                       {"TRCIDR0", true, 0, &cfg.reg_idr0},
                       {"TRCIDR1", false, 0x4100F403, &cfg.reg_idr1},
                       {"TRCIDR2", true, 0, &cfg.reg_idr2},
                       {"TRCIDR8", false, 0, &cfg.reg_idr8},
                       {"TRCDEVARCH", false, 0x47705A13, &cfg.reg_devarch}}));
    HWT_ASSIGN_OR_RETURN(cfg.reg_traceidr,
                         TraceIdRegisterValue(source, "TRCTRACEIDR", d));
    HWT_RETURN_IF_ERROR(CheckEtmv4Config(cfg.reg_configr, d));
    cfg.arch_ver = arch;
    cfg.core_prof = profile;
    out.trace_id = static_cast<uint8_t>(cfg.reg_traceidr & 0x7f);
    out.max_speculation = cfg.reg_idr8;
    out.etmv4_equivalent = Etmv4EquivalentOfEte(cfg);
    out.config = cfg;
    out.decoder_name = OCSD_BUILTIN_DCD_ETE;
    out.protocol = OCSD_PROTOCOL_ETE;
    return out;
  }

  return absl::InvalidArgumentError(absl::StrFormat(
      "CoreSight %s: unknown trace source architecture '%s' (expected etmv3, "
      "ptm, etmv4 or ete)",
      d, source.architecture));
}

uint32_t DeformatterFlags(const capture::CoreSightConfig& cs) {
  if (cs.has_fsyncs || cs.has_hsyncs) {
    uint32_t flags = OCSD_DFRMTR_HAS_FSYNCS;
    if (cs.has_hsyncs) flags |= OCSD_DFRMTR_HAS_HSYNCS;
    return flags;
  }
  uint32_t flags = OCSD_DFRMTR_FRAME_MEM_ALIGN;
  if (cs.reset_on_4x_fsync) flags |= OCSD_DFRMTR_RESET_ON_4X_FSYNC;
  return flags;
}

}  // namespace hwt::coresight
