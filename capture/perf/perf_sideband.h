// perf sideband as capture records: MMAP/MMAP2 (user maps as kMmap, kernel
// maps as kKernel, with pgoff, length, protection and build-id), COMM, FORK,
// EXIT, SWITCH, SWITCH_CPU_WIDE, ITRACE_START, AUX, LOST, AUX_OUTPUT_HW_ID
// and AUXTRACE_ERROR; then their order (perf's: by timestamp, file order
// among equals) and their buffer positions. Part of the parser.
#ifndef HWT_CAPTURE_PERF_PERF_SIDEBAND_H_
#define HWT_CAPTURE_PERF_PERF_SIDEBAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/perf/perf_aux_areas.h"
#include "capture/perf/perf_features.h"
#include "capture/perf/perf_records.h"
#include "capture/perf/perf_tokenizer.h"
#include "capture/record.h"

namespace hwt::capture::perf {

struct PendingRecord {
  Record record;
  uint64_t order = 0;  // perf time, or the sequence number without times
  uint64_t seq = 0;    // file order
  // Placed at the end of the AUX data written after the record (the
  // unmappings of an exec or exit: the trace up to them is in that data);
  // otherwise at the end of the AUX data written before it.
  bool late = false;
};

// The capture record of a sideband record (`sample` is its sample_id), or
// nullopt for records that are not sideband. Errors name the offset.
absl::StatusOr<std::optional<Record>> SidebandRecord(const RawRecord& r,
                                                     const SampleId& sample,
                                                     const std::string& where);

// Whether a record of this type is placed late (see PendingRecord).
bool PlacedLate(const Record& record);

// Gives MMAP and KERNEL records without a build-id the one the BUILD_ID
// feature lists for their file (kernel text maps use "[kernel.kallsyms]").
void AttachBuildIds(const std::vector<BuildIdEntry>& ids,
                    std::vector<PendingRecord>* records);

// One buffer of the capture: its AUX area and manifest id.
struct PlacedBuffer {
  const AuxArea* area = nullptr;
  uint32_t id = 0;
};

// Sorts the records into perf's order and gives each its position in every
// buffer.
std::vector<Record> PlaceSideband(std::vector<PendingRecord> pending,
                                  const std::vector<PlacedBuffer>& buffers);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_SIDEBAND_H_
