// Jobs and rows: their JSON forms and the analysis of one capture; see
// job.h.
#include "batch/job.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "pipeline/capture_analysis.h"
#include "report/listing/decode_stats.h"
#include "report/naming/saved_symbols.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::batch {
namespace {

using Json = nlohmann::json;

Json OptionsToJson(const capture::InputOptions& o) {
  Json j = Json::object();
  if (o.backend) j["backend"] = std::string(capture::BackendName(*o.backend));
  if (o.cpu) {
    j["cpu"] =
        absl::StrCat(o.cpu->family, "/", o.cpu->model, "/", o.cpu->stepping);
  }
  Json images = Json::array();
  for (const capture::ImageSpec& image : o.images) {
    images.push_back({{"path", image.path}, {"bias", image.bias}});
  }
  if (!images.empty()) j["images"] = images;
  if (!o.sysroot.empty()) j["sysroot"] = o.sysroot;
  return j;
}

absl::StatusOr<capture::InputOptions> OptionsFromJson(const Json& j) {
  capture::InputOptions o;
  if (!j.is_object())
    return absl::InvalidArgumentError("options: not an object");
  if (j.contains("backend")) {
    o.backend = capture::ParseBackend(j["backend"].get<std::string>());
  }
  if (j.contains("cpu")) {
    auto cpu = capture::ParseCpuSpec(j["cpu"].get<std::string>());
    if (!cpu.ok()) return cpu.status();
    o.cpu = *cpu;
  }
  if (j.contains("images")) {
    for (const Json& image : j["images"]) {
      o.images.push_back(
          {image["path"].get<std::string>(), image["bias"].get<uint64_t>()});
    }
  }
  if (j.contains("sysroot")) o.sysroot = j["sysroot"].get<std::string>();
  return o;
}

// The function with the most self instructions and its share.
void TopFunction(const analysis::SavedProfile& p, CaptureRow& row) {
  const analysis::FunctionStats* top = nullptr;
  for (const analysis::FunctionStats& f : p.profile.functions) {
    if (f.frame.kind == analysis::FrameKind::kGap) continue;
    if (top == nullptr || f.self_insns > top->self_insns) top = &f;
  }
  if (top == nullptr || top->self_insns == 0) return;
  report::SavedProfileSymbols symbols(p);
  report::ProfileNames names(symbols);
  row.top_function = names.Name(top->frame);
  const uint64_t total = p.profile.stats.instructions;
  row.top_share = total == 0 ? 0 : 100.0 * top->self_insns / total;
}

}  // namespace

Json JobToJson(const Job& job) {
  return {{"id", job.id},
          {"path", job.path},
          {"name", job.name},
          {"profile", job.profile_path},
          {"options", OptionsToJson(job.options)},
          {"fingerprint", job.fingerprint},
          {"writer", job.writer}};
}

absl::StatusOr<Job> JobFromJson(const Json& j) {
  try {
    Job job;
    job.id = j.at("id").get<uint64_t>();
    job.path = j.at("path").get<std::string>();
    job.name = j.at("name").get<std::string>();
    job.profile_path = j.at("profile").get<std::string>();
    auto options = OptionsFromJson(j.at("options"));
    if (!options.ok()) return options.status();
    job.options = *options;
    job.fingerprint = j.at("fingerprint").get<std::string>();
    job.writer = j.at("writer").get<std::string>();
    return job;
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("bad job: ", e.what()));
  }
}

Json RowToJson(const CaptureRow& row, bool with_fields) {
  Json j = {{"name", row.name},
            {"path", row.path},
            {"backend", row.backend},
            {"status", row.status},
            {"error", row.error},
            {"trace_bytes", row.trace_bytes},
            {"bytes_lost", row.bytes_lost},
            {"instructions", row.instructions},
            {"errors", row.errors},
            {"wall_s", row.wall_s},
            {"top_function", row.top_function},
            {"top_share", row.top_share},
            {"fingerprint", row.fingerprint},
            {"warnings", row.warnings},
            {"resumed", row.resumed}};
  if (with_fields) j["fields"] = row.fields;
  return j;
}

absl::StatusOr<CaptureRow> RowFromJson(const Json& j) {
  try {
    CaptureRow row;
    row.name = j.at("name").get<std::string>();
    row.path = j.at("path").get<std::string>();
    row.backend = j.at("backend").get<std::string>();
    row.status = j.at("status").get<std::string>();
    row.error = j.at("error").get<std::string>();
    row.trace_bytes = j.at("trace_bytes").get<uint64_t>();
    row.bytes_lost = j.at("bytes_lost").get<uint64_t>();
    row.instructions = j.at("instructions").get<uint64_t>();
    row.errors = j.at("errors").get<uint64_t>();
    row.wall_s = j.at("wall_s").get<double>();
    row.top_function = j.at("top_function").get<std::string>();
    row.top_share = j.at("top_share").get<double>();
    row.fingerprint = j.at("fingerprint").get<std::string>();
    row.warnings = j.at("warnings").get<std::vector<std::string>>();
    row.resumed = j.value("resumed", false);
    if (j.contains("fields")) {
      row.fields = j["fields"].get<std::map<std::string, std::string>>();
    }
    if (row.status != "ok" && row.status != "decode-errors" &&
        row.status != "failed") {
      return absl::InvalidArgumentError("bad row status '" + row.status + "'");
    }
    return row;
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("bad row: ", e.what()));
  }
}

CaptureRow RunJob(const Job& job) {
  const auto start = std::chrono::steady_clock::now();
  CaptureRow row;
  row.name = job.name;
  row.path = job.path;
  row.fingerprint = job.fingerprint;
  pipeline::AnalyseOptions options;
  options.input = job.options;
  options.jobs = 1;  // one process per core: no threads of its own
  options.save.name = job.name;
  options.save.fingerprint = job.fingerprint;
  options.save.writer = job.writer;
  auto analysed = pipeline::AnalyseCapture(job.path, options);
  absl::Status written =
      analysed.ok()
          ? analysis::WriteProfileFile(job.profile_path, analysed->profile)
          : analysed.status();
  row.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!written.ok()) {
    row.status = "failed";
    row.error = std::string(written.message());
    return row;
  }
  const analysis::SavedProfile& p = analysed->profile;
  const analysis::CaptureSource& source = p.sources.at(0);
  const StreamStats total = source.TotalStats();
  row.backend = source.backend;
  row.trace_bytes = analysed->trace_bytes;
  row.bytes_lost = total.bytes_lost;
  row.errors = total.errors;
  row.instructions = p.profile.stats.instructions;
  row.warnings = analysed->warnings;
  // A stream of which nothing could be decoded is not "ok" either.
  std::vector<StreamStats> streams;
  for (const analysis::SavedStream& s : source.streams) {
    streams.push_back(s.stats);
  }
  row.error = report::DecodeFailureMessage(streams);
  row.status = row.error.empty() ? "ok" : "decode-errors";
  TopFunction(p, row);
  for (const char* key : {"backend", "mode", "command", "hostname", "os",
                          "created", "recorder", "cpu"}) {
    row.fields[key] = source.Field(key);
  }
  for (const auto& [key, value] : source.labels) {
    row.fields.try_emplace(key, value);  // manifest fields come first
  }
  return row;
}

}  // namespace hwt::batch
