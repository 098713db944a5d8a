// The backend configuration of a perf.data capture, from its AUXTRACE_INFO
// record (Intel PT: TSC/CTC ratio, max non-turbo ratio, snapshot and per-CPU
// mode, filter; CoreSight: per-CPU ETMv3/PTM, ETMv4 and ETE registers;
// SPE: per-CPU MIDR), the attribute of the AUX event (PT's RTIT_CTL
// equivalent, SPE's interval and level) and the CPU identity of the `cpuid`
// feature. Part of the parser.
#ifndef HWT_CAPTURE_PERF_PERF_AUXTRACE_INFO_H_
#define HWT_CAPTURE_PERF_PERF_AUXTRACE_INFO_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "capture/perf/perf_features.h"
#include "capture/perf/perf_records.h"
#include "capture/perf/perf_tokenizer.h"

namespace hwt::capture::perf {

struct AuxtraceSetup {
  Backend backend = Backend::kUnknown;
  uint32_t auxtrace_type = 0;
  uint32_t pmu_type = 0;  // perf_event_attr.type of the AUX event
  bool snapshot = false;
  // Intel PT.
  uint64_t tsc_ctc_numerator = 0;
  uint64_t tsc_ctc_denominator = 0;
  uint64_t max_nonturbo_ratio = 0;
  std::string filter;  // perf's address filter text, e.g. "filter main @ ls"
  // CoreSight: one source per CPU (trace ID from TRCTRACEIDR/ETMTRACEIDR;
  // `trace_id_unused`: the kernel assigns it at run time, see
  // AUX_OUTPUT_HW_ID).
  std::vector<CoreSightSource> sources;
  std::vector<bool> trace_id_unused;
  // SPE (metadata version 2): MIDR per CPU.
  std::map<int32_t, uint64_t> midr_by_cpu;
};

// Decodes an AUXTRACE_INFO record (at `at`, for messages). Unknown AUX types
// (Intel BTS, s390 CPU-MF, HiSilicon PTT) are InvalidArgument naming them.
absl::StatusOr<AuxtraceSetup> DecodeAuxtraceSetup(
    const AuxtraceInfoRecord& info, const PerfOffset& at,
    const std::string& where);

// The CPU identity a `cpuid` feature string gives: "GenuineIntel,6,142,10"
// (x86: vendor, family, model, stepping) or "0x00000000410fd0c0" (arm64
// MIDR_EL1). Unknown forms leave the fields empty.
CpuIdentity CpuFromFeatures(const PerfFeatures& features);

// Fills the manifest's backend configuration: backend, PT config from the
// AUX event's attribute and the setup, CPU clock ratios, CoreSight sources,
// SPE config. `aux_attr` may be null (no attribute of the AUX PMU).
void ApplyAuxtraceSetup(const AuxtraceSetup& setup, const PerfAttr* aux_attr,
                        Manifest* manifest);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_AUXTRACE_INFO_H_
