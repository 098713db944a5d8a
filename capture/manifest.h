// The capture manifest (format version 1): what was traced, on which CPU, with
// which backend configuration, and which buffers hold the raw trace. This is
// the in-memory form; manifest_json.{h,cc} reads and writes it and
// docs/capture-format.md is the specification.
#ifndef HWT_CAPTURE_MANIFEST_H_
#define HWT_CAPTURE_MANIFEST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwt::capture {

inline constexpr int kFormatMajorVersion = 1;
// 1.1 added `labels` (older readers ignore it).
inline constexpr int kFormatMinorVersion = 1;

enum class Backend { kUnknown, kPt, kCoreSight, kSpe };
enum class TraceMode { kThread, kCpu };

// "pt", "coresight", "spe" (the names hwt(4) uses), "unknown".
std::string_view BackendName(Backend backend);
std::optional<Backend> ParseBackend(std::string_view name);
std::string_view TraceModeName(TraceMode mode);

// How record_type values were numbered by the kernel that produced them.
enum class RecordNumbering {
  kUpstream,  // MMAP=0 MUNMAP=1 EXECUTABLE=2 KERNEL=3 THREAD_CREATE=4
              // THREAD_SET_NAME=5 BUFFER=6
  kCheriBsd,  // MMAP MUNMAP EXECUTABLE INTERP=3 THREAD_CREATE THREAD_SET_NAME
              // KERNEL=6
};

// HWT exports no CPU identity; the recorder saves it (libipt needs it for
// errata and timing, OpenCSD/SPE data sources need the MIDR).
struct CpuIdentity {
  std::string arch;    // "x86_64", "aarch64"
  std::string vendor;  // "GenuineIntel", "ARM", ...
  // x86: CPUID family/model/stepping (display values).
  uint32_t family = 0;
  uint32_t model = 0;
  uint32_t stepping = 0;
  // CPUID leaf 0x15: TSC/core crystal clock ratio (eax = denominator,
  // ebx = numerator), ecx = crystal Hz (0 if not enumerated).
  uint32_t cpuid_15_eax = 0;
  uint32_t cpuid_15_ebx = 0;
  uint32_t cpuid_15_ecx = 0;
  uint64_t nominal_frequency_hz = 0;  // 0 = unknown
  // Arm: MIDR_EL1 (0 = unknown).
  uint64_t midr = 0;

  bool has_x86_model() const { return family != 0; }
};

// struct pt_cpu_config as the kernel received it.
struct PtAddressFilter {
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t config = 0;  // ADDRn_CFG: 0 off, 1 filter, 2 trace stop
};
struct PtConfig {
  uint64_t rtit_ctl = 0;
  uint64_t cr3_filter = 0;
  std::vector<PtAddressFilter> address_filters;  // at most 2 on FreeBSD
  uint32_t mtc_freq = 0;
  uint32_t cyc_thresh = 0;
  uint32_t psb_freq = 0;
};

// One ETM/ETE/PTM trace source: which decoder, and its ID/config registers by
// architectural name (TRCIDR0, TRCCONFIGR, ETMCR, ...).
struct CoreSightSource {
  uint32_t trace_id = 0;  // CoreSight trace ID (HWT: buffer index + 1)
  std::optional<int32_t> cpu;
  std::optional<int32_t> thread;
  std::string architecture;  // "etmv3", "ptm", "etmv4", "ete"
  std::string core_profile;  // "A", "R", "M" (etmv4); default "A"
  // Architecture of the traced core, which changes how OpenCSD classifies
  // instructions (v8.3 adds the PAuth returns): "v7", "v8", "v8.3", "aa64"
  // (v8.3 and later). Empty: v7 for etmv3/ptm, v8 for etmv4, aa64 for ete.
  std::string arch_version;
  // The buffer (index into Manifest::buffers) this source writes to; empty:
  // every buffer (HWT: all ETMs feed one ETR).
  std::optional<uint32_t> buffer;
  std::map<std::string, uint64_t> registers;
};
struct CoreSightConfig {
  // "etr", "etf", "etb": 16-byte frames, memory aligned;
  // "tpiu": frames with FSYNCs; "trbe"/"raw": unformatted single source.
  std::string sink = "etr";
  bool formatted = true;
  bool has_fsyncs = false;
  bool has_hsyncs = false;
  bool reset_on_4x_fsync = false;
  std::vector<CoreSightSource> sources;
};

