// The numbers of the Linux perf.data format that the tokenizer and the parser
// share: record types (the kernel's, perf's own user records and
// simpleperf's), feature section ids, perf_event_attr flag and sample_type
// bits, AUX flags and AUXTRACE_INFO types. docs/perf-data.md describes the
// layouts these numbers belong to; all values are little-endian on disk.
#ifndef HWT_CAPTURE_PERF_PERF_FORMAT_H_
#define HWT_CAPTURE_PERF_PERF_FORMAT_H_

#include <cstdint>
#include <string_view>

namespace hwt::capture::perf {

// "PERFILE2" read as a little-endian u64, and the same bytes byte-swapped
// (a file written on a big-endian machine).
inline constexpr uint64_t kMagic = 0x32454c4946524550ull;
inline constexpr uint64_t kMagicSwapped = 0x50455246494c4532ull;
inline constexpr std::string_view kLegacyMagic = "PERFFILE";

inline constexpr uint64_t kFileHeaderSize = 104;  // struct perf_file_header
inline constexpr uint64_t kPipeHeaderSize = 16;   // magic + size
inline constexpr uint64_t kRecordHeaderSize = 8;  // struct perf_event_header
inline constexpr uint64_t kAttrSizeVer0 = 64;     // PERF_ATTR_SIZE_VER0

// Record types written by the kernel.
enum KernelRecord : uint32_t {
  kRecordMmap = 1,
  kRecordLost = 2,
  kRecordComm = 3,
  kRecordExit = 4,
  kRecordThrottle = 5,
  kRecordUnthrottle = 6,
  kRecordFork = 7,
  kRecordRead = 8,
  kRecordSample = 9,
  kRecordMmap2 = 10,
  kRecordAux = 11,
  kRecordItraceStart = 12,
  kRecordLostSamples = 13,
  kRecordSwitch = 14,
  kRecordSwitchCpuWide = 15,
  kRecordNamespaces = 16,
  kRecordKsymbol = 17,
  kRecordBpfEvent = 18,
  kRecordCgroup = 19,
  kRecordTextPoke = 20,
  kRecordAuxOutputHwId = 21,
  kKernelRecordMax = 64,
};

// Record types perf itself writes (user records).
enum UserRecord : uint32_t {
  kRecordHeaderAttr = 64,
  kRecordHeaderEventType = 65,
  kRecordHeaderTracingData = 66,  // followed by its payload
  kRecordHeaderBuildId = 67,
  kRecordFinishedRound = 68,
  kRecordIdIndex = 69,
  kRecordAuxtraceInfo = 70,
  kRecordAuxtrace = 71,  // followed by its payload (the AUX data)
  kRecordAuxtraceError = 72,
  kRecordThreadMap = 73,
  kRecordCpuMap = 74,
  kRecordStatConfig = 75,
  kRecordStat = 76,
  kRecordStatRound = 77,
  kRecordEventUpdate = 78,
  kRecordTimeConv = 79,
  kRecordHeaderFeature = 80,
  kRecordCompressed = 81,
  kRecordFinishedInit = 82,
  kRecordCompressed2 = 83,  // u64 data_size, then zstd data and padding
};

// simpleperf's own record types start here.
inline constexpr uint32_t kSimpleperfRecordStart = 32768;

// Feature section ids (bits of perf_file_header.adds_features).
enum Feature : int {
  kFeatTracingData = 1,
  kFeatBuildId = 2,
  kFeatHostname = 3,
  kFeatOsRelease = 4,
  kFeatVersion = 5,
  kFeatArch = 6,
  kFeatNrCpus = 7,
  kFeatCpuDesc = 8,
  kFeatCpuId = 9,
  kFeatTotalMem = 10,
  kFeatCmdline = 11,
  kFeatEventDesc = 12,
  kFeatCpuTopology = 13,
  kFeatNumaTopology = 14,
  kFeatBranchStack = 15,
  kFeatPmuMappings = 16,
  kFeatGroupDesc = 17,
  kFeatAuxtrace = 18,
  kFeatCompressed = 27,
  // simpleperf's.
  kFeatSimpleperfFile = 128,
  kFeatSimpleperfMetaInfo = 129,
  kFeatSimpleperfDebugUnwind = 130,
  kFeatSimpleperfDebugUnwindFile = 131,
  kFeatSimpleperfFile2 = 132,
  kFeatSimpleperfEtmBranchList = 133,
  kFeatSimpleperfInitMap = 134,
  kFeatureBits = 256,
};

// perf_event_header.misc.
inline constexpr uint16_t kMiscCpumodeMask = 7;
inline constexpr uint16_t kMiscKernel = 1;
inline constexpr uint16_t kMiscUser = 2;
inline constexpr uint16_t kMiscHypervisor = 3;
inline constexpr uint16_t kMiscGuestKernel = 4;
inline constexpr uint16_t kMiscGuestUser = 5;
inline constexpr uint16_t kMiscMmapData = 1 << 13;     // MMAP/MMAP2
inline constexpr uint16_t kMiscCommExec = 1 << 13;     // COMM
inline constexpr uint16_t kMiscSwitchOut = 1 << 13;    // SWITCH*
inline constexpr uint16_t kMiscMmapBuildId = 1 << 14;  // MMAP2
inline constexpr uint16_t kMiscSwitchOutPreempt = 1 << 14;
inline constexpr uint16_t kMiscBuildIdSize = 1 << 15;  // build-id records

// perf_event_attr.sample_type.
enum SampleType : uint64_t {
  kSampleIp = 1ull << 0,
  kSampleTid = 1ull << 1,
  kSampleTime = 1ull << 2,
  kSampleAddr = 1ull << 3,
  kSampleRead = 1ull << 4,
  kSampleCallchain = 1ull << 5,
  kSampleId = 1ull << 6,
  kSampleCpu = 1ull << 7,
  kSamplePeriod = 1ull << 8,
  kSampleStreamId = 1ull << 9,
  kSampleIdentifier = 1ull << 16,
};

// perf_event_attr flag bits (the bit-field word at byte 40).
inline constexpr uint64_t kAttrExcludeUser = 1ull << 4;
inline constexpr uint64_t kAttrExcludeKernel = 1ull << 5;
inline constexpr uint64_t kAttrExcludeHv = 1ull << 6;
inline constexpr uint64_t kAttrSampleIdAll = 1ull << 18;
inline constexpr uint64_t kAttrContextSwitch = 1ull << 26;

// PERF_RECORD_AUX flags.
inline constexpr uint64_t kAuxFlagTruncated = 0x01;
inline constexpr uint64_t kAuxFlagOverwrite = 0x02;
inline constexpr uint64_t kAuxFlagPartial = 0x04;
inline constexpr uint64_t kAuxFlagCollision = 0x08;
inline constexpr uint64_t kAuxFlagPmuFormatMask = 0xff00;
inline constexpr uint64_t kAuxFlagCoreSightRaw = 0x0100;  // unformatted

// auxtrace_info.type.
enum AuxtraceType : uint32_t {
  kAuxtraceUnknown = 0,
  kAuxtraceIntelPt = 1,
  kAuxtraceIntelBts = 2,
  kAuxtraceCsEtm = 3,
  kAuxtraceArmSpe = 4,
  kAuxtraceS390Cpumsf = 5,
  kAuxtraceHisiPtt = 6,
};

// PERF_RECORD_COMPRESSED feature: the only compression type perf writes.
inline constexpr uint32_t kCompressionZstd = 1;

// Names for messages: "MMAP2", "AUXTRACE", "simpleperf record 32770", ...
std::string RecordTypeName(uint32_t type);
std::string FeatureName(int feature);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_FORMAT_H_
