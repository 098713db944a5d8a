// The capture identity of the HTML report's model; see capture_model.h.
#include "report/html/capture_model.h"

#include "absl/strings/str_format.h"
#include "report/listing/decode_stats.h"

namespace hwt::report::html {

nlohmann::json CaptureJson(const capture::Capture& capture) {
  const capture::Manifest& m = capture.manifest();
  nlohmann::json cpu = {{"arch", m.cpu.arch}, {"vendor", m.cpu.vendor}};
  if (m.cpu.has_x86_model()) {
    cpu["family"] = m.cpu.family;
    cpu["model"] = m.cpu.model;
    cpu["stepping"] = m.cpu.stepping;
  }
  if (m.cpu.midr != 0) cpu["midr"] = absl::StrFormat("0x%x", m.cpu.midr);
  if (m.cpu.nominal_frequency_hz != 0) {
    cpu["nominal_frequency_hz"] = m.cpu.nominal_frequency_hz;
  }
  nlohmann::json buffers = nlohmann::json::array();
  for (const capture::BufferInfo& b : m.buffers) {
    nlohmann::json j = {{"id", b.id},
                        {"file", b.file},
                        {"bytes", b.size},
                        {"wrapped", b.wrapped},
                        {"data_lost", b.data_lost}};
    if (b.cpu) j["cpu"] = *b.cpu;
    if (b.thread) j["thread"] = *b.thread;
    buffers.push_back(std::move(j));
  }
  nlohmann::json images = nlohmann::json::array();
  for (const capture::BundledImage& image : m.images) {
    images.push_back(
        {{"path", image.original_path}, {"build_id", image.build_id}});
  }
  nlohmann::json out = {
      {"input", capture.source_path()},
      {"backend", std::string(capture::BackendName(m.backend))},
      {"mode", std::string(capture::TraceModeName(m.mode))},
      {"cpu", std::move(cpu)},
      {"command", m.command},
      {"hostname", m.hostname},
      {"os", m.os},
      {"created", m.created},
      {"recorder", m.recorder},
      {"buffers", std::move(buffers)},
      {"images", std::move(images)},
  };
  if (m.pid) out["pid"] = *m.pid;
  return out;
}

nlohmann::json CaptureJson(const analysis::CaptureSource& source,
                           const std::vector<analysis::SavedImage>& images) {
  nlohmann::json cpu = {{"arch", source.cpu_arch},
                        {"vendor", source.cpu_vendor}};
  if (source.cpu_family != 0 || source.cpu_model != 0) {
    cpu["family"] = source.cpu_family;
    cpu["model"] = source.cpu_model;
    cpu["stepping"] = source.cpu_stepping;
  }
  if (source.cpu_midr != 0) {
    cpu["midr"] = absl::StrFormat("0x%x", source.cpu_midr);
  }
  if (source.cpu_frequency_hz != 0) {
    cpu["nominal_frequency_hz"] = source.cpu_frequency_hz;
  }
  nlohmann::json image_list = nlohmann::json::array();
  for (const analysis::SavedImage& image : images) {
    image_list.push_back({{"path", image.path}, {"build_id", image.build_id}});
  }
  nlohmann::json out = {
      {"input", source.path},
      {"backend", source.backend},
      {"mode", source.mode},
      {"cpu", std::move(cpu)},
      {"command", source.command},
      {"hostname", source.hostname},
      {"os", source.os},
      {"created", source.created},
      {"recorder", source.recorder},
      {"buffers", nlohmann::json::array()},
      {"images", std::move(image_list)},
  };
  if (source.pid) out["pid"] = *source.pid;
  return out;
}

CaptureRow RowOfSource(const analysis::CaptureSource& source) {
  CaptureRow row;
  row.name = source.name;
  row.path = source.path;
  row.backend = source.backend;
  row.command = source.command;
  row.hostname = source.hostname;
  row.created = source.created;
  std::vector<StreamStats> stats;
  for (const analysis::SavedStream& s : source.streams) {
    stats.push_back(s.stats);
  }
  const StreamStats total = source.TotalStats();
  row.status = DecodeFailed(stats) ? "decode-errors" : "ok";
  row.trace_bytes = total.trace_bytes;
  row.bytes_lost = total.bytes_lost;
  row.instructions = total.instructions;
  row.errors = total.errors;
  return row;
}

nlohmann::json CapturesJson(const std::vector<CaptureRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const CaptureRow& r : rows) {
    nlohmann::json j = {{"name", r.name},
                        {"path", r.path},
                        {"backend", r.backend},
                        {"command", r.command},
                        {"hostname", r.hostname},
                        {"created", r.created},
                        {"status", r.status},
                        {"trace_bytes", r.trace_bytes},
                        {"bytes_lost", r.bytes_lost},
                        {"instructions", r.instructions},
                        {"errors", r.errors}};
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.report.empty()) j["report"] = r.report;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace hwt::report::html
