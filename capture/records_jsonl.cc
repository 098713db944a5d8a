// HWT records <-> JSON lines; see records_jsonl.h.
#include "capture/records_jsonl.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/json_text.h"
#include "base/status_macros.h"
#include "capture/json_fields.h"
#include "capture/manifest_json.h"

namespace hwt::capture {
namespace {

bool HasPath(RecordType type) {
  return type == RecordType::kMmap || type == RecordType::kExecutable ||
         type == RecordType::kInterp || type == RecordType::kKernel;
}
bool HasAddr(RecordType type) {
  return HasPath(type) || type == RecordType::kMunmap;
}
bool HasThread(RecordType type) {
  return type == RecordType::kThreadCreate ||
         type == RecordType::kThreadSetName;
}

// Checks one record against the manifest; `where` already names the record.
absl::Status CheckRecord(const Record& record, RecordNumbering numbering,
                         const std::map<uint32_t, uint64_t>& buffer_sizes,
                         const std::string& where) {
  if (record.path.size() > kMaxPathLength) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": path: longer than ", kMaxPathLength, " bytes"));
  }
  if (record.thread_id < 0 || record.buf_id < 0 || record.curpage < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": thread_id/buf_id/curpage: negative value"));
  }
  if (!IsPerfRecordType(record.type) && !KernelValue(record.type, numbering)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": type: \"", std::string(RecordTypeName(record.type)),
        "\" records do not exist in the ",
        std::string(RecordNumberingName(numbering)),
        " numbering (see the manifest's record_numbering)"));
  }
  std::set<uint32_t> seen;
  for (size_t i = 0; i < record.positions.size(); ++i) {
    const BufferPosition& position = record.positions[i];
    auto it = buffer_sizes.find(position.buffer_id);
    if (it == buffer_sizes.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": positions[", i, "].buffer: no buffer with id ",
                       position.buffer_id, " in the manifest"));
    }
    if (!seen.insert(position.buffer_id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": positions[", i, "].buffer: buffer ",
                       position.buffer_id, " is listed twice"));
    }
    if (position.offset > it->second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: positions[%d].offset: 0x%x is past the end of buffer %u (size "
          "0x%x)",
          where, i, position.offset, position.buffer_id, it->second));
    }
  }
  return absl::OkStatus();
}

std::map<uint32_t, uint64_t> BufferSizes(const Manifest& manifest) {
  std::map<uint32_t, uint64_t> sizes;
  for (const BufferInfo& buffer : manifest.buffers) {
    sizes[buffer.id] = buffer.size;
  }
  return sizes;
}

// The perf sideband fields (all optional).
absl::Status ParsePerfFields(const JsonObjectReader& in, Record* record) {
  HWT_RETURN_IF_ERROR(in.I32("pid", &record->pid));
  HWT_RETURN_IF_ERROR(in.I32("tid", &record->tid));
  HWT_RETURN_IF_ERROR(in.I32("cpu", &record->cpu));
  HWT_RETURN_IF_ERROR(in.I32("other_pid", &record->other_pid));
  HWT_RETURN_IF_ERROR(in.I32("other_tid", &record->other_tid));
  if (in.Has("time")) {
    uint64_t time = 0;
    HWT_RETURN_IF_ERROR(in.U64("time", &time));
    record->time = time;
  }
  if (in.Has("pgoff")) {
    uint64_t pgoff = 0;
    HWT_RETURN_IF_ERROR(in.U64("pgoff", &pgoff));
    record->pgoff = pgoff;
  }
  HWT_RETURN_IF_ERROR(in.U64("length", &record->length));
  HWT_RETURN_IF_ERROR(in.U64("value", &record->value));
  HWT_RETURN_IF_ERROR(in.U32("flags", &record->flags));
  HWT_RETURN_IF_ERROR(in.String("build_id", &record->build_id));
  if (record->build_id.size() > 128 ||
      record->build_id.find_first_not_of("0123456789abcdef") !=
          std::string::npos) {
    return in.Error("build_id", "expected lowercase hex (at most 64 bytes)");
  }
  return absl::OkStatus();
}

void WritePerfFields(const Record& record, Json* out) {
  auto optional_int = [&](const char* key, const std::optional<int32_t>& v) {
    if (v) (*out)[key] = *v;
  };
  optional_int("pid", record.pid);
  optional_int("tid", record.tid);
  optional_int("cpu", record.cpu);
  optional_int("other_pid", record.other_pid);
  optional_int("other_tid", record.other_tid);
  if (record.time) (*out)["time"] = *record.time;
  if (record.pgoff) (*out)["pgoff"] = HexString(*record.pgoff);
  if (record.length != 0) (*out)["length"] = HexString(record.length);
  if (record.value != 0) (*out)["value"] = record.value;
  if (record.flags != 0) (*out)["flags"] = record.flags;
  if (!record.build_id.empty()) (*out)["build_id"] = record.build_id;
}

