// Decodes the bodies of the perf.data records the importer uses into plain
// values: the sideband (MMAP, MMAP2, COMM, FORK, EXIT, ITRACE_START, SWITCH,
// SWITCH_CPU_WIDE, AUX, LOST, AUX_OUTPUT_HW_ID), the AUX area records perf
// writes (AUXTRACE_INFO, AUXTRACE, AUXTRACE_ERROR), TIME_CONV and ID_INDEX,
// and the sample_id fields (pid/tid, time, id, cpu) that follow a record when
// its event has sample_id_all. Part of the tokenizer: bytes to values, every
// error naming the record's offset.
#ifndef HWT_CAPTURE_PERF_PERF_RECORDS_H_
#define HWT_CAPTURE_PERF_PERF_RECORDS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "capture/perf/perf_tokenizer.h"

namespace hwt::capture::perf {

// The sample_id fields of a record (each present when its event's
// sample_type asks for it).
struct SampleId {
  std::optional<uint32_t> pid;
  std::optional<uint32_t> tid;
  std::optional<uint64_t> time;
  std::optional<uint64_t> id;
  std::optional<uint32_t> cpu;
};

// Knows every attribute's sample_type and finds which attribute a record
// belongs to (by its event id, as perf does), so that sample_id trailers and
// SAMPLE records can be read.
class SampleIdReader {
 public:
  void AddAttr(const PerfAttr& attr);
  // The trailer of a non-SAMPLE record (empty when its event has no
  // sample_id_all).
  SampleId Trailer(absl::Span<const uint8_t> body) const;
  // The leading fields of a SAMPLE record (IDENTIFIER, IP, TID, TIME, ADDR,
  // ID, STREAM_ID, CPU).
  SampleId FromSample(absl::Span<const uint8_t> body) const;
  // Bytes the trailer of `body` takes (0 without sample_id_all).
  size_t TrailerSize(absl::Span<const uint8_t> body) const;

 private:
  const PerfAttr* AttrForTrailer(absl::Span<const uint8_t> body) const;
  const PerfAttr* AttrForSample(absl::Span<const uint8_t> body) const;

  std::vector<PerfAttr> attrs_;
  std::map<uint64_t, size_t> attr_by_id_;
};

struct MmapRecord {
  bool mmap2 = false;
  uint16_t misc = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t pgoff = 0;
  // MMAP2 without a build-id: the device and inode.
  uint32_t maj = 0;
  uint32_t min = 0;
  uint64_t ino = 0;
  uint64_t ino_generation = 0;
  std::string build_id;  // MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID: hex
  uint32_t prot = 0;     // MMAP2 (MMAP: derived from misc)
  uint32_t flags = 0;    // MMAP2
  std::string filename;
  bool executable() const;
};

struct CommRecord {
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string comm;
  bool exec = false;
};

struct TaskRecord {  // FORK and EXIT
  uint32_t pid = 0;
  uint32_t ppid = 0;
  uint32_t tid = 0;
  uint32_t ptid = 0;
  uint64_t time = 0;
};

struct AuxRecord {
  uint64_t aux_offset = 0;
  uint64_t aux_size = 0;
  uint64_t flags = 0;
};

struct SwitchRecord {
  bool out = false;
  bool preempt = false;
  bool cpu_wide = false;
  uint32_t next_prev_pid = 0;  // SWITCH_CPU_WIDE
  uint32_t next_prev_tid = 0;
};

struct AuxtraceRecord {
  uint64_t size = 0;    // bytes of AUX data that follow
  uint64_t offset = 0;  // in the AUX area
  uint64_t reference = 0;
  uint32_t idx = 0;  // mmap index
  uint32_t tid = 0;  // -1 (as u32) in per-CPU mode
  uint32_t cpu = 0;  // -1 (as u32) in per-thread mode
};

struct AuxtraceErrorRecord {
  uint32_t type = 0;
  uint32_t code = 0;
  uint32_t cpu = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t ip = 0;
  std::optional<uint64_t> time;  // format 1 and later
  std::string message;
};

struct AuxtraceInfoRecord {
  uint32_t type = 0;           // AuxtraceType
  std::vector<uint64_t> priv;  // the backend's u64 words
};

struct TimeConvRecord {
  uint64_t time_shift = 0;
  uint64_t time_mult = 0;
  uint64_t time_zero = 0;
  std::optional<uint64_t> time_cycles;  // perf 5.12 and later
  std::optional<uint64_t> time_mask;
  bool cap_user_time_zero = false;
  bool cap_user_time_short = false;
};

struct IdIndexEntry {
  uint64_t id = 0;
  uint64_t idx = 0;
  uint64_t cpu = 0;
  uint64_t tid = 0;
};

absl::StatusOr<MmapRecord> DecodeMmap(const RawRecord& r,
                                      const std::string& where);
absl::StatusOr<CommRecord> DecodeComm(const RawRecord& r,
                                      const std::string& where);
absl::StatusOr<TaskRecord> DecodeTask(const RawRecord& r,
                                      const std::string& where);
absl::StatusOr<AuxRecord> DecodeAux(const RawRecord& r,
                                    const std::string& where);
absl::StatusOr<SwitchRecord> DecodeSwitch(const RawRecord& r,
                                          const std::string& where);
absl::StatusOr<uint64_t> DecodeLost(const RawRecord& r,
                                    const std::string& where);
absl::StatusOr<uint64_t> DecodeAuxOutputHwId(const RawRecord& r,
                                             const std::string& where);
// ITRACE_START: pid and tid.
absl::StatusOr<CommRecord> DecodeItraceStart(const RawRecord& r,
                                             const std::string& where);
absl::StatusOr<AuxtraceRecord> DecodeAuxtrace(const RawRecord& r,
                                              const std::string& where);
absl::StatusOr<AuxtraceErrorRecord> DecodeAuxtraceError(
    const RawRecord& r, const std::string& where);
absl::StatusOr<AuxtraceInfoRecord> DecodeAuxtraceInfo(const RawRecord& r,
                                                      const std::string& where);
absl::StatusOr<TimeConvRecord> DecodeTimeConv(const RawRecord& r,
                                              const std::string& where);
absl::StatusOr<std::vector<IdIndexEntry>> DecodeIdIndex(
    const RawRecord& r, const std::string& where);

// Lowercase hex of `bytes`.
std::string HexBytes(absl::Span<const uint8_t> bytes);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_RECORDS_H_
