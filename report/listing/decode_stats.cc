// Implementation of the decode statistics renderers; see decode_stats.h.
#include "report/listing/decode_stats.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"
#include "base/progress.h"
#include "nlohmann/json.hpp"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

using Json = nlohmann::json;

Json StatsJson(const StreamStats& s, bool blocks_counted, bool with_errors) {
  Json j = {{"trace_bytes", s.trace_bytes},
            {"bytes_decoded", s.bytes_decoded},
            {"bytes_lost", s.bytes_lost},
            {"packets", s.packets},
            {"instructions", s.instructions},
            {"blocks", s.blocks},
            {"errors", s.errors},
            {"overflows", s.overflows}};
  if (!blocks_counted) j["blocks"] = nullptr;
  if (with_errors) {
    Json errors = Json::array();
    for (const DecodeErrorInfo& e : s.error_list) {
      Json error = {{"offset", e.offset},
                    {"bytes_lost", e.bytes_lost},
                    {"reason", GapReasonName(e.reason)},
                    {"message", e.message}};
      if (e.ip) error["ip"] = absl::StrFormat("0x%x", e.ip);
      errors.push_back(std::move(error));
    }
    j["error_list"] = std::move(errors);
    j["error_list_truncated"] = s.errors > s.error_list.size();
  }
  return j;
}

std::string CpuText(const capture::CpuIdentity& cpu) {
  if (cpu.has_x86_model()) {
    return absl::StrFormat("%s %u/%u/%u",
                           cpu.vendor.empty() ? "x86" : cpu.vendor, cpu.family,
                           cpu.model, cpu.stepping);
  }
  if (cpu.midr) return absl::StrFormat("MIDR 0x%x", cpu.midr);
  return "unknown CPU";
}

}  // namespace

std::string FormatDecodeStatsText(const DecodeSummary& summary) {
  const capture::Manifest& m = summary.capture->manifest();
  std::string out = absl::StrFormat(
      "%s: %s trace, %s mode, %s, %u buffer%s\n",
      summary.capture->source_path(), capture::BackendName(m.backend),
      capture::TraceModeName(m.mode), CpuText(m.cpu), m.buffers.size(),
      m.buffers.size() == 1 ? "" : "s");
  auto add = [&out, &summary](const std::string& title, const StreamStats& s) {
    out += absl::StrFormat(
        "%s\n"
        "  trace bytes   %12u (%s; decoded %u, lost %u)\n"
        "  instructions  %12u\n"
        "  blocks        %12s\n"
        "  errors        %12u (%u overflows)\n",
        title, s.trace_bytes, FormatBytes(s.trace_bytes), s.bytes_decoded,
        s.bytes_lost, s.instructions,
        summary.blocks_counted ? absl::StrCat(s.blocks) : "not counted",
        s.errors, s.overflows);
    if (s.trace_bytes > 0 && s.instructions > 0) {
      out += absl::StrFormat("  instructions per trace byte  %.2f\n",
                             double(s.instructions) / s.trace_bytes);
    }
  };
  for (size_t i = 0; i < summary.streams.size() && i < summary.stats.size();
       ++i) {
    add(absl::StrFormat("stream %u: %s", i, summary.streams[i].name),
        summary.stats[i]);
  }
  StreamStats total = TotalStats(summary.stats);
  if (summary.streams.size() != 1) add("total", total);
  if (total.errors > 0) {
    out += "errors:\n";
    for (size_t i = 0; i < summary.stats.size(); ++i) {
      for (const DecodeErrorInfo& e : summary.stats[i].error_list) {
        out += absl::StrFormat("  stream %u offset 0x%x: %s (%u bytes lost)\n",
                               i, e.offset, e.message, e.bytes_lost);
      }
      if (summary.stats[i].errors > summary.stats[i].error_list.size()) {
        out += absl::StrFormat(
            "  stream %u: %u more errors not listed\n", i,
            summary.stats[i].errors - summary.stats[i].error_list.size());
      }
    }
  }
  for (const std::string& note : summary.notes) {
    out += "note: " + note + "\n";
  }
  for (const std::string& warning : summary.warnings) {
    out += "warning: " + warning + "\n";
  }
  return out;
}

std::string DecodeErrorMessage(const StreamStats& total) {
  if (total.errors == 0 && total.bytes_lost == 0) return "";
  return absl::StrCat(
      Thousands(total.errors),
      total.errors == 1 ? " decode error, " : " decode errors, ",
      Thousands(total.bytes_lost),
      total.bytes_lost == 1 ? " byte lost" : " bytes lost",
      ": see hwt-decode --stats");
}

bool DecodeFailed(const std::vector<StreamStats>& streams) {
  return !DecodeFailureMessage(streams).empty();
}

std::string DecodeFailureMessage(const std::vector<StreamStats>& streams) {
  const StreamStats total = TotalStats(streams);
  if (total.errors != 0) return DecodeErrorMessage(total);
  std::string out;
  for (size_t i = 0; i < streams.size(); ++i) {
    const StreamStats& s = streams[i];
    if (s.trace_bytes == 0 || s.bytes_decoded != 0) continue;
    absl::StrAppend(&out, out.empty() ? "" : "; ", "stream ", i,
                    ": none of its ", Thousands(s.trace_bytes),
                    s.trace_bytes == 1 ? " trace byte" : " trace bytes",
                    " could be decoded (no sync point)");
  }
  return out;
}

std::string FormatDecodeStatsJson(const DecodeSummary& summary) {
  // Without a capture (a saved profile): the streams alone.
  static const capture::Manifest kNoManifest;
  const capture::Manifest& m =
      summary.capture != nullptr ? summary.capture->manifest() : kNoManifest;
  Json streams = Json::array();
  std::vector<StreamStats> per_buffer(m.buffers.size());
  for (size_t i = 0; i < summary.streams.size() && i < summary.stats.size();
       ++i) {
    const StreamInfo& info = summary.streams[i];
    Json j = StatsJson(summary.stats[i], summary.blocks_counted,
                       /*with_errors=*/true);
    j["id"] = info.id;
    j["name"] = info.name;
    j["buffer"] = info.buffer_index;
    if (info.cpu) j["cpu"] = *info.cpu;
    if (info.thread) j["thread"] = *info.thread;
    if (info.trace_id) j["trace_id"] = info.trace_id;
    streams.push_back(std::move(j));
    if (info.buffer_index < per_buffer.size()) {
      per_buffer[info.buffer_index].Merge(summary.stats[i]);
    }
  }
  Json buffers = Json::array();
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    Json j =
        StatsJson(per_buffer[b], summary.blocks_counted, /*with_errors=*/false);
    j["index"] = b;
    j["id"] = m.buffers[b].id;
    j["file_bytes"] = m.buffers[b].size;
    if (m.buffers[b].cpu) j["cpu"] = *m.buffers[b].cpu;
    if (m.buffers[b].thread) j["thread"] = *m.buffers[b].thread;
    buffers.push_back(std::move(j));
  }
  Json out = {
      {"total", StatsJson(TotalStats(summary.stats), summary.blocks_counted,
                          /*with_errors=*/false)},
      {"buffers", std::move(buffers)},
      {"streams", std::move(streams)},
      {"warnings", summary.warnings},
  };
  if (summary.capture != nullptr) {
    out["input"] = summary.capture->source_path();
    out["backend"] = capture::BackendName(m.backend);
    out["mode"] = capture::TraceModeName(m.mode);
    out["cpu"] = CpuText(m.cpu);
  }
  if (!summary.notes.empty()) out["notes"] = summary.notes;
  return JsonText(out, JsonLayout::kIndented);
}

}  // namespace hwt::report
