// The perf.data parser: builds the capture model from what the tokenizer
// reads. The manifest (backend and its configuration from AUXTRACE_INFO, the
// CPU from `cpuid`, host, OS, command line; one buffer per AUX area with its
// chunks and loss flags), the buffer files (AUX data rebuilt per CPU or
// thread), and the sideband as capture records in timestamp order, each
// placed at the buffer positions the AUX records give (a mapping from the end
// of the AUX data written before it, an exec or exit from the end of the AUX
// data written after it). Build-ids come from MMAP2 records or the BUILD_ID
// feature. docs/perf-data.md says what is read and what is not.
#ifndef HWT_CAPTURE_PERF_PERF_IMPORT_H_
#define HWT_CAPTURE_PERF_PERF_IMPORT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "capture/capture.h"
#include "capture/manifest.h"
#include "capture/perf/perf_features.h"
#include "capture/perf/perf_tokenizer.h"
#include "capture/record.h"

namespace hwt::capture::perf {

struct PerfImport {
  Manifest manifest;  // buffer files are relative to the buffer directory
  std::vector<Record> records;
  // Import problems (truncation, lost records, AUX data the file lacks,
  // AUXTRACE errors, unreadable feature sections), each naming where.
  std::vector<std::string> warnings;
  PerfFeatures features;
  TokenizeSummary tokenize;
  std::map<std::string, uint64_t> record_counts;  // by perf record name
  bool simpleperf = false;
  bool has_aux = false;  // an AUXTRACE_INFO record was read
};

// Imports the perf.data file `bytes` (`where` names it). Buffer files are
// written below `buffer_dir` (nothing is written when it is empty: the
// buffers then only describe the layout).
absl::StatusOr<PerfImport> ImportPerfData(absl::Span<const uint8_t> bytes,
                                          const std::string& where,
                                          const std::string& buffer_dir);

// OpenCapture's perf.data branch: imports `path` into a temporary directory
// the Capture owns. FailedPrecondition when the file holds no AUX area
// trace (only samples): there is nothing to decode.
absl::StatusOr<std::unique_ptr<Capture>> OpenPerfData(
    const std::string& path, const InputOptions& options);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_IMPORT_H_
