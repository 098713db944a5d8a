// OpenCSD / DS-5 snapshot importer, the parser half: builds the capture
// manifest from the entries the .ini tokenizer (ini_file.h) read. Steps:
// snapshot.ini (version, device list, trace metadata), the device files
// (registers, memory dumps), trace.ini (buffers, which source feeds which
// buffer and traces which core), then one manifest buffer per trace buffer
// and one CoreSight source per program-flow trace source.
#include "capture/opencsd_snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/ini_file.h"

namespace hwt::capture {
namespace {

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (dir.empty() || (!file.empty() && file[0] == '/')) return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsRegularFile(const std::string& path, uint64_t* size = nullptr) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (size != nullptr) *size = static_cast<uint64_t>(st.st_size);
  return true;
}

absl::StatusOr<ini::File> ReadIni(const std::string& dir,
                                  const std::string& name) {
  std::string path = JoinPath(dir, name);
  auto text = ReadFileToString(path);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(
          absl::StrFormat("%s: no such file (in snapshot %s)", name, dir));
    }
    return text.status();
  }
  return ini::Parse(name, *text);
}

// ---------------------------------------------------------------- devices

struct Dump {
  std::string file;
  uint64_t address = 0;
  uint64_t length = 0;
  uint64_t offset = 0;
  MemorySpace space = MemorySpace::kAny;
};

struct Device {
  ini::File ini;
  std::string name;
  std::string device_class;  // "core", "trace_source", ...
  std::string type;          // "Cortex-A57", "ETM4", "PTM1.1", "ETE", ...
  // Register name (upper case, without the "(0x...)" suffix) -> value.
  std::map<std::string, uint64_t> registers;
  std::map<std::string, const ini::Entry*> register_entries;
  const ini::Section* regs_section = nullptr;
  std::vector<Dump> dumps;
};

// Memory space names of snapshot dumps (OpenCSD's ss_to_dcdtree table).
std::optional<MemorySpace> ParseSnapshotSpace(std::string_view name) {
  static const std::pair<const char*, MemorySpace> kSpaces[] = {
      {"EL1S", MemorySpace::kEL1S}, {"EL1N", MemorySpace::kEL1N},
      {"EL2S", MemorySpace::kEL2S}, {"EL2", MemorySpace::kEL2N},
      {"EL2N", MemorySpace::kEL2N}, {"EL3", MemorySpace::kEL3},
      {"S", MemorySpace::kSecure},  {"N", MemorySpace::kNonSecure},
      {"ANY", MemorySpace::kAny},   {"H", MemorySpace::kEL2N},
      {"P", MemorySpace::kEL1N},    {"NP", MemorySpace::kEL1N},
      {"SP", MemorySpace::kEL1S},
  };
  std::string upper = absl::AsciiStrToUpper(std::string(name));
  for (const auto& [key, space] : kSpaces) {
    if (upper == key) return space;
  }
  return std::nullopt;
}

absl::StatusOr<Dump> ParseDump(const ini::File& ini,
                               const ini::Section& section) {
  HWT_RETURN_IF_ERROR(ini::RejectDuplicateKeys(ini, section));
  Dump dump;
  bool have_file = false;
  bool have_address = false;
  for (const ini::Entry& e : section.entries) {
    if (e.key == "file") {
      dump.file = ini::Trim(e.value, " \t\"'");
      have_file = !dump.file.empty();
    } else if (e.key == "address") {
      HWT_ASSIGN_OR_RETURN(dump.address, ini::RequireNumber(ini, section, e));
      have_address = true;
    } else if (e.key == "length") {
      HWT_ASSIGN_OR_RETURN(dump.length, ini::RequireNumber(ini, section, e));
    } else if (e.key == "offset") {
      HWT_ASSIGN_OR_RETURN(dump.offset, ini::RequireNumber(ini, section, e));
    } else if (e.key == "space") {
      std::string space = ini::Trim(e.value, " \t\"'");
      auto parsed = ParseSnapshotSpace(space);
      if (!parsed) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unknown memory space '%s' (expected EL1S, EL1N, EL2, EL2N, "
            "EL2S, EL3, S, N, ANY, H, P, NP or SP)",
            ini::Where(ini, section, e), space));
      }
      dump.space = *parsed;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: unknown key in a memory dump section (expected file, address, "
          "length, offset, space)",
          ini::Where(ini, section, e)));
    }
  }
  if (!have_file) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: memory dump without 'file' (section starts at line %d)",
        ini::Where(ini, section), section.line));
  }
  if (!have_address) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: memory dump without 'address' (section starts at line %d)",
        ini::Where(ini, section), section.line));
  }
  return dump;
}

