// The summary of a batch: summary.json (totals and one row per capture),
// summary.csv (the rows) and the text table printed on stdout, with the
// failed captures and their errors listed under it.
#ifndef HWT_BATCH_SUMMARY_H_
#define HWT_BATCH_SUMMARY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "batch/job.h"
#include "nlohmann/json.hpp"

namespace hwt::batch {

struct SummaryTotals {
  size_t ok = 0, decode_errors = 0, failed = 0;
  uint64_t trace_bytes = 0, instructions = 0;
  double wall_s = 0;
};
SummaryTotals Totals(const std::vector<CaptureRow>& rows);

// `groups`: group value -> its merged profile (relative to OUTDIR).
nlohmann::json SummaryJson(const std::vector<CaptureRow>& rows,
                           const std::string& group_by,
                           const std::map<std::string, std::string>& groups);
// RFC 4180 CSV, one line per row, header first.
std::string SummaryCsv(const std::vector<CaptureRow>& rows);
std::string SummaryTable(const std::vector<CaptureRow>& rows);

// Writes OUTDIR/summary.json and summary.csv atomically.
absl::Status WriteSummary(const std::string& outdir,
                          const std::vector<CaptureRow>& rows,
                          const std::string& group_by,
                          const std::map<std::string, std::string>& groups);

}  // namespace hwt::batch

#endif  // HWT_BATCH_SUMMARY_H_
