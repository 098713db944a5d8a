// SPE decode statistics reports; see spe_stats_report.h.
#include "report/spe/spe_stats_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json_text.h"
#include "decoders/spe/data_source.h"
#include "decoders/spe/events.h"

namespace hwt::report {
namespace {

using spe::SpeStats;

const char* PartialReasonId(int reason) {
  switch (static_cast<spe::PartialReason>(reason)) {
    case spe::PartialReason::kNone:
      return "none";
    case spe::PartialReason::kCutAtEnd:
      return "cut_at_end";
    case spe::PartialReason::kInvalidBytes:
      return "invalid_bytes";
    case spe::PartialReason::kRepeatedPacket:
      return "end_lost";
    case spe::PartialReason::kNoPc:
      return "start_lost";
  }
  return "?";
}

const char* SkipReasonId(spe::SkipReason reason) {
  return reason == spe::SkipReason::kInvalidHeader ? "invalid_header"
                                                   : "truncated_packet";
}

void AppendStatsText(const SpeStats& s, const spe::CpuModel& cpu,
                     std::string* out) {
  absl::StrAppendFormat(out, "  bytes %d: decoded %d, skipped %d in %d run%s\n",
                        s.bytes, s.bytes_decoded, s.bytes_skipped,
                        s.skipped_ranges, s.skipped_ranges == 1 ? "" : "s");
  std::vector<std::string> parts;
  for (int t = 0; t < spe::kNumPacketTypes; ++t) {
    if (s.packets_by_type[t] == 0) continue;
    parts.push_back(absl::StrCat(
        std::string(spe::PacketTypeName(static_cast<spe::PacketType>(t))), " ",
        s.packets_by_type[t]));
  }
  absl::StrAppendFormat(out, "  packets %d%s%s\n", s.packets,
                        parts.empty() ? "" : ": ", absl::StrJoin(parts, ", "));
  if (s.unknown_index_packets != 0) {
    absl::StrAppendFormat(out, "  packets with unknown index/class %d\n",
                          s.unknown_index_packets);
  }
  parts.clear();
  for (int r = 1; r < spe::kNumPartialReasons; ++r) {
    if (s.partial_by_reason[r] == 0) continue;
    parts.push_back(absl::StrCat(
        std::string(spe::PartialReasonName(static_cast<spe::PartialReason>(r))),
        " ", s.partial_by_reason[r]));
  }
  absl::StrAppendFormat(out, "  records %d complete, %d partial%s%s%s\n",
                        s.records, s.partial_records, parts.empty() ? "" : " (",
                        absl::StrJoin(parts, ", "), parts.empty() ? "" : ")");
  absl::StrAppendFormat(
      out, "  chunks %d (partial record %d, data lost before %d, final %d)\n",
      s.chunks, s.chunks_partial_record, s.chunks_data_lost_before,
      s.chunks_final);
  parts.clear();
  for (const char* group : {"load", "store", "branch", "other", "none"}) {
    uint64_t n = s.op_group(group);
    if (n != 0) parts.push_back(absl::StrCat(group, " ", n));
  }
  absl::StrAppendFormat(out, "  operation classes: %s\n",
                        parts.empty() ? "-" : absl::StrJoin(parts, ", "));
  parts.clear();
  for (int i = 0; i < spe::kNumOpCategories; ++i) {
    if (s.op_categories[i] == 0) continue;
    parts.push_back(absl::StrCat(
        std::string(spe::OpCategoryName(static_cast<spe::OpCategory>(i))), " ",
        s.op_categories[i]));
  }
  absl::StrAppendFormat(out, "  operations: %s\n",
                        parts.empty() ? "-" : absl::StrJoin(parts, ", "));
  parts.clear();
  for (int bit = 0; bit < 64; ++bit) {
    if (s.events[bit] == 0) continue;
    parts.push_back(absl::StrCat(spe::EventName(bit, cpu), " ", s.events[bit]));
  }
  absl::StrAppendFormat(out, "  events: %s\n",
                        parts.empty() ? "-" : absl::StrJoin(parts, ", "));
  parts.clear();
  for (const auto& [value, n] : s.data_sources) {
    parts.push_back(absl::StrCat(spe::DataSourceLabel(value, cpu), " ", n));
  }
  if (s.records_without_data_source != 0) {
    parts.push_back(absl::StrCat("none ", s.records_without_data_source));
  }
  absl::StrAppendFormat(out, "  data sources: %s\n",
                        parts.empty() ? "-" : absl::StrJoin(parts, ", "));
  constexpr size_t kListed = 20;
  for (size_t i = 0; i < s.skipped.size() && i < kListed; ++i) {
    const spe::SkippedRange& r = s.skipped[i];
    absl::StrAppendFormat(out, "  skipped 0x%08x: %d bytes (%s)\n", r.offset,
                          r.length, spe::SkipReasonName(r.reason));
  }
  if (s.skipped_ranges > kListed) {
    absl::StrAppendFormat(out, "  ... %d more skipped runs\n",
                          s.skipped_ranges - kListed);
  }
}

}  // namespace

std::string FormatSpeStatsText(const spe::CaptureStats& stats) {
  std::string out =
      absl::StrFormat("SPE decode statistics: %d buffer%s, CPU %s\ntotal:\n",
                      stats.buffers.size(),
                      stats.buffers.size() == 1 ? "" : "s", stats.cpu.name);
  AppendStatsText(stats.total, stats.cpu, &out);
  for (size_t b = 0; b < stats.buffers.size(); ++b) {
    std::string name = b < stats.buffer_names.size()
                           ? stats.buffer_names[b]
                           : absl::StrCat("buffer ", b);
    absl::StrAppendFormat(&out, "%s:\n", name);
    AppendStatsText(stats.buffers[b], stats.cpu, &out);
  }
  return out;
}

nlohmann::json SpeStatsJson(const SpeStats& s, const spe::CpuModel& cpu) {
  nlohmann::json j;
  j["bytes"] = s.bytes;
  j["bytes_decoded"] = s.bytes_decoded;
  j["bytes_skipped"] = s.bytes_skipped;
  j["packets"] = s.packets;
  nlohmann::json by_type = nlohmann::json::object();
  for (int t = 0; t < spe::kNumPacketTypes; ++t) {
    by_type[std::string(spe::PacketTypeName(static_cast<spe::PacketType>(t)))] =
        s.packets_by_type[t];
  }
  j["packets_by_type"] = by_type;
  j["unknown_index_packets"] = s.unknown_index_packets;
  j["records"] = s.records;
  j["partial_records"] = s.partial_records;
  nlohmann::json partial = nlohmann::json::object();
  for (int r = 1; r < spe::kNumPartialReasons; ++r) {
    partial[PartialReasonId(r)] = s.partial_by_reason[r];
  }
  j["partial_by_reason"] = partial;
  j["chunks"] = {{"count", s.chunks},
                 {"partial_record", s.chunks_partial_record},
                 {"data_lost_before", s.chunks_data_lost_before},
                 {"final", s.chunks_final}};
  nlohmann::json groups = nlohmann::json::object();
  for (const char* group : {"load", "store", "branch", "other", "none"}) {
    groups[group] = s.op_group(group);
  }
  j["operation_classes"] = groups;
  nlohmann::json ops = nlohmann::json::object();
  for (int i = 0; i < spe::kNumOpCategories; ++i) {
    if (s.op_categories[i] == 0) continue;
    ops[std::string(spe::OpCategoryName(static_cast<spe::OpCategory>(i)))] =
        s.op_categories[i];
  }
  j["operations"] = ops;
  nlohmann::json events = nlohmann::json::object();
  for (int bit = 0; bit < 64; ++bit) {
    if (s.events[bit] != 0) events[spe::EventName(bit, cpu)] = s.events[bit];
  }
  j["events"] = events;
  nlohmann::json sources = nlohmann::json::array();
  for (const auto& [value, n] : s.data_sources) {
    sources.push_back({{"value", value},
                       {"name", spe::DataSourceLabel(value, cpu)},
                       {"records", n}});
  }
  j["data_sources"] = sources;
  j["records_without_data_source"] = s.records_without_data_source;
  j["skipped_runs"] = s.skipped_ranges;
  nlohmann::json skipped = nlohmann::json::array();
  for (const spe::SkippedRange& r : s.skipped) {
    skipped.push_back({{"offset", r.offset},
                       {"length", r.length},
                       {"reason", SkipReasonId(r.reason)}});
  }
  j["skipped"] = skipped;
  return j;
}

nlohmann::json SpeCaptureStatsJson(const spe::CaptureStats& stats) {
  nlohmann::json j;
  j["cpu"] = {{"name", stats.cpu.name},
              {"midr", absl::StrFormat("0x%x", stats.cpu.midr)}};
  j["total"] = SpeStatsJson(stats.total, stats.cpu);
  nlohmann::json buffers = nlohmann::json::array();
  for (size_t b = 0; b < stats.buffers.size(); ++b) {
    nlohmann::json bj = SpeStatsJson(stats.buffers[b], stats.cpu);
    bj["name"] = b < stats.buffer_names.size() ? stats.buffer_names[b]
                                               : absl::StrCat("buffer ", b);
    bj["index"] = b;
    buffers.push_back(std::move(bj));
  }
  j["buffers"] = buffers;
  return j;
}

std::string FormatSpeStatsJson(const spe::CaptureStats& stats) {
  return JsonText(SpeCaptureStatsJson(stats), JsonLayout::kIndented);
}

}  // namespace hwt::report