absl::StatusOr<Device> ReadDevice(const std::string& dir,
                                  const std::string& file) {
  Device device;
  HWT_ASSIGN_OR_RETURN(device.ini, ReadIni(dir, file));
  const ini::File& ini = device.ini;
  const ini::Section* header = ini.Find("device");
  if (header == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no [device] section", ini.name));
  }
  HWT_ASSIGN_OR_RETURN(device.name, ini::RequireKey(ini, *header, "name"));
  if (const ini::Entry* e = header->Find("class"))
    device.device_class = e->value;
  if (const ini::Entry* e = header->Find("type")) device.type = e->value;
  for (const ini::Section& section : ini.sections) {
    if (section.name == "regs") {
      device.regs_section = &section;
      for (const ini::Entry& e : section.entries) {
        // "TRCIDR0(0x078)", "TRCPROCSELR(id:0x2)", "PC(size:64)", "CPSR".
        std::string reg = absl::AsciiStrToUpper(
            ini::Trim(std::string_view(e.key).substr(0, e.key.find('('))));
        if (device.register_entries.count(reg) != 0) {
          return absl::InvalidArgumentError(
              absl::StrFormat("%s: register given twice (line %d)",
                              ini::Where(ini, section, e), e.line));
        }
        device.register_entries[reg] = &e;
      }
    } else if (absl::StartsWith(section.name, "dump")) {
      HWT_ASSIGN_OR_RETURN(Dump dump, ParseDump(ini, section));
      device.dumps.push_back(std::move(dump));
    }
  }
  return device;
}

// Which program-flow decoder a trace source type needs; empty for STM, ITM
// and anything else that is not program-flow trace.
std::string ArchitectureForSourceType(std::string_view type) {
  std::string base(type.substr(0, type.find('.')));
  if (base == "ETM4") return "etmv4";
  if (base == "ETM3") return "etmv3";
  if (base == "PTM1" || base == "PFT1") return "ptm";
  if (base == "ETE") return "ete";
  return "";
}

std::string TraceIdRegister(const std::string& architecture) {
  return architecture == "etmv3" || architecture == "ptm" ? "ETMTRACEIDR"
                                                          : "TRCTRACEIDR";
}

// "cpu_3" -> 3 (the naming OpenCSD's and perf's snapshot writers use).
std::optional<int32_t> CpuNumberFromName(std::string_view name) {
  if (!name.starts_with("cpu_")) return std::nullopt;
  int32_t cpu = 0;
  if (!absl::SimpleAtoi(std::string(name.substr(4)), &cpu) || cpu < 0) {
    return std::nullopt;
  }
  return cpu;
}

// Sink name for a formatted buffer: "etb"/"etf"/"etr" when the buffer's name
// says so (ETB_0, etr_0, ...), else "etr".
std::string SinkForBufferName(const std::string& name) {
  std::string lower = absl::AsciiStrToLower(name);
  for (const char* sink : {"etb", "etf", "etr"}) {
    if (absl::StartsWith(lower, sink)) return sink;
  }
  return "etr";
}

struct TraceBuffer {
  const ini::Section* section = nullptr;
  std::string name;
  std::string file;
  std::string format;
};

}  // namespace