absl::StatusOr<Record> ParseRecordObject(const Json& json,
                                         RecordNumbering numbering,
                                         const std::string& where) {
  HWT_ASSIGN_OR_RETURN(JsonObjectReader in,
                       JsonObjectReader::Create(json, where, ""));
  Record record;
  std::optional<RecordType> type;
  if (in.Has("type")) {
    std::string name;
    HWT_RETURN_IF_ERROR(in.String("type", &name));
    type = ParseRecordTypeName(name);
    if (!type) {
      return in.Error("type",
                      absl::StrCat("unknown record type \"", name, "\""));
    }
  }
  if (in.Has("kernel_type")) {
    uint32_t value = 0;
    HWT_RETURN_IF_ERROR(in.U32("kernel_type", &value));
    std::optional<RecordType> from_kernel =
        RecordTypeFromKernel(value, numbering);
    const std::string numbering_name(RecordNumberingName(numbering));
    if (!from_kernel) {
      return in.Error("kernel_type",
                      absl::StrCat(value, " is not a record type in the ",
                                   numbering_name, " numbering"));
    }
    if (type && *type != *from_kernel) {
      return in.Error(
          "kernel_type",
          absl::StrCat(value, " is \"",
                       std::string(RecordTypeName(*from_kernel)), "\" in the ",
                       numbering_name, " numbering, but type says \"",
                       std::string(RecordTypeName(*type)), "\""));
    }
    type = from_kernel;
  }
  if (!type) {
    return in.Error("type",
                    "missing required field (give type or "
                    "kernel_type)");
  }
  record.type = *type;
  HWT_RETURN_IF_ERROR(in.String("path", &record.path, HasPath(record.type)));
  HWT_RETURN_IF_ERROR(in.U64("addr", &record.addr));
  HWT_RETURN_IF_ERROR(in.U64("baseaddr", &record.baseaddr));
  std::optional<int32_t> value;
  HWT_RETURN_IF_ERROR(
      in.NonNegativeI32("thread_id", &value, HasThread(record.type)));
  record.thread_id = value.value_or(0);
  value.reset();
  const bool is_buffer = record.type == RecordType::kBuffer;
  HWT_RETURN_IF_ERROR(in.NonNegativeI32("buf_id", &value, is_buffer));
  record.buf_id = value.value_or(0);
  value.reset();
  HWT_RETURN_IF_ERROR(in.NonNegativeI32("curpage", &value, is_buffer));
  record.curpage = value.value_or(0);
  HWT_RETURN_IF_ERROR(in.U64("buf_offset", &record.buf_offset, is_buffer));
  HWT_RETURN_IF_ERROR(ParsePerfFields(in, &record));
  HWT_ASSIGN_OR_RETURN(const Json* positions, in.Array("positions"));
  if (positions != nullptr) {
    if (positions->size() > kMaxBuffers) {
      return in.Error("positions",
                      absl::StrCat("more than ", kMaxBuffers, " positions"));
    }
    for (size_t i = 0; i < positions->size(); ++i) {
      HWT_ASSIGN_OR_RETURN(JsonObjectReader p,
                           in.Element("positions", *positions, i));
      BufferPosition position;
      HWT_RETURN_IF_ERROR(
          p.U32("buffer", &position.buffer_id, /*required=*/true));
      HWT_RETURN_IF_ERROR(p.U64("offset", &position.offset, /*required=*/true));
      record.positions.push_back(position);
    }
  }
  return record;
}

}  // namespace

std::string RecordToJsonLine(const Record& record, RecordNumbering numbering) {
  Json out = Json::object();
  out["type"] = std::string(RecordTypeName(record.type));
  if (std::optional<uint32_t> value = KernelValue(record.type, numbering)) {
    out["kernel_type"] = *value;
  }
  if (HasPath(record.type) || !record.path.empty()) out["path"] = record.path;
  if (HasAddr(record.type) || record.addr != 0) {
    out["addr"] = HexString(record.addr);
  }
  if (record.type == RecordType::kExecutable || record.baseaddr != 0) {
    out["baseaddr"] = HexString(record.baseaddr);
  }
  if (HasThread(record.type) || record.thread_id != 0) {
    out["thread_id"] = record.thread_id;
  }
  if (record.type == RecordType::kBuffer || record.buf_id != 0 ||
      record.curpage != 0 || record.buf_offset != 0) {
    out["buf_id"] = record.buf_id;
    out["curpage"] = record.curpage;
    out["buf_offset"] = HexString(record.buf_offset);
  }
  WritePerfFields(record, &out);
  Json positions = Json::array();
  for (const BufferPosition& position : record.positions) {
    Json p = Json::object();
    p["buffer"] = position.buffer_id;
    p["offset"] = HexString(position.offset);
    positions.push_back(std::move(p));
  }
  out["positions"] = std::move(positions);
  return JsonText(out, JsonLayout::kOneLine);
}

std::string RecordsToJsonl(const std::vector<Record>& records,
                           RecordNumbering numbering) {
  std::string out;
  for (const Record& record : records) {
    out += RecordToJsonLine(record, numbering);
    out += '\n';
  }
  return out;
}

absl::StatusOr<std::vector<Record>> ParseRecordsJsonl(std::string_view text,
                                                      const Manifest& manifest,
                                                      std::string_view where) {
  const std::map<uint32_t, uint64_t> buffer_sizes = BufferSizes(manifest);
  std::vector<Record> records;
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::string line_where =
        absl::StrCat(std::string(where), ":", line_number);
    if (line.size() > kMaxRecordLineLength) {
      return absl::InvalidArgumentError(absl::StrCat(
          line_where, ": line longer than ", kMaxRecordLineLength, " bytes"));
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    HWT_ASSIGN_OR_RETURN(Json json, ParseJsonText(line, line_where));
    HWT_ASSIGN_OR_RETURN(
        Record record,
        ParseRecordObject(json, manifest.record_numbering, line_where));
    HWT_RETURN_IF_ERROR(CheckRecord(record, manifest.record_numbering,
                                    buffer_sizes, line_where));
    records.push_back(std::move(record));
  }
  return records;
}

absl::Status ValidateRecords(const std::vector<Record>& records,
                             const Manifest& manifest, std::string_view where) {
  const std::map<uint32_t, uint64_t> buffer_sizes = BufferSizes(manifest);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string record_where =
        absl::StrCat(std::string(where), ": record ", i);
    HWT_RETURN_IF_ERROR(CheckRecord(records[i], manifest.record_numbering,
                                    buffer_sizes, record_where));
  }
  return absl::OkStatus();
}

}  // namespace hwt::capture
