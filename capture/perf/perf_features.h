// Decodes perf.data feature sections (perf's and simpleperf's) into values:
// build-ids, host and OS, CPU identity (`cpuid`), CPU count, command line,
// PMU names, event names, compression. Part of the tokenizer. No feature is
// required: real writers omit most of them (simpleperf writes only build-ids,
// OS release, arch, cmdline and its META_INFO), so the parser only uses what
// is there.
#ifndef HWT_CAPTURE_PERF_PERF_FEATURES_H_
#define HWT_CAPTURE_PERF_PERF_FEATURES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace hwt::capture::perf {

struct BuildIdEntry {
  int32_t pid = -1;
  uint16_t cpumode = 0;  // misc & kMiscCpumodeMask
  // Lowercase hex. Entries written without their size (perf before 5.11,
  // simpleperf) hold 20 bytes with trailing zero bytes removed.
  std::string build_id;
  std::string filename;
  uint64_t offset = 0;
};

struct EventDesc {
  std::string name;  // e.g. "intel_pt//u", "cs_etm/@tmc_etr0/"
  std::vector<uint64_t> ids;
};

struct PerfFeatures {
  std::vector<int> present;  // every feature section seen
  std::string hostname;
  std::string os_release;
  std::string version;
  std::string arch;
  std::string cpu_desc;
  std::string cpuid;  // x86 "GenuineIntel,6,142,10"; arm64 "0x...410fd0c0"
  std::optional<uint32_t> nr_cpus_available;
  std::optional<uint32_t> nr_cpus_online;
  std::vector<std::string> cmdline;
  std::vector<BuildIdEntry> build_ids;
  std::map<uint32_t, std::string> pmu_mappings;  // attr.type -> PMU name
  std::vector<EventDesc> events;
  std::optional<uint32_t> compression_type;
  std::map<std::string, std::string> simpleperf_meta;
};

// Decodes one feature section (`data`, at file offset `offset`) into `out`.
// Unknown features are only noted in `present`. Errors (InvalidArgument)
// name the feature and the offset; the importer reports them as warnings, a
// bad optional section does not make the file unreadable.
absl::Status DecodeFeature(int feature, absl::Span<const uint8_t> data,
                           uint64_t offset, const std::string& where,
                           PerfFeatures* out);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_FEATURES_H_