CoreArchProfile CoreArchProfileForName(std::string_view core_type) {
  static const std::pair<const char*, CoreArchProfile> kCores[] = {
      {"Cortex-A78", {"v8", "A"}},
      {"Cortex-A77", {"v8.3", "A"}},
      {"Cortex-A76", {"v8.3", "A"}},
      {"Cortex-A75", {"v8.3", "A"}},
      {"Cortex-A73", {"v8", "A"}},
      {"Cortex-A72", {"v8", "A"}},
      {"Cortex-A65", {"v8.3", "A"}},
      {"Cortex-A57", {"v8", "A"}},
      {"Cortex-A55", {"v8.3", "A"}},
      {"Cortex-A53", {"v8", "A"}},
      {"Cortex-A35", {"v8", "A"}},
      {"Cortex-A32", {"v8", "A"}},
      {"Cortex-A17", {"v7", "A"}},
      {"Cortex-A15", {"v7", "A"}},
      {"Cortex-A12", {"v7", "A"}},
      {"Cortex-A9", {"v7", "A"}},
      {"Cortex-A8", {"v7", "A"}},
      {"Cortex-A7", {"v7", "A"}},
      {"Cortex-A5", {"v7", "A"}},
      {"Cortex-R52", {"v8", "R"}},
      {"Cortex-R8", {"v7", "R"}},
      {"Cortex-R7", {"v7", "R"}},
      {"Cortex-R5", {"v7", "R"}},
      {"Cortex-R4", {"v7", "R"}},
      {"Cortex-M33", {"v8", "M"}},
      {"Cortex-M23", {"v8", "M"}},
      {"Cortex-M0", {"v7", "M"}},
      {"Cortex-M0+", {"v7", "M"}},
      {"Cortex-M3", {"v7", "M"}},
      {"Cortex-M4", {"v7", "M"}},
      // Later cores (OpenCSD >= 1.4 knows them; 1.3.3's table stops above).
      {"Cortex-M55", {"v8", "M"}},
      {"Cortex-M85", {"v8", "M"}},
      {"Cortex-A510", {"aa64", "A"}},
      {"Cortex-A710", {"aa64", "A"}},
      {"Cortex-X2", {"aa64", "A"}},
      {"Neoverse-N1", {"v8.3", "A"}},
      {"Neoverse-N2", {"aa64", "A"}},
      {"Neoverse-V1", {"aa64", "A"}},
  };
  for (const auto& [name, profile] : kCores) {
    if (core_type == name) return profile;
  }
  // ARMvM[.m]-P, e.g. ARMv8.2-A, ARMv7-M.
  if (core_type.starts_with("ARMv") && core_type.size() >= 7) {
    char major = core_type[4];
    size_t rest = 5;
    char minor = '0';
    if (core_type[5] == '.') {
      if (core_type.size() < 9) return {};
      minor = core_type[6];
      rest = 7;
    }
    if (core_type[rest] != '-' || rest + 1 >= core_type.size()) return {};
    char p = core_type[rest + 1];
    if (p != 'A' && p != 'R' && p != 'M') return {};
    std::string arch;
    if (major == '7') {
      arch = "v7";
    } else if (major == '8') {
      arch = minor < '3' ? "v8" : minor == '3' ? "v8.3" : "aa64";
    } else if (major > '8' && major <= '9') {
      arch = "aa64";
    } else {
      return {};
    }
    return {arch, std::string(1, p)};
  }
  // ARM-AA64[-P] (the ETE test snapshots use "ARM-AA64").
  if (core_type.starts_with("ARM-AA64") || core_type.starts_with("ARM-aa64")) {
    std::string profile = "A";
    if (core_type.size() >= 10 && core_type[8] == '-') {
      if (core_type[9] == 'R') profile = "R";
      if (core_type[9] == 'M') profile = "M";
    }
    return {"aa64", profile};
  }
  return {};
}

