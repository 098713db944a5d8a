// Manifest <-> JSON: writing, and reading the fields (types, required
// fields, enum names, format version, array limits) before handing the
// manifest to ValidateManifest (manifest_validate.cc); see manifest_json.h
// and docs/capture-format.md.
#include "capture/manifest_json.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/json_text.h"
#include "base/status_macros.h"
#include "capture/json_fields.h"

namespace hwt::capture {
namespace {

// --- Writing -----------------------------------------------------------------

Json CpuToJson(const CpuIdentity& cpu) {
  Json out = Json::object();
  if (!cpu.arch.empty()) out["arch"] = cpu.arch;
  if (!cpu.vendor.empty()) out["vendor"] = cpu.vendor;
  if (cpu.family != 0) out["family"] = cpu.family;
  if (cpu.model != 0) out["model"] = cpu.model;
  if (cpu.stepping != 0) out["stepping"] = cpu.stepping;
  if (cpu.cpuid_15_eax != 0) out["cpuid_15_eax"] = cpu.cpuid_15_eax;
  if (cpu.cpuid_15_ebx != 0) out["cpuid_15_ebx"] = cpu.cpuid_15_ebx;
  if (cpu.cpuid_15_ecx != 0) out["cpuid_15_ecx"] = cpu.cpuid_15_ecx;
  if (cpu.nominal_frequency_hz != 0) {
    out["nominal_frequency_hz"] = HexString(cpu.nominal_frequency_hz);
  }
  if (cpu.midr != 0) out["midr"] = HexString(cpu.midr);
  return out;
}

Json PtToJson(const PtConfig& pt) {
  Json out = Json::object();
  out["rtit_ctl"] = HexString(pt.rtit_ctl);
  out["cr3_filter"] = HexString(pt.cr3_filter);
  Json filters = Json::array();
  for (const PtAddressFilter& filter : pt.address_filters) {
    Json f = Json::object();
    f["start"] = HexString(filter.start);
    f["end"] = HexString(filter.end);
    f["config"] = filter.config;
    filters.push_back(std::move(f));
  }
  out["address_filters"] = std::move(filters);
  out["mtc_freq"] = pt.mtc_freq;
  out["cyc_thresh"] = pt.cyc_thresh;
  out["psb_freq"] = pt.psb_freq;
  return out;
}

Json CoreSightToJson(const CoreSightConfig& cs) {
  Json out = Json::object();
  out["sink"] = cs.sink;
  out["formatted"] = cs.formatted;
  out["has_fsyncs"] = cs.has_fsyncs;
  out["has_hsyncs"] = cs.has_hsyncs;
  out["reset_on_4x_fsync"] = cs.reset_on_4x_fsync;
  Json sources = Json::array();
  for (const CoreSightSource& source : cs.sources) {
    Json s = Json::object();
    s["trace_id"] = source.trace_id;
    if (source.cpu) s["cpu"] = *source.cpu;
    if (source.thread) s["thread"] = *source.thread;
    if (!source.architecture.empty()) s["architecture"] = source.architecture;
    if (!source.core_profile.empty()) s["core_profile"] = source.core_profile;
    if (!source.arch_version.empty()) s["arch_version"] = source.arch_version;
    if (source.buffer) s["buffer"] = *source.buffer;
    Json registers = Json::object();
    for (const auto& [name, value] : source.registers) {
      registers[name] = HexString(value);
    }
    s["registers"] = std::move(registers);
    sources.push_back(std::move(s));
  }
  out["sources"] = std::move(sources);
  return out;
}

Json SpeToJson(const SpeConfig& spe) {
  Json out = Json::object();
  out["interval"] = spe.interval;
  out["level"] = spe.level;
  out["ctx_field"] = spe.ctx_field;
  return out;
}

Json BufferToJson(const BufferInfo& buffer) {
  Json out = Json::object();
  out["id"] = buffer.id;
  if (buffer.cpu) out["cpu"] = *buffer.cpu;
  if (buffer.thread) out["thread"] = *buffer.thread;
  out["file"] = buffer.file;
  out["size"] = HexString(buffer.size);
  out["wrapped"] = buffer.wrapped;
  out["data_lost"] = buffer.data_lost;
  if (!buffer.chunks.empty()) {
    Json chunks = Json::array();
    for (const BufferChunk& chunk : buffer.chunks) {
      Json c = Json::object();
      c["offset"] = HexString(chunk.offset);
      c["size"] = HexString(chunk.size);
      c["data_lost_before"] = chunk.data_lost_before;
      c["partial_record"] = chunk.partial_record;
      c["final"] = chunk.final;
      chunks.push_back(std::move(c));
    }
    out["chunks"] = std::move(chunks);
  }
  return out;
}

// --- Reading -----------------------------------------------------------------

absl::Status ReadCpu(const JsonObjectReader& in, CpuIdentity* cpu) {
  HWT_RETURN_IF_ERROR(in.String("arch", &cpu->arch));
  HWT_RETURN_IF_ERROR(in.String("vendor", &cpu->vendor));
  HWT_RETURN_IF_ERROR(in.U32("family", &cpu->family));
  HWT_RETURN_IF_ERROR(in.U32("model", &cpu->model));
  HWT_RETURN_IF_ERROR(in.U32("stepping", &cpu->stepping));
  HWT_RETURN_IF_ERROR(in.U32("cpuid_15_eax", &cpu->cpuid_15_eax));
  HWT_RETURN_IF_ERROR(in.U32("cpuid_15_ebx", &cpu->cpuid_15_ebx));
  HWT_RETURN_IF_ERROR(in.U32("cpuid_15_ecx", &cpu->cpuid_15_ecx));
  HWT_RETURN_IF_ERROR(
      in.U64("nominal_frequency_hz", &cpu->nominal_frequency_hz));
  HWT_RETURN_IF_ERROR(in.U64("midr", &cpu->midr));
  return absl::OkStatus();
}

absl::Status ReadPt(const JsonObjectReader& in, PtConfig* pt) {
  HWT_RETURN_IF_ERROR(in.U64("rtit_ctl", &pt->rtit_ctl, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.U64("cr3_filter", &pt->cr3_filter));
  HWT_ASSIGN_OR_RETURN(const Json* filters, in.Array("address_filters"));
  if (filters != nullptr) {
    if (filters->size() > 4) {
      return in.Error("address_filters",
                      absl::StrCat("at most 4 address ranges exist, got ",
                                   filters->size()));
    }
    for (size_t i = 0; i < filters->size(); ++i) {
      HWT_ASSIGN_OR_RETURN(JsonObjectReader f,
                           in.Element("address_filters", *filters, i));
      PtAddressFilter filter;
      HWT_RETURN_IF_ERROR(f.U64("start", &filter.start, /*required=*/true));
      HWT_RETURN_IF_ERROR(f.U64("end", &filter.end, /*required=*/true));
      HWT_RETURN_IF_ERROR(f.U32("config", &filter.config, /*required=*/true));
      pt->address_filters.push_back(filter);
    }
  }
  HWT_RETURN_IF_ERROR(in.U32("mtc_freq", &pt->mtc_freq));
  HWT_RETURN_IF_ERROR(in.U32("cyc_thresh", &pt->cyc_thresh));
  HWT_RETURN_IF_ERROR(in.U32("psb_freq", &pt->psb_freq));
  return absl::OkStatus();
}

absl::Status ReadCoreSight(const JsonObjectReader& in, CoreSightConfig* cs) {
  HWT_RETURN_IF_ERROR(in.String("sink", &cs->sink, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.Bool("formatted", &cs->formatted, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.Bool("has_fsyncs", &cs->has_fsyncs));
  HWT_RETURN_IF_ERROR(in.Bool("has_hsyncs", &cs->has_hsyncs));
  HWT_RETURN_IF_ERROR(in.Bool("reset_on_4x_fsync", &cs->reset_on_4x_fsync));
  HWT_ASSIGN_OR_RETURN(const Json* sources, in.Array("sources"));
  if (sources == nullptr) return absl::OkStatus();
  if (sources->size() > kMaxCoreSightSources) {
    return in.Error("sources",
                    absl::StrCat("more than ", kMaxCoreSightSources,
                                 " trace sources (", sources->size(), ")"));
  }
  for (size_t i = 0; i < sources->size(); ++i) {
    HWT_ASSIGN_OR_RETURN(JsonObjectReader s,
                         in.Element("sources", *sources, i));
    CoreSightSource source;
    HWT_RETURN_IF_ERROR(s.U32("trace_id", &source.trace_id, /*required=*/true));
    HWT_RETURN_IF_ERROR(s.NonNegativeI32("cpu", &source.cpu));
    HWT_RETURN_IF_ERROR(s.NonNegativeI32("thread", &source.thread));
    HWT_RETURN_IF_ERROR(s.String("architecture", &source.architecture));
    HWT_RETURN_IF_ERROR(s.String("core_profile", &source.core_profile));
    HWT_RETURN_IF_ERROR(s.String("arch_version", &source.arch_version));
    if (s.json().contains("buffer")) {
      uint32_t buffer = 0;
      HWT_RETURN_IF_ERROR(s.U32("buffer", &buffer, /*required=*/true));
      source.buffer = buffer;
    }
    HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> registers,
                         s.Object("registers"));
    if (registers) {
      for (const auto& [name, value] : registers->json().items()) {
        uint64_t reg = 0;
        HWT_RETURN_IF_ERROR(registers->U64(name, &reg, /*required=*/true));
        source.registers[name] = reg;
      }
    }
    cs->sources.push_back(std::move(source));
  }
  return absl::OkStatus();
}

absl::Status ReadSpe(const JsonObjectReader& in, SpeConfig* spe) {
  HWT_RETURN_IF_ERROR(in.U32("interval", &spe->interval));
  HWT_RETURN_IF_ERROR(in.U32("level", &spe->level));
  HWT_RETURN_IF_ERROR(in.U32("ctx_field", &spe->ctx_field));
  return absl::OkStatus();
}

absl::Status ReadBuffer(const JsonObjectReader& in, BufferInfo* buffer) {
  HWT_RETURN_IF_ERROR(in.U32("id", &buffer->id, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.NonNegativeI32("cpu", &buffer->cpu));
  HWT_RETURN_IF_ERROR(in.NonNegativeI32("thread", &buffer->thread));
  HWT_RETURN_IF_ERROR(in.String("file", &buffer->file, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.U64("size", &buffer->size, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.Bool("wrapped", &buffer->wrapped));
  HWT_RETURN_IF_ERROR(in.Bool("data_lost", &buffer->data_lost));
  HWT_ASSIGN_OR_RETURN(const Json* chunks, in.Array("chunks"));
  if (chunks == nullptr) return absl::OkStatus();
  if (chunks->size() > kMaxChunksPerBuffer) {
    return in.Error("chunks", absl::StrCat("more than ", kMaxChunksPerBuffer,
                                           " chunks (", chunks->size(), ")"));
  }
  buffer->chunks.reserve(chunks->size());
  for (size_t i = 0; i < chunks->size(); ++i) {
    HWT_ASSIGN_OR_RETURN(JsonObjectReader c, in.Element("chunks", *chunks, i));
    BufferChunk chunk;
    HWT_RETURN_IF_ERROR(c.U64("offset", &chunk.offset, /*required=*/true));
    HWT_RETURN_IF_ERROR(c.U64("size", &chunk.size, /*required=*/true));
    HWT_RETURN_IF_ERROR(c.Bool("data_lost_before", &chunk.data_lost_before));
    HWT_RETURN_IF_ERROR(c.Bool("partial_record", &chunk.partial_record));
    HWT_RETURN_IF_ERROR(c.Bool("final", &chunk.final));
    buffer->chunks.push_back(chunk);
  }
  return absl::OkStatus();
}

absl::Status ReadImage(const JsonObjectReader& in, BundledImage* image) {
  HWT_RETURN_IF_ERROR(in.String("build_id", &image->build_id));
  image->build_id = absl::AsciiStrToLower(image->build_id);
  HWT_RETURN_IF_ERROR(
      in.String("original_path", &image->original_path, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.String("file", &image->file, /*required=*/true));
  return absl::OkStatus();
}

absl::Status ReadMemoryDump(const JsonObjectReader& in, MemoryDump* dump) {
  HWT_RETURN_IF_ERROR(in.String("file", &dump->file, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.U64("address", &dump->address, /*required=*/true));
  HWT_RETURN_IF_ERROR(in.U64("file_offset", &dump->file_offset));
  HWT_RETURN_IF_ERROR(in.U64("size", &dump->size));
  std::string space;
  HWT_RETURN_IF_ERROR(in.String("space", &space));
  if (!space.empty()) {
    std::optional<MemorySpace> parsed = ParseMemorySpace(space);
    if (!parsed) {
      return in.Error("space",
                      absl::StrCat("unknown memory space \"", space, "\""));
    }
    dump->space = *parsed;
  }
  return absl::OkStatus();
}

// Reads a required string naming an enumerator.
template <typename T, typename Parser>
absl::Status ReadEnum(const JsonObjectReader& in, std::string_view key,
                      bool required, Parser parse, std::string_view expected,
                      T* out) {
  std::string name;
  HWT_RETURN_IF_ERROR(in.String(key, &name, required));
  if (!in.Has(key)) return absl::OkStatus();
  std::optional<T> value = parse(name);
  if (!value) {
    return in.Error(key, absl::StrCat("unknown value \"", name, "\" (expected ",
                                      std::string(expected), ")"));
  }
  *out = *value;
  return absl::OkStatus();
}

// The buffers, images and memory dumps, each list within its limit.
absl::Status ReadLists(const JsonObjectReader& top, Manifest* manifest) {
  HWT_ASSIGN_OR_RETURN(const Json* buffers,
                       top.Array("buffers", /*required=*/true));
  if (buffers->size() > kMaxBuffers) {
    return top.Error("buffers",
                     absl::StrCat("more than ", kMaxBuffers, " buffers (",
                                  buffers->size(), ")"));
  }
  for (size_t i = 0; i < buffers->size(); ++i) {
    HWT_ASSIGN_OR_RETURN(JsonObjectReader b,
                         top.Element("buffers", *buffers, i));
    HWT_RETURN_IF_ERROR(ReadBuffer(b, &manifest->buffers.emplace_back()));
  }
  HWT_ASSIGN_OR_RETURN(const Json* images, top.Array("images"));
  if (images != nullptr) {
    if (images->size() > kMaxImages) {
      return top.Error("images",
                       absl::StrCat("more than ", kMaxImages, " images (",
                                    images->size(), ")"));
    }
    for (size_t i = 0; i < images->size(); ++i) {
      HWT_ASSIGN_OR_RETURN(JsonObjectReader image,
                           top.Element("images", *images, i));
      HWT_RETURN_IF_ERROR(ReadImage(image, &manifest->images.emplace_back()));
    }
  }
  HWT_ASSIGN_OR_RETURN(const Json* memory, top.Array("memory"));
  if (memory != nullptr) {
    if (memory->size() > kMaxMemoryDumps) {
      return top.Error("memory",
                       absl::StrCat("more than ", kMaxMemoryDumps,
                                    " memory dumps (", memory->size(), ")"));
    }
    for (size_t i = 0; i < memory->size(); ++i) {
      HWT_ASSIGN_OR_RETURN(JsonObjectReader dump,
                           top.Element("memory", *memory, i));
      HWT_RETURN_IF_ERROR(
          ReadMemoryDump(dump, &manifest->memory.emplace_back()));
    }
  }
  HWT_ASSIGN_OR_RETURN(const Json* problems, top.Array("import_problems"));
  if (problems != nullptr) {
    if (problems->size() > kMaxImportProblems) {
      return top.Error("import_problems",
                       absl::StrCat("more than ", kMaxImportProblems,
                                    " entries (", problems->size(), ")"));
    }
    for (size_t i = 0; i < problems->size(); ++i) {
      if (!(*problems)[i].is_string()) {
        return top.Error("import_problems",
                         absl::StrCat("entry ", i, " is not a string"));
      }
      manifest->import_problems.push_back((*problems)[i].get<std::string>());
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view RecordNumberingName(RecordNumbering numbering) {
  switch (numbering) {
    case RecordNumbering::kUpstream:
      return "upstream";
    case RecordNumbering::kCheriBsd:
      return "cheribsd";
  }
  return "upstream";
}

std::optional<RecordNumbering> ParseRecordNumbering(std::string_view name) {
  if (name == "upstream") return RecordNumbering::kUpstream;
  if (name == "cheribsd") return RecordNumbering::kCheriBsd;
  return std::nullopt;
}

std::optional<TraceMode> ParseTraceMode(std::string_view name) {
  for (TraceMode mode : {TraceMode::kThread, TraceMode::kCpu}) {
    if (name == TraceModeName(mode)) return mode;
  }
  return std::nullopt;
}

std::optional<FormatVersion> ParseFormatVersion(std::string_view text) {
  std::vector<std::string> parts =
      absl::StrSplit(absl::string_view(text.data(), text.size()), '.');
  if (parts.size() != 2) return std::nullopt;
  FormatVersion version;
  int* fields[2] = {&version.major, &version.minor};
  for (int i = 0; i < 2; ++i) {
    const std::string& part = parts[i];
    if (part.empty() || part.size() > 6) return std::nullopt;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    *fields[i] = std::stoi(part);
  }
  return version;
}

absl::Status CheckFormatVersion(const FormatVersion& version,
                                std::string_view where) {
  if (version.major > kFormatMajorVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: capture format %d.%d is newer than this hwt (reads %d.x); "
        "upgrade hwt",
        where, version.major, version.minor, kFormatMajorVersion));
  }
  if (version.major < kFormatMajorVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: capture format %d.%d is not supported (this hwt reads %d.x)",
        where, version.major, version.minor, kFormatMajorVersion));
  }
  return absl::OkStatus();
}

namespace {

// "labels": {"KEY": "VALUE", ...}: strings only, keys not empty.
absl::Status ReadLabels(const JsonObjectReader& top,
                        std::map<std::string, std::string>* labels) {
  HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> object,
                       top.Object("labels"));
  if (!object) return absl::OkStatus();
  for (const auto& [key, value] : object->json().items()) {
    if (key.empty()) return object->Error("", "a label with an empty name");
    if (!value.is_string()) {
      return object->Error(key, "expected a string");
    }
    (*labels)[key] = value.get<std::string>();
  }
  return absl::OkStatus();
}

}  // namespace

std::string ManifestToJson(const Manifest& manifest) {
  Json out = Json::object();
  out["format"] = std::string(kManifestFormatName);
  out["version"] =
      absl::StrCat(kFormatMajorVersion, ".", manifest.labels.empty() ? 0 : 1);
  out["backend"] = std::string(BackendName(manifest.backend));
  out["mode"] = std::string(TraceModeName(manifest.mode));
  out["record_numbering"] =
      std::string(RecordNumberingName(manifest.record_numbering));
  if (manifest.pid) out["pid"] = *manifest.pid;
  if (!manifest.command.empty()) out["command"] = manifest.command;
  if (!manifest.hostname.empty()) out["hostname"] = manifest.hostname;
  if (!manifest.os.empty()) out["os"] = manifest.os;
  if (!manifest.created.empty()) out["created"] = manifest.created;
  if (!manifest.recorder.empty()) out["recorder"] = manifest.recorder;
  if (!manifest.labels.empty()) {
    Json labels = Json::object();
    for (const auto& [key, value] : manifest.labels) labels[key] = value;
    out["labels"] = std::move(labels);
  }
  out["cpu"] = CpuToJson(manifest.cpu);
  if (manifest.pt) out["pt"] = PtToJson(*manifest.pt);
  if (manifest.coresight)
    out["coresight"] = CoreSightToJson(*manifest.coresight);
  if (manifest.spe) out["spe"] = SpeToJson(*manifest.spe);
  Json buffers = Json::array();
  for (const BufferInfo& buffer : manifest.buffers) {
    buffers.push_back(BufferToJson(buffer));
  }
  out["buffers"] = std::move(buffers);
  Json images = Json::array();
  for (const BundledImage& image : manifest.images) {
    Json i = Json::object();
    if (!image.build_id.empty()) i["build_id"] = image.build_id;
    i["original_path"] = image.original_path;
    i["file"] = image.file;
    images.push_back(std::move(i));
  }
  out["images"] = std::move(images);
  Json memory = Json::array();
  for (const MemoryDump& dump : manifest.memory) {
    Json m = Json::object();
    m["file"] = dump.file;
    m["address"] = HexString(dump.address);
    m["file_offset"] = HexString(dump.file_offset);
    m["size"] = HexString(dump.size);
    m["space"] = std::string(MemorySpaceName(dump.space));
    memory.push_back(std::move(m));
  }
  out["memory"] = std::move(memory);
  if (!manifest.import_problems.empty()) {
    out["import_problems"] = manifest.import_problems;
  }
  return JsonText(out, JsonLayout::kIndented);
}

absl::StatusOr<Manifest> ParseManifest(std::string_view text,
                                       std::string_view where) {
  const std::string source(where);
  HWT_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, source));
  HWT_ASSIGN_OR_RETURN(JsonObjectReader top,
                       JsonObjectReader::Create(json, source, ""));
  Manifest manifest;

  // The version comes first: a newer major version may look like anything.
  std::string version_text;
  HWT_RETURN_IF_ERROR(top.String("version", &version_text, /*required=*/true));
  std::optional<FormatVersion> version = ParseFormatVersion(version_text);
  if (!version) {
    return top.Error("version", absl::StrCat("expected \"MAJOR.MINOR\" (e.g. "
                                             "\"1.0\"), got \"",
                                             version_text, "\""));
  }
  HWT_RETURN_IF_ERROR(CheckFormatVersion(*version, source));
  manifest.major_version = version->major;
  manifest.minor_version = version->minor;

  std::string format;
  HWT_RETURN_IF_ERROR(top.String("format", &format, /*required=*/true));
  if (format != kManifestFormatName) {
    return top.Error(
        "format", absl::StrCat("expected \"", std::string(kManifestFormatName),
                               "\", got \"", format, "\""));
  }

  std::string backend;
  HWT_RETURN_IF_ERROR(top.String("backend", &backend, /*required=*/true));
  std::optional<Backend> parsed_backend = ParseBackend(backend);
  // Only the canonical names (ParseBackend also knows command-line aliases).
  if (!parsed_backend || BackendName(*parsed_backend) != backend) {
    return top.Error("backend",
                     absl::StrCat("unknown backend \"", backend,
                                  "\" (expected \"pt\", \"coresight\" or "
                                  "\"spe\")"));
  }
  manifest.backend = *parsed_backend;
  HWT_RETURN_IF_ERROR(ReadEnum(top, "mode", /*required=*/true, ParseTraceMode,
                               "\"thread\" or \"cpu\"", &manifest.mode));
  HWT_RETURN_IF_ERROR(ReadEnum(
      top, "record_numbering", /*required=*/false, ParseRecordNumbering,
      "\"upstream\" or \"cheribsd\"", &manifest.record_numbering));
  HWT_RETURN_IF_ERROR(top.NonNegativeI64("pid", &manifest.pid));
  HWT_RETURN_IF_ERROR(top.String("command", &manifest.command));
  HWT_RETURN_IF_ERROR(top.String("hostname", &manifest.hostname));
  HWT_RETURN_IF_ERROR(top.String("os", &manifest.os));
  HWT_RETURN_IF_ERROR(top.String("created", &manifest.created));
  HWT_RETURN_IF_ERROR(top.String("recorder", &manifest.recorder));
  HWT_RETURN_IF_ERROR(ReadLabels(top, &manifest.labels));

  HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> cpu, top.Object("cpu"));
  if (cpu) HWT_RETURN_IF_ERROR(ReadCpu(*cpu, &manifest.cpu));
  HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> pt, top.Object("pt"));
  if (pt) HWT_RETURN_IF_ERROR(ReadPt(*pt, &manifest.pt.emplace()));
  HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> cs,
                       top.Object("coresight"));
  if (cs)
    HWT_RETURN_IF_ERROR(ReadCoreSight(*cs, &manifest.coresight.emplace()));
  HWT_ASSIGN_OR_RETURN(std::optional<JsonObjectReader> spe, top.Object("spe"));
  if (spe) HWT_RETURN_IF_ERROR(ReadSpe(*spe, &manifest.spe.emplace()));

  HWT_RETURN_IF_ERROR(ReadLists(top, &manifest));
  HWT_RETURN_IF_ERROR(ValidateManifest(manifest, source));
  return manifest;
}

}  // namespace hwt::capture
