// HWT records <-> records.jsonl: one JSON object per line, in the order
// userland read them, each with its type name, its kernel record_type value
// (in the manifest's numbering) and the buffer positions known when it was
// read. See docs/capture-format.md. Errors name the file and the line.
#ifndef HWT_CAPTURE_RECORDS_JSONL_H_
#define HWT_CAPTURE_RECORDS_JSONL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "capture/record.h"

namespace hwt::capture {

inline constexpr size_t kMaxRecordLineLength = size_t{4} << 20;
inline constexpr uint64_t kMaxRecordsFileSize = uint64_t{1} << 30;

// One record as one JSON object, without a newline.
std::string RecordToJsonLine(const Record& record, RecordNumbering numbering);
// All records, one line each (every line ends with '\n').
std::string RecordsToJsonl(const std::vector<Record>& records,
                           RecordNumbering numbering);

// Parses records.jsonl and checks each record against the manifest (its
// numbering; positions name its buffers and lie within their sizes). Blank
// lines are skipped. `where` names the file; errors read
// "WHERE:LINE: FIELD: problem".
absl::StatusOr<std::vector<Record>> ParseRecordsJsonl(std::string_view text,
                                                      const Manifest& manifest,
                                                      std::string_view where);

// The same checks for records held in memory (writers); errors name the record
// by index ("record 3").
absl::Status ValidateRecords(const std::vector<Record>& records,
                             const Manifest& manifest, std::string_view where);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_RECORDS_JSONL_H_