bool IsOpenCsdSnapshot(const std::string& path) {
  if (IsDirectory(path)) return IsRegularFile(JoinPath(path, "snapshot.ini"));
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base == "snapshot.ini" && IsRegularFile(path);
}

namespace {

// The snapshot directory that `path` names: the directory itself, or the one
// holding the snapshot.ini it names; without trailing slashes.
absl::StatusOr<std::string> SnapshotDirectory(const std::string& path) {
  std::string dir = path;
  if (!IsDirectory(dir)) {
    size_t slash = path.rfind('/');
    std::string base =
        slash == std::string::npos ? path : path.substr(slash + 1);
    if (base != "snapshot.ini" || !IsRegularFile(path)) {
      return absl::NotFoundError(absl::StrFormat(
          "%s: not a snapshot directory (expected a directory holding "
          "snapshot.ini)",
          path));
    }
    dir = slash == std::string::npos ? "." : path.substr(0, slash);
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

// What snapshot.ini says: [snapshot] version and description, the
// [device_list], and the [trace] metadata file. Points into the file.
struct SnapshotIndex {
  std::string description;
  const ini::Section* device_list = nullptr;
  std::string trace_ini_name;
};

absl::StatusOr<SnapshotIndex> ReadSnapshotIndex(const ini::File& snapshot) {
  SnapshotIndex index;
  if (const ini::Section* s = snapshot.Find("snapshot")) {
    if (const ini::Entry* v = s->Find("version")) {
      if (v->value != "1.0" && v->value != "1") {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unsupported snapshot version '%s' (expected 1.0)",
            ini::Where(snapshot, *s, *v), v->value));
      }
    }
    if (const ini::Entry* d = s->Find("description")) {
      index.description = d->value;
    }
  }
  index.device_list = snapshot.Find("device_list");
  if (index.device_list == nullptr || index.device_list->entries.empty()) {
    return absl::InvalidArgumentError(
        "snapshot.ini: no [device_list] section (or it is empty)");
  }
  const ini::Section* trace_section = snapshot.Find("trace");
  if (trace_section == nullptr) {
    return absl::InvalidArgumentError(
        "snapshot.ini: no [trace] section: the snapshot names no trace "
        "metadata (trace.ini)");
  }
  HWT_ASSIGN_OR_RETURN(index.trace_ini_name,
                       ini::RequireKey(snapshot, *trace_section, "metadata"));
  return index;
}

// The devices of the [device_list], by name.
struct DeviceSet {
  std::vector<Device> devices;
  std::map<std::string, size_t> by_name;

  const Device* Find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &devices[it->second];
  }
};

absl::StatusOr<DeviceSet> ReadDevices(const std::string& dir,
                                      const ini::Section& device_list) {
  DeviceSet set;
  set.devices.reserve(device_list.entries.size());
  for (const ini::Entry& e : device_list.entries) {
    HWT_ASSIGN_OR_RETURN(Device device, ReadDevice(dir, e.value));
    if (const Device* other = set.Find(device.name)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: [device] name '%s' is also used by %s",
                          device.ini.name, device.name, other->ini.name));
    }
    set.by_name[device.name] = set.devices.size();
    set.devices.push_back(std::move(device));
  }
  // Register values are parsed after every device is read, so that a
  // missing device file is reported before a bad register value.
  for (Device& device : set.devices) {
    for (const auto& [reg, entry] : device.register_entries) {
      HWT_ASSIGN_OR_RETURN(
          device.registers[reg],
          ini::RequireNumber(device.ini, *device.regs_section, *entry));
    }
  }
  return set;
}

