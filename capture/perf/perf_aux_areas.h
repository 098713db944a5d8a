// Rebuilds each AUX area of a perf.data file (one per CPU, or per thread in
// per-thread mode) as one trace buffer file: AUXTRACE payloads are written at
// their place in the AUX area (perf pads each payload to 8 bytes; the next
// payload overwrites the padding), AUX records say how much of it is real
// trace and where the kernel lost some (TRUNCATED, PARTIAL, COLLISION), and
// gaps between payloads become chunk boundaries with data lost before them.
// Snapshot mode (the AUX OVERWRITE flag) keeps each snapshot as a chunk of
// its own. Part of the parser: the buffers of the capture model, and the map
// from AUX offsets to buffer positions that places the sideband.
#ifndef HWT_CAPTURE_PERF_PERF_AUX_AREAS_H_
#define HWT_CAPTURE_PERF_PERF_AUX_AREAS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "capture/manifest.h"
#include "capture/perf/perf_records.h"

namespace hwt::capture::perf {

// Which AUX area a record belongs to.
struct AuxKey {
  bool per_cpu = true;
  int32_t value = -1;  // cpu, or tid in per-thread mode
  bool operator<(const AuxKey& o) const {
    return per_cpu != o.per_cpu ? per_cpu < o.per_cpu : value < o.value;
  }
};

// One contiguous run of AUX data in the buffer file.
struct AuxSegment {
  uint64_t aux_start = 0;   // offset in the AUX area
  uint64_t file_start = 0;  // offset in the buffer file
  uint64_t size = 0;
  bool lost_before = false;
};

// An AUX record, in the order the importer places sideband (`order`: its
// time, or its sequence number when records carry no time).
struct AuxMark {
  uint64_t order = 0;
  AuxRecord aux;
};

struct AuxArea {
  AuxKey key;
  std::string file;  // relative to the buffer directory
  int fd = -1;
  uint64_t file_size = 0;
  std::vector<AuxSegment> segments;  // in AUX order
  std::vector<AuxMark> marks;        // in `order`
  uint64_t payload_bytes = 0;
  bool snapshot = false;
};

class AuxAreas {
 public:
  // Buffer files go to `dir` ("buffers/cpuN.bin" below it); an empty `dir`
  // keeps only the layout (nothing is written).
  explicit AuxAreas(std::string dir) : dir_(std::move(dir)) {}
  ~AuxAreas();
  AuxAreas(const AuxAreas&) = delete;
  AuxAreas& operator=(const AuxAreas&) = delete;

  // An AUXTRACE record and its payload.
  absl::Status AddData(const AuxtraceRecord& record,
                       absl::Span<const uint8_t> payload, bool snapshot,
                       const std::string& where);
  // An AUX record of area `key`.
  void AddMark(const AuxKey& key, uint64_t order, const AuxRecord& aux);

  // After the last record: clips padding, splits at data loss, closes the
  // files. `lost` receives one message per area whose AUX records announce
  // data the file does not hold.
  absl::Status Finish(std::vector<std::string>* lost);

  const std::map<AuxKey, AuxArea>& areas() const { return areas_; }
  // The manifest buffer of an area (id given by the caller).
  BufferInfo Buffer(const AuxArea& area, uint32_t id) const;
  // The buffer position of AUX offset `aux_offset` in `area` (the end of
  // the data before it when it falls in a gap).
  static uint64_t Position(const AuxArea& area, uint64_t aux_offset);

 private:
  absl::StatusOr<AuxArea*> Area(const AuxKey& key);
  void ClipAndSplit(AuxArea* area, std::vector<std::string>* lost);

  std::string dir_;
  std::map<AuxKey, AuxArea> areas_;
};

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_AUX_AREAS_H_
