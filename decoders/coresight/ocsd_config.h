// Builds OpenCSD's per-source decoder configuration (ocsd_etmv3_cfg,
// ocsd_ptm_cfg, ocsd_etmv4_cfg, ocsd_ete_cfg) from a manifest's CoreSight
// source: the ID and configuration registers by name, the core architecture
// and profile, and the trace ID. Required and defaulted registers follow
// OpenCSD's own snapshot loader, so a snapshot decodes as trc_pkt_lister
// decodes it.
#ifndef HWT_DECODERS_CORESIGHT_OCSD_CONFIG_H_
#define HWT_DECODERS_CORESIGHT_OCSD_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::coresight {

struct SourceDecoderConfig {
  const char* decoder_name = nullptr;  // OCSD_BUILTIN_DCD_*
  ocsd_trace_protocol_t protocol = OCSD_PROTOCOL_UNKNOWN;
  std::variant<ocsd_etmv3_cfg, ocsd_ptm_cfg, ocsd_etmv4_cfg, ocsd_ete_cfg>
      config;
  uint8_t trace_id = 0;      // CSID the decoder will report (TRACEIDR & 0x7f)
  std::string architecture;  // as in the manifest, for messages
  std::string description;   // "source 0 (etmv4, trace ID 0x10, cpu 0)"
  // ETMv4 and ETE: TRCIDR8.MAXSPEC, the most P0 elements that may be
  // speculative at once. 0: none, so no packet can cancel or mispredict one.
  uint32_t max_speculation = 0;
  // ETE only: the same source as an ETMv4 instruction-trace configuration.
  // OpenCSD decodes ETE with its ETMv4 packet processor and decoder (only
  // the configuration class differs: it takes the version from TRCDEVARCH),
  // and its C API attaches a packet monitor to the ETMv4 decoder only; so a
  // decode creates ETE sources as ETMv4 with this configuration.
  std::optional<ocsd_etmv4_cfg> etmv4_equivalent;

  const void* config_ptr() const;
};

// The frame deformatter's flags (OCSD_DFRMTR_*) for the capture's trace
// sink: frame syncs when the sink writes them, else memory-aligned frames.
uint32_t DeformatterFlags(const capture::CoreSightConfig& cs);

// Validates `source` (number `index` in the manifest) and builds its
// decoder configuration. Errors (InvalidArgument) name the source and the
// missing or inconsistent register.
absl::StatusOr<SourceDecoderConfig> MakeSourceDecoderConfig(
    const capture::CoreSightSource& source, size_t index);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_OCSD_CONFIG_H_