// The buffers [trace_buffers] lists, in the order of their sections.
absl::StatusOr<std::vector<TraceBuffer>> ReadTraceBuffers(
    const ini::File& trace) {
  const ini::Section* buffer_list = trace.Find("trace_buffers");
  if (buffer_list == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no [trace_buffers] section", trace.name));
  }
  HWT_ASSIGN_OR_RETURN(std::string buffer_names,
                       ini::RequireKey(trace, *buffer_list, "buffers"));
  std::vector<TraceBuffer> buffers;
  for (absl::string_view raw : absl::StrSplit(buffer_names, ',')) {
    std::string section_name =
        ini::Trim(std::string_view(raw.data(), raw.size()));
    if (section_name.empty()) continue;  // "buffers=buffer1," is accepted
    const ini::Section* section = trace.Find(section_name);
    if (section == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: [trace_buffers] buffers names '%s' but there is no [%s] "
          "section",
          trace.name, section_name, section_name));
    }
    TraceBuffer buffer;
    buffer.section = section;
    HWT_ASSIGN_OR_RETURN(buffer.name, ini::RequireKey(trace, *section, "name"));
    HWT_ASSIGN_OR_RETURN(buffer.file, ini::RequireKey(trace, *section, "file"));
    // OpenCSD treats a missing format as frame formatted.
    buffer.format = "coresight";
    if (const ini::Entry* f = section->Find("format")) {
      buffer.format = f->value;
      if (buffer.format != "coresight" &&
          buffer.format != "dstream_coresight" &&
          buffer.format != "source_data") {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unknown trace buffer format '%s' (expected coresight, "
            "dstream_coresight or source_data)",
            ini::Where(trace, *section, *f), buffer.format));
      }
    }
    buffers.push_back(std::move(buffer));
  }
  if (buffers.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: [trace_buffers] buffers lists no buffer", trace.name));
  }
  // OpenCSD orders buffers as their sections appear in the file (not as
  // the list names them); trc_pkt_lister decodes the first one by default.
  std::stable_sort(buffers.begin(), buffers.end(),
                   [](const TraceBuffer& a, const TraceBuffer& b) {
                     return a.section->line < b.section->line;
                   });
  return buffers;
}

// trace.ini: the buffers, which source feeds which buffer, and which core
// each source traces. Points into the file.
struct TraceLayout {
  std::vector<TraceBuffer> buffers;
  std::map<std::string, std::string> source_buffer;  // source -> buffer
  std::map<std::string, const ini::Entry*> source_buffer_entry;
  std::map<std::string, std::string> source_core;  // source -> core
};

absl::StatusOr<TraceLayout> ReadTraceLayout(const ini::File& trace) {
  TraceLayout layout;
  HWT_ASSIGN_OR_RETURN(layout.buffers, ReadTraceBuffers(trace));
  if (const ini::Section* s = trace.Find("source_buffers")) {
    for (const ini::Entry& e : s->entries) {
      layout.source_buffer[e.key] = e.value;
      layout.source_buffer_entry[e.key] = &e;
    }
  }
  if (layout.source_buffer.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: no [source_buffers] entries: no trace source feeds any buffer",
        trace.name));
  }
  if (const ini::Section* s = trace.Find("core_trace_sources")) {
    for (const ini::Entry& e : s->entries) layout.source_core[e.value] = e.key;
  }
  return layout;
}

// Builds the manifest from the devices and the trace layout: one buffer per
// trace buffer file, one CoreSight source per program-flow trace source,
// the traced cores' memory dumps.
class ManifestBuilder {
 public:
  ManifestBuilder(const std::string& dir, const ini::File& trace,
                  const DeviceSet& devices, const TraceLayout& layout)
      : dir_(dir), trace_(trace), devices_(devices), layout_(layout) {}

  absl::Status AddBuffer(size_t b);
  absl::StatusOr<Manifest> Finish(const std::string& description);

 private:
  // Adds the source if it is program-flow trace; returns whether it did.
  absl::StatusOr<bool> AddSource(const std::string& source_name, size_t b,
                                 bool formatted);
  // What the traced core tells: architecture, CPU number, memory dumps.
  absl::Status AddCore(const std::string& source_name, CoreSightSource& source);
  absl::Status SetSink(const TraceBuffer& buffer);

