// Batch summaries; see summary.h.
#include "batch/summary.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/file_util.h"
#include "base/json_text.h"
#include "base/progress.h"
#include "base/status_macros.h"
#include "report/common/text_util.h"

namespace hwt::batch {
namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\"", "\"\""}}), "\"");
}

}  // namespace

SummaryTotals Totals(const std::vector<CaptureRow>& rows) {
  SummaryTotals t;
  for (const CaptureRow& r : rows) {
    if (r.status == "ok") {
      ++t.ok;
    } else if (r.status == "decode-errors") {
      ++t.decode_errors;
    } else {
      ++t.failed;
    }
    t.trace_bytes += r.trace_bytes;
    t.instructions += r.instructions;
    t.wall_s += r.wall_s;
  }
  return t;
}

nlohmann::json SummaryJson(const std::vector<CaptureRow>& rows,
                           const std::string& group_by,
                           const std::map<std::string, std::string>& groups) {
  const SummaryTotals t = Totals(rows);
  nlohmann::json out;
  out["captures"] = rows.size();
  out["ok"] = t.ok;
  out["decode_errors"] = t.decode_errors;
  out["failed"] = t.failed;
  out["trace_bytes"] = t.trace_bytes;
  out["instructions"] = t.instructions;
  out["wall_s"] = t.wall_s;
  out["merged"] = "merged.hwtprof";
  if (!group_by.empty()) {
    out["group_by"] = group_by;
    out["groups"] = groups;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const CaptureRow& r : rows) list.push_back(RowToJson(r, false));
  out["rows"] = std::move(list);
  return out;
}

std::string SummaryCsv(const std::vector<CaptureRow>& rows) {
  std::string out =
      "name,path,backend,status,error,trace_bytes,bytes_lost,instructions,"
      "errors,wall_s,top_function,top_share\n";
  for (const CaptureRow& r : rows) {
    absl::StrAppend(&out, CsvField(r.name), ",", CsvField(r.path), ",",
                    CsvField(r.backend), ",", r.status, ",", CsvField(r.error),
                    ",", r.trace_bytes, ",", r.bytes_lost, ",", r.instructions,
                    ",", r.errors, ",", absl::StrFormat("%.3f", r.wall_s), ",",
                    CsvField(r.top_function), ",",
                    absl::StrFormat("%.2f", r.top_share), "\n");
  }
  return out;
}

std::string SummaryTable(const std::vector<CaptureRow>& rows) {
  std::vector<std::vector<std::string>> table = {
      {"status", "name", "backend", "trace", "lost", "instructions", "errors",
       "wall", "top function"}};
  for (const CaptureRow& r : rows) {
    table.push_back(
        {r.status, r.name, r.backend.empty() ? "-" : r.backend,
         FormatBytes(r.trace_bytes), report::Thousands(r.bytes_lost),
         report::Thousands(r.instructions), report::Thousands(r.errors),
         absl::StrFormat("%.2fs", r.wall_s),
         r.top_function.empty()
             ? "-"
             : absl::StrFormat("%s (%.1f%%)", r.top_function, r.top_share)});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool right = c >= 3 && c <= 7;
      const std::string pad(width[c] - row[c].size(), ' ');
      line += right ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
      if (c + 1 < row.size()) line += "  ";
    }
    absl::StrAppend(&out, line, "\n");
  }
  const SummaryTotals t = Totals(rows);
  absl::StrAppendFormat(&out,
                        "%d captures: %d ok, %d with decode errors, %d failed; "
                        "%s of trace, %s instructions\n",
                        rows.size(), t.ok, t.decode_errors, t.failed,
                        FormatBytes(t.trace_bytes),
                        report::Thousands(t.instructions));
  for (const CaptureRow& r : rows) {
    if (r.status == "failed")
      absl::StrAppend(&out, "failed: ", r.name, ": ", r.error, "\n");
  }
  return out;
}

absl::Status WriteSummary(const std::string& outdir,
                          const std::vector<CaptureRow>& rows,
                          const std::string& group_by,
                          const std::map<std::string, std::string>& groups) {
  HWT_RETURN_IF_ERROR(WriteFileAtomically(
      outdir + "/summary.json",
      JsonText(SummaryJson(rows, group_by, groups), JsonLayout::kIndented)));
  return WriteFileAtomically(outdir + "/summary.csv", SummaryCsv(rows));
}

}  // namespace hwt::batch
