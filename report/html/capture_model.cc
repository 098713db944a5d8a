// The capture identity of the HTML report's model; see capture_model.h.
#include "report/html/capture_model.h"

#include "absl/strings/str_format.h"

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

std::string ModelText(const nlohmann::json& model) {
  return model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hwt::report::html
