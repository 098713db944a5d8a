// Names of perf.data record types and feature sections, for messages.
#include "capture/perf/perf_format.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hwt::capture::perf {
namespace {

constexpr const char* kKernelNames[] = {nullptr,        "MMAP",
                                        "LOST",         "COMM",
                                        "EXIT",         "THROTTLE",
                                        "UNTHROTTLE",   "FORK",
                                        "READ",         "SAMPLE",
                                        "MMAP2",        "AUX",
                                        "ITRACE_START", "LOST_SAMPLES",
                                        "SWITCH",       "SWITCH_CPU_WIDE",
                                        "NAMESPACES",   "KSYMBOL",
                                        "BPF_EVENT",    "CGROUP",
                                        "TEXT_POKE",    "AUX_OUTPUT_HW_ID"};

constexpr const char* kUserNames[] = {"HEADER_ATTR",
                                      "HEADER_EVENT_TYPE",
                                      "HEADER_TRACING_DATA",
                                      "HEADER_BUILD_ID",
                                      "FINISHED_ROUND",
                                      "ID_INDEX",
                                      "AUXTRACE_INFO",
                                      "AUXTRACE",
                                      "AUXTRACE_ERROR",
                                      "THREAD_MAP",
                                      "CPU_MAP",
                                      "STAT_CONFIG",
                                      "STAT",
                                      "STAT_ROUND",
                                      "EVENT_UPDATE",
                                      "TIME_CONV",
                                      "HEADER_FEATURE",
                                      "COMPRESSED",
                                      "FINISHED_INIT",
                                      "COMPRESSED2"};

constexpr const char* kFeatureNames[] = {"RESERVED",
                                         "TRACING_DATA",
                                         "BUILD_ID",
                                         "HOSTNAME",
                                         "OSRELEASE",
                                         "VERSION",
                                         "ARCH",
                                         "NRCPUS",
                                         "CPUDESC",
                                         "CPUID",
                                         "TOTAL_MEM",
                                         "CMDLINE",
                                         "EVENT_DESC",
                                         "CPU_TOPOLOGY",
                                         "NUMA_TOPOLOGY",
                                         "BRANCH_STACK",
                                         "PMU_MAPPINGS",
                                         "GROUP_DESC",
                                         "AUXTRACE",
                                         "STAT",
                                         "CACHE",
                                         "SAMPLE_TIME",
                                         "MEM_TOPOLOGY",
                                         "CLOCKID",
                                         "DIR_FORMAT",
                                         "BPF_PROG_INFO",
                                         "BPF_BTF",
                                         "COMPRESSED",
                                         "CPU_PMU_CAPS",
                                         "CLOCK_DATA",
                                         "HYBRID_TOPOLOGY",
                                         "PMU_CAPS"};

}  // namespace

std::string RecordTypeName(uint32_t type) {
  constexpr uint32_t kKernelCount = sizeof(kKernelNames) / sizeof(char*);
  constexpr uint32_t kUserCount = sizeof(kUserNames) / sizeof(char*);
  if (type > 0 && type < kKernelCount) return kKernelNames[type];
  if (type >= kRecordHeaderAttr && type < kRecordHeaderAttr + kUserCount) {
    return kUserNames[type - kRecordHeaderAttr];
  }
  if (type >= kSimpleperfRecordStart) {
    return absl::StrCat("simpleperf record ", type);
  }
  return absl::StrCat("record type ", type);
}

std::string FeatureName(int feature) {
  constexpr int kCount = sizeof(kFeatureNames) / sizeof(char*);
  if (feature >= 0 && feature < kCount) return kFeatureNames[feature];
  switch (feature) {
    case kFeatSimpleperfFile:
      return "simpleperf FILE";
    case kFeatSimpleperfMetaInfo:
      return "simpleperf META_INFO";
    case kFeatSimpleperfFile2:
      return "simpleperf FILE2";
    default:
      return absl::StrCat("feature ", feature);
  }
}

}  // namespace hwt::capture::perf
