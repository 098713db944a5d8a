// Reads an OpenCSD / DS-5 trace snapshot directory (snapshot.ini, the device
// .ini files it lists, trace.ini and the trace buffer and memory dump files)
// into a Capture: backend coresight, one buffer per trace buffer file, one
// CoreSight source per ETM/PTM/ETE feeding a buffer (registers by name, trace
// ID from TRCTRACEIDR/ETMTRACEIDR), and the cores' memory dumps as raw memory
// regions. The snapshot format is the one OpenCSD's snapshot parser reads
// (decoder/tests/snapshot_parser_lib); errors name the .ini file, the section
// and the key.
#ifndef HWT_CAPTURE_OPENCSD_SNAPSHOT_H_
#define HWT_CAPTURE_OPENCSD_SNAPSHOT_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "capture/capture.h"

namespace hwt::capture {

// Whether `path` is a snapshot: a directory holding snapshot.ini, or the
// snapshot.ini file itself.
bool IsOpenCsdSnapshot(const std::string& path);

// Opens the snapshot in `dir` (or named by its snapshot.ini). Buffer and
// memory dump files stay where they are (paths relative to the snapshot
// directory, which becomes the capture's root). Trace buffer formats:
// "coresight" (16-byte frames, memory aligned: sink "etb"/"etf"/"etr" after
// the buffer's name, default "etr"), "dstream_coresight" (frames with FSYNCs:
// sink "tpiu") and "source_data" (unformatted single source, as TRBE writes:
// sink "raw"; like OpenCSD only the first source of such a buffer is used).
// STM and ITM sources are not program-flow trace and are left out.
// Errors: NotFound (no snapshot.ini, a missing trace buffer file),
// InvalidArgument (malformed or missing entries, naming file/section/key).
absl::StatusOr<std::unique_ptr<Capture>> OpenOpenCsdSnapshot(
    const std::string& dir, const InputOptions& options);

// The architecture version OpenCSD associates with a core type name, as
// CoreSightSource::arch_version spells it ("v7", "v8", "v8.3", "aa64"), and
// the core profile ("A", "R", "M"). Known Cortex names plus the ARMvM[.m]-P
// and ARM-AA64[-P] patterns; empty strings when the name is unknown.
struct CoreArchProfile {
  std::string arch_version;
  std::string profile;
};
CoreArchProfile CoreArchProfileForName(std::string_view core_type);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_OPENCSD_SNAPSHOT_H_
