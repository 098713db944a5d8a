// One capture's work in a batch and its result: the job a worker process
// receives (one JSON line on its stdin), the analysis it runs (the capture
// to its saved profile, written atomically), and the summary row it answers
// with (one JSON line on its stdout), also kept in OUTDIR/rows/NAME.json.
#ifndef HWT_BATCH_JOB_H_
#define HWT_BATCH_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/capture.h"
#include "nlohmann/json.hpp"

namespace hwt::batch {

struct Job {
  uint64_t id = 0;
  std::string path;          // the capture
  std::string name;          // unique in the batch
  std::string profile_path;  // where its .hwtprof goes
  capture::InputOptions options;
  std::string fingerprint;
  std::string writer;  // written into the profile
};

// The summary row of one capture.
struct CaptureRow {
  std::string name;
  std::string path;
  std::string backend;
  std::string status;  // "ok", "decode-errors", "failed"
  std::string error;   // failed: why; decode-errors: the decode message
  uint64_t trace_bytes = 0;
  uint64_t bytes_lost = 0;
  uint64_t instructions = 0;
  uint64_t errors = 0;
  double wall_s = 0;
  std::string top_function;  // by self instructions
  double top_share = 0;      // percent of the capture's instructions
  std::string fingerprint;
  std::vector<std::string> warnings;  // the analysis' warnings
  bool resumed = false;  // not analysed again: its profile was up to date
  // The manifest fields and labels a --group-by may name (from the saved
  // profile), not in the summary files.
  std::map<std::string, std::string> fields;

  bool has_profile() const { return status != "failed"; }
};

nlohmann::json JobToJson(const Job& job);
absl::StatusOr<Job> JobFromJson(const nlohmann::json& json);
// Row as stored in rows/NAME.json (with fields) or summary.json (without).
nlohmann::json RowToJson(const CaptureRow& row, bool with_fields = true);
absl::StatusOr<CaptureRow> RowFromJson(const nlohmann::json& json);

// Runs a job in this process, single-threaded: analyses the capture and
// writes its profile. Never throws; failures are a "failed" row.
CaptureRow RunJob(const Job& job);

}  // namespace hwt::batch

#endif  // HWT_BATCH_JOB_H_
