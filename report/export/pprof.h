// The pprof export: a gzip-compressed profile.proto (the format of
// github.com/google/pprof, read by `go tool pprof`, speedscope, Perfetto)
// with one sample per unique (call stack, executed instruction address).
// Leaf locations are the executed instructions with their lines and DWARF
// inline frames; caller frames are the callers' function entries (the
// profile records which function called, not from which call instruction:
// docs/exports.md). Sample types: instructions/count, plus the trace's time
// when it has timing (attributed per block, to its first instruction); of
// a sampled profile (SPE), samples/count and latency/cycles.
#ifndef HWT_REPORT_EXPORT_PPROF_H_
#define HWT_REPORT_EXPORT_PPROF_H_

#include <string>

#include "absl/status/statusor.h"
#include "analysis/profile.h"
#include "report/export/export_input.h"

namespace hwt::report {

struct PprofOptions {
  std::string count_type = "instructions";  // the first value's type
  bool with_time = false;                   // a second value: time
  std::string time_type = "time";           // its type
  std::string time_unit = "nanoseconds";    // as pprof names units
  double time_scale = 1.0;                  // profile time -> time_unit
  std::string comment;                      // e.g. the capture's name
};

// The compressed profile; InternalError only if compression fails.
absl::StatusOr<std::string> RenderPprof(ExportInput& input,
                                        const analysis::CallTree& tree,
                                        const PprofOptions& options);

// The uncompressed profile.proto bytes (what RenderPprof compresses).
std::string RenderPprofProto(ExportInput& input, const analysis::CallTree& tree,
                             const PprofOptions& options);

// gzip (RFC 1952) of `bytes`, as pprof files are stored.
absl::StatusOr<std::string> Gzip(std::string_view bytes);

}  // namespace hwt::report

#endif  // HWT_REPORT_EXPORT_PPROF_H_