  const std::string& dir_;
  const ini::File& trace_;
  const DeviceSet& devices_;
  const TraceLayout& layout_;
  Manifest manifest_;
  CoreSightConfig config_;
  std::optional<std::string> config_format_;
  bool any_64bit_ = false;
  std::set<std::tuple<std::string, uint64_t, uint64_t, uint64_t, MemorySpace>>
      seen_dumps_;
  // Of the buffer being added.
  std::map<uint32_t, std::string> trace_ids_;
  std::vector<int32_t> buffer_cpus_;
};

absl::Status ManifestBuilder::AddBuffer(size_t b) {
  const TraceBuffer& tb = layout_.buffers[b];
  BufferInfo info;
  info.id = static_cast<uint32_t>(b);
  info.file = tb.file;
  std::string buffer_path = JoinPath(dir_, tb.file);
  if (!IsRegularFile(buffer_path, &info.size)) {
    return absl::NotFoundError(
        absl::StrFormat("%s: [%s] file=%s: no such file in %s", trace_.name,
                        tb.section->name, tb.file, dir_));
  }
  // Sources of this buffer, in name order (as OpenCSD builds its tree).
  std::vector<std::string> source_names;
  for (const auto& [source, buffer_name] : layout_.source_buffer) {
    if (buffer_name == tb.name) source_names.push_back(source);
  }
  const bool formatted = tb.format != "source_data";
  trace_ids_.clear();
  buffer_cpus_.clear();
  const size_t sources_before = config_.sources.size();
  for (const std::string& source_name : source_names) {
    HWT_ASSIGN_OR_RETURN(bool added, AddSource(source_name, b, formatted));
    // An unformatted buffer carries one source: OpenCSD uses the first.
    if (added && !formatted) break;
  }
  if (buffer_cpus_.size() == 1) info.cpu = buffer_cpus_[0];
  if (config_.sources.size() > sources_before) {
    HWT_RETURN_IF_ERROR(SetSink(tb));
  }
  manifest_.buffers.push_back(std::move(info));
  return absl::OkStatus();
}

absl::StatusOr<bool> ManifestBuilder::AddSource(const std::string& source_name,
                                                size_t b, bool formatted) {
  const Device* device = devices_.Find(source_name);
  if (device == nullptr) {
    const ini::Entry* e = layout_.source_buffer_entry.at(source_name);
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s:%d: [source_buffers] %s: no device named '%s' in the "
        "snapshot's device list",
        trace_.name, e->line, source_name, source_name));
  }
  std::string architecture = ArchitectureForSourceType(device->type);
  if (architecture.empty()) return false;  // STM, ITM: not program flow
  CoreSightSource source;
  source.architecture = architecture;
  source.buffer = static_cast<uint32_t>(b);
  source.registers = device->registers;
  std::string id_register = TraceIdRegister(architecture);
  auto id = device->registers.find(id_register);
  if (id == device->registers.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: [regs] %s missing: the trace ID of source '%s' (%s) is "
        "unknown",
        device->ini.name, id_register, device->name, device->type));
  }
  source.trace_id = static_cast<uint32_t>(id->second & 0x7f);
  if (layout_.source_core.count(source_name) != 0) {
    HWT_RETURN_IF_ERROR(AddCore(source_name, source));
  } else if (architecture == "etmv4" || architecture == "ete") {
    any_64bit_ = true;
  }
  if (formatted) {
    auto [prev, inserted] = trace_ids_.emplace(source.trace_id, device->name);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: trace sources '%s' and '%s' both use trace ID 0x%x in "
          "buffer '%s'",
          device->ini.name, prev->second, device->name, source.trace_id,
          layout_.buffers[b].name));
    }
  }
  config_.sources.push_back(std::move(source));
  return true;
}