// struct arm_spe_config plus the CPU's MIDR (in CpuIdentity).
struct SpeConfig {
  uint32_t interval = 0;
  uint32_t level = 0;      // 0 kernel+user, 1 kernel, 2 user
  uint32_t ctx_field = 0;  // 0 none, 1 PID, 2 CPU id
};

// A contiguous piece of one buffer's raw file. Decoders treat each chunk as
// continuous trace and resynchronise at chunk boundaries. PT ring buffers that
// wrapped, or SPE half-buffers, are recorded as several chunks.
struct BufferChunk {
  uint64_t offset = 0;  // in the buffer's raw file
  uint64_t size = 0;
  bool data_lost_before = false;  // trace between the previous chunk and this
                                  // one was lost (wrap/overflow/partial)
  bool partial_record = false;    // SPE: the last record may be cut off
  bool final = false;             // SPE: the final buffer of the session
};

struct BufferInfo {
  uint32_t id = 0;  // HWT buffer id: cpu id (CPU mode) or thread index
  std::optional<int32_t> cpu;
  std::optional<int32_t> thread;
  std::string file;   // path relative to the bundle root, or absolute (raw)
  uint64_t size = 0;  // bytes in `file`
  bool wrapped = false;
  bool data_lost = false;
  std::vector<BufferChunk> chunks;  // empty = one chunk covering the file
};

// An image file copied into the bundle, found by build-id (or by path when the
// image has no build-id).
struct BundledImage {
  std::string build_id;       // lowercase hex, may be empty
  std::string original_path;  // path on the traced machine
  std::string file;           // relative to the bundle root
};

// Memory space of a region, as OpenCSD distinguishes them (x86 uses kAny).
enum class MemorySpace {
  kAny,
  kEL1N,
  kEL1S,
  kEL2N,
  kEL2S,
  kEL3,
  kNonSecure,
  kSecure
};
std::string_view MemorySpaceName(MemorySpace space);
std::optional<MemorySpace> ParseMemorySpace(std::string_view name);

// A raw memory image (not an ELF): `size` bytes of `file` from `file_offset`
// were at `address` (OpenCSD snapshot dumps, kernel text dumps).
struct MemoryDump {
  std::string file;  // relative to the bundle root, or absolute
  uint64_t address = 0;
  uint64_t file_offset = 0;
  uint64_t size = 0;  // 0 = to the end of the file
  MemorySpace space = MemorySpace::kAny;
};

struct Manifest {
  int major_version = kFormatMajorVersion;
  // As read. A manifest is written with the lowest minor version that holds
  // it (1.0 without labels), so older readers see no newer version than needed.
  int minor_version = 0;
  Backend backend = Backend::kUnknown;
  TraceMode mode = TraceMode::kThread;
  RecordNumbering record_numbering = RecordNumbering::kUpstream;
  std::optional<int64_t> pid;  // traced process (thread mode)
  std::string command;         // what was traced, for humans
  std::string hostname;
  std::string os;        // e.g. "FreeBSD 15.0-RELEASE amd64"
  std::string created;   // RFC 3339 time
  std::string recorder;  // tool that wrote the bundle
  // The user's own tags (hwt-emulate --label KEY=VALUE): what a batch can
  // group by (hwt-batch run --group-by KEY). Since format 1.1.
  std::map<std::string, std::string> labels;
  CpuIdentity cpu;
  std::optional<PtConfig> pt;
  std::optional<CoreSightConfig> coresight;
  std::optional<SpeConfig> spe;
  std::vector<BufferInfo> buffers;
  std::vector<BundledImage> images;
  std::vector<MemoryDump> memory;
  // Problems found when the capture was converted from another format
  // (hwt-import of a perf.data file: truncation, lost AUX data), each naming
  // where; readers report them as the importer did. Readers that predate it
  // ignore it.
  std::vector<std::string> import_problems;
};

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_MANIFEST_H_