absl::Status ManifestBuilder::AddCore(const std::string& source_name,
                                      CoreSightSource& source) {
  const std::string& core_name = layout_.source_core.at(source_name);
  const Device* core = devices_.Find(core_name);
  if (core == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: [core_trace_sources] %s=%s: no device named '%s' in the "
        "snapshot's device list",
        trace_.name, core_name, source_name, core_name));
  }
  CoreArchProfile profile = CoreArchProfileForName(core->type);
  source.arch_version = profile.arch_version;
  source.core_profile = profile.profile;
  source.cpu = CpuNumberFromName(core->name);
  if (source.cpu) buffer_cpus_.push_back(*source.cpu);
  if (profile.arch_version != "v7" && profile.profile != "M") {
    any_64bit_ = true;
  }
  for (const Dump& dump : core->dumps) {
    auto key = std::make_tuple(dump.file, dump.address, dump.offset,
                               dump.length, dump.space);
    if (!seen_dumps_.insert(key).second) continue;
    MemoryDump memory;
    memory.file = dump.file;
    memory.address = dump.address;
    memory.file_offset = dump.offset;
    memory.size = dump.length;
    memory.space = dump.space;
    manifest_.memory.push_back(std::move(memory));
  }
  return absl::OkStatus();
}

absl::Status ManifestBuilder::SetSink(const TraceBuffer& tb) {
  if (config_format_ && *config_format_ != tb.format) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: buffers use different formats (%s and %s): one capture "
        "holds one sink type",
        trace_.name, *config_format_, tb.format));
  }
  config_format_ = tb.format;
  if (tb.format == "coresight") {
    config_.sink = SinkForBufferName(tb.name);
    config_.formatted = true;
  } else if (tb.format == "dstream_coresight") {
    config_.sink = "tpiu";
    config_.formatted = true;
    config_.has_fsyncs = true;
  } else {
    config_.sink = "raw";
    config_.formatted = false;
  }
  return absl::OkStatus();
}

absl::StatusOr<Manifest> ManifestBuilder::Finish(
    const std::string& description) {
  if (config_.sources.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: no ETM, PTM or ETE trace source feeds any buffer (only STM/ITM "
        "or unknown device types)",
        trace_.name));
  }
  manifest_.backend = Backend::kCoreSight;
  manifest_.mode = TraceMode::kCpu;
  manifest_.recorder = "OpenCSD snapshot";
  manifest_.command = description;
  manifest_.cpu.arch = any_64bit_ ? "aarch64" : "arm";
  manifest_.cpu.vendor = "ARM";
  manifest_.coresight = std::move(config_);
  return std::move(manifest_);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Capture>> OpenOpenCsdSnapshot(
    const std::string& path, const InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::string dir, SnapshotDirectory(path));
  HWT_ASSIGN_OR_RETURN(ini::File snapshot, ReadIni(dir, "snapshot.ini"));
  HWT_ASSIGN_OR_RETURN(SnapshotIndex index, ReadSnapshotIndex(snapshot));
  HWT_ASSIGN_OR_RETURN(DeviceSet devices, ReadDevices(dir, *index.device_list));
  HWT_ASSIGN_OR_RETURN(ini::File trace, ReadIni(dir, index.trace_ini_name));
  HWT_ASSIGN_OR_RETURN(TraceLayout layout, ReadTraceLayout(trace));
  ManifestBuilder builder(dir, trace, devices, layout);
  for (size_t b = 0; b < layout.buffers.size(); ++b) {
    HWT_RETURN_IF_ERROR(builder.AddBuffer(b));
  }
  HWT_ASSIGN_OR_RETURN(Manifest manifest, builder.Finish(index.description));
  return std::make_unique<Capture>(InputKind::kOpenCsdSnapshot, path, dir,
                                   std::move(manifest), std::vector<Record>{},
                                   options, std::nullopt);
}

}  // namespace hwt::capture
