// OpenCSD / DS-5 snapshot reader: a small .ini parser (the dialect OpenCSD's
// snapshot parser accepts) and the mapping of devices, trace buffers and
// memory dumps onto the capture manifest.
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

namespace hwt::capture {
namespace {

// ---------------------------------------------------------------- ini files

struct IniEntry {
  std::string key;
  std::string value;
  int line = 0;
};

struct IniSection {
  std::string name;
  int line = 0;
  std::vector<IniEntry> entries;

  const IniEntry* Find(std::string_view key) const {
    for (const IniEntry& e : entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }
};

struct IniFile {
  std::string name;  // as the snapshot names it (for messages)
  std::vector<IniSection> sections;

  const IniSection* Find(std::string_view section) const {
    for (const IniSection& s : sections) {
      if (s.name == section) return &s;
    }
    return nullptr;
  }
};

std::string Trim(std::string_view text, std::string_view chars = " \t") {
  size_t begin = text.find_first_not_of(chars);
  if (begin == std::string_view::npos) return "";
  size_t end = text.find_last_not_of(chars);
  return std::string(text.substr(begin, end - begin + 1));
}

// Lines are "[section]" or "key=value"; ';' and '#' start comments (as in
// OpenCSD's parser, anywhere on the line).
absl::StatusOr<IniFile> ParseIni(const std::string& name,
                                 std::string_view text) {
  IniFile ini;
  ini.name = name;
  int line_number = 0;
  for (absl::string_view raw :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_number;
    std::string_view line(raw.data(), raw.size());
    size_t cut = line.find_first_of("\r;#");
    if (cut != std::string_view::npos) line = line.substr(0, cut);
    std::string trimmed = Trim(line);
    if (trimmed.empty()) continue;
    if (trimmed.front() == '[') {
      size_t close = trimmed.find(']');
      if (close == std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s:%d: section header '%s' has no closing ']'",
                            name, line_number, trimmed));
      }
      IniSection section;
      section.name = Trim(std::string_view(trimmed).substr(1, close - 1));
      section.line = line_number;
      ini.sections.push_back(std::move(section));
      continue;
    }
    size_t eq = trimmed.find('=');
    if (eq == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s:%d: expected 'key=value' or '[section]', got '%s'", name,
          line_number, trimmed));
    }
    if (ini.sections.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s:%d: '%s' comes before any [section] header", name,
                          line_number, trimmed));
    }
    IniEntry entry;
    entry.key = Trim(std::string_view(trimmed).substr(0, eq));
    entry.value = Trim(std::string_view(trimmed).substr(eq + 1));
    entry.line = line_number;
    ini.sections.back().entries.push_back(std::move(entry));
  }
  return ini;
}

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

absl::StatusOr<IniFile> ReadIni(const std::string& dir,
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
  return ParseIni(name, *text);
}

std::string Where(const IniFile& ini, const IniSection& section) {
  return absl::StrFormat("%s: [%s]", ini.name, section.name);
}

std::string Where(const IniFile& ini, const IniSection& section,
                  const IniEntry& entry) {
  return absl::StrFormat("%s:%d: [%s] %s", ini.name, entry.line, section.name,
                         entry.key);
}

// Numbers as OpenCSD reads them (strtoul base 0): 0x-hex, 0-octal, decimal.
std::optional<uint64_t> ParseUnsigned(std::string_view text) {
  std::string s = Trim(text, " \t\"'");
  if (s.empty()) return std::nullopt;
  uint64_t value = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    if (absl::SimpleHexAtoi(s.substr(2), &value)) return value;
    return std::nullopt;
  }
  if (s.size() > 1 && s[0] == '0') {
    for (char c : s.substr(1)) {
      if (c < '0' || c > '7') return std::nullopt;
      if (value > (~uint64_t{0} >> 3)) return std::nullopt;
      value = value * 8 + static_cast<uint64_t>(c - '0');
    }
    return value;
  }
  if (absl::SimpleAtoi(s, &value)) return value;
  return std::nullopt;
}

absl::StatusOr<uint64_t> RequireNumber(const IniFile& ini,
                                       const IniSection& section,
                                       const IniEntry& entry) {
  auto value = ParseUnsigned(entry.value);
  if (!value) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: '%s' is not a number (expected decimal or 0x-hex)",
                        Where(ini, section, entry), entry.value));
  }
  return *value;
}

absl::StatusOr<std::string> RequireKey(const IniFile& ini,
                                       const IniSection& section,
                                       std::string_view key) {
  const IniEntry* entry = section.Find(key);
  if (entry == nullptr || entry->value.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: missing '%s' (section starts at line %d)",
                        Where(ini, section), key, section.line));
  }
  return entry->value;
}

absl::Status RejectDuplicateKeys(const IniFile& ini,
                                 const IniSection& section) {
  std::set<std::string> seen;
  for (const IniEntry& e : section.entries) {
    if (!seen.insert(absl::AsciiStrToUpper(e.key)).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: key given twice (line %d)", Where(ini, section, e), e.line));
    }
  }
  return absl::OkStatus();
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
  IniFile ini;
  std::string name;
  std::string device_class;  // "core", "trace_source", ...
  std::string type;          // "Cortex-A57", "ETM4", "PTM1.1", "ETE", ...
  // Register name (upper case, without the "(0x...)" suffix) -> value.
  std::map<std::string, uint64_t> registers;
  std::map<std::string, const IniEntry*> register_entries;
  const IniSection* regs_section = nullptr;
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

absl::StatusOr<Dump> ParseDump(const IniFile& ini, const IniSection& section) {
  HWT_RETURN_IF_ERROR(RejectDuplicateKeys(ini, section));
  Dump dump;
  bool have_file = false;
  bool have_address = false;
  for (const IniEntry& e : section.entries) {
    if (e.key == "file") {
      dump.file = Trim(e.value, " \t\"'");
      have_file = !dump.file.empty();
    } else if (e.key == "address") {
      HWT_ASSIGN_OR_RETURN(dump.address, RequireNumber(ini, section, e));
      have_address = true;
    } else if (e.key == "length") {
      HWT_ASSIGN_OR_RETURN(dump.length, RequireNumber(ini, section, e));
    } else if (e.key == "offset") {
      HWT_ASSIGN_OR_RETURN(dump.offset, RequireNumber(ini, section, e));
    } else if (e.key == "space") {
      std::string space = Trim(e.value, " \t\"'");
      auto parsed = ParseSnapshotSpace(space);
      if (!parsed) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unknown memory space '%s' (expected EL1S, EL1N, EL2, EL2N, "
            "EL2S, EL3, S, N, ANY, H, P, NP or SP)",
            Where(ini, section, e), space));
      }
      dump.space = *parsed;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: unknown key in a memory dump section (expected file, address, "
          "length, offset, space)",
          Where(ini, section, e)));
    }
  }
  if (!have_file) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: memory dump without 'file' (section starts at line %d)",
        Where(ini, section), section.line));
  }
  if (!have_address) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: memory dump without 'address' (section starts at line %d)",
        Where(ini, section), section.line));
  }
  return dump;
}

absl::StatusOr<Device> ReadDevice(const std::string& dir,
                                  const std::string& file) {
  Device device;
  HWT_ASSIGN_OR_RETURN(device.ini, ReadIni(dir, file));
  const IniFile& ini = device.ini;
  const IniSection* header = ini.Find("device");
  if (header == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no [device] section", ini.name));
  }
  HWT_ASSIGN_OR_RETURN(device.name, RequireKey(ini, *header, "name"));
  if (const IniEntry* e = header->Find("class")) device.device_class = e->value;
  if (const IniEntry* e = header->Find("type")) device.type = e->value;
  for (const IniSection& section : ini.sections) {
    if (section.name == "regs") {
      device.regs_section = &section;
      for (const IniEntry& e : section.entries) {
        // "TRCIDR0(0x078)", "TRCPROCSELR(id:0x2)", "PC(size:64)", "CPSR".
        std::string reg = absl::AsciiStrToUpper(
            Trim(std::string_view(e.key).substr(0, e.key.find('('))));
        if (device.register_entries.count(reg) != 0) {
          return absl::InvalidArgumentError(
              absl::StrFormat("%s: register given twice (line %d)",
                              Where(ini, section, e), e.line));
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
  const IniSection* section = nullptr;
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

absl::StatusOr<std::unique_ptr<Capture>> OpenOpenCsdSnapshot(
    const std::string& path, const InputOptions& options) {
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

  // snapshot.ini: [snapshot] version, [device_list], [trace] metadata.
  HWT_ASSIGN_OR_RETURN(IniFile snapshot, ReadIni(dir, "snapshot.ini"));
  std::string description;
  if (const IniSection* s = snapshot.Find("snapshot")) {
    if (const IniEntry* v = s->Find("version")) {
      if (v->value != "1.0" && v->value != "1") {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unsupported snapshot version '%s' (expected 1.0)",
            Where(snapshot, *s, *v), v->value));
      }
    }
    if (const IniEntry* d = s->Find("description")) description = d->value;
  }
  const IniSection* device_list = snapshot.Find("device_list");
  if (device_list == nullptr || device_list->entries.empty()) {
    return absl::InvalidArgumentError(
        "snapshot.ini: no [device_list] section (or it is empty)");
  }
  const IniSection* trace_section = snapshot.Find("trace");
  if (trace_section == nullptr) {
    return absl::InvalidArgumentError(
        "snapshot.ini: no [trace] section: the snapshot names no trace "
        "metadata (trace.ini)");
  }
  HWT_ASSIGN_OR_RETURN(std::string trace_ini_name,
                       RequireKey(snapshot, *trace_section, "metadata"));

  // Devices, by name.
  std::vector<Device> devices;
  devices.reserve(device_list->entries.size());
  std::map<std::string, size_t> device_by_name;
  for (const IniEntry& e : device_list->entries) {
    HWT_ASSIGN_OR_RETURN(Device device, ReadDevice(dir, e.value));
    if (device_by_name.count(device.name) != 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: [device] name '%s' is also used by %s", device.ini.name,
          device.name, devices[device_by_name[device.name]].ini.name));
    }
    device_by_name[device.name] = devices.size();
    devices.push_back(std::move(device));
  }
  // Register values are parsed after the move (entries point into ini).
  for (Device& device : devices) {
    for (const auto& [reg, entry] : device.register_entries) {
      HWT_ASSIGN_OR_RETURN(
          device.registers[reg],
          RequireNumber(device.ini, *device.regs_section, *entry));
    }
  }

  // trace.ini: [trace_buffers], [bufferN], [source_buffers],
  // [core_trace_sources].
  HWT_ASSIGN_OR_RETURN(IniFile trace, ReadIni(dir, trace_ini_name));
  const IniSection* buffer_list = trace.Find("trace_buffers");
  if (buffer_list == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no [trace_buffers] section", trace.name));
  }
  HWT_ASSIGN_OR_RETURN(std::string buffer_names,
                       RequireKey(trace, *buffer_list, "buffers"));
  std::vector<TraceBuffer> buffers;
  for (absl::string_view raw : absl::StrSplit(buffer_names, ',')) {
    std::string section_name = Trim(std::string_view(raw.data(), raw.size()));
    if (section_name.empty()) continue;  // "buffers=buffer1," is accepted
    const IniSection* section = trace.Find(section_name);
    if (section == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: [trace_buffers] buffers names '%s' but there is no [%s] "
          "section",
          trace.name, section_name, section_name));
    }
    TraceBuffer buffer;
    buffer.section = section;
    HWT_ASSIGN_OR_RETURN(buffer.name, RequireKey(trace, *section, "name"));
    HWT_ASSIGN_OR_RETURN(buffer.file, RequireKey(trace, *section, "file"));
    // OpenCSD treats a missing format as frame formatted.
    buffer.format = "coresight";
    if (const IniEntry* f = section->Find("format")) {
      buffer.format = f->value;
      if (buffer.format != "coresight" &&
          buffer.format != "dstream_coresight" &&
          buffer.format != "source_data") {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: unknown trace buffer format '%s' (expected coresight, "
            "dstream_coresight or source_data)",
            Where(trace, *section, *f), buffer.format));
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
  // Source name -> buffer name, and source name -> core name.
  std::map<std::string, std::string> source_buffer;
  std::map<std::string, const IniEntry*> source_buffer_entry;
  if (const IniSection* s = trace.Find("source_buffers")) {
    for (const IniEntry& e : s->entries) {
      source_buffer[e.key] = e.value;
      source_buffer_entry[e.key] = &e;
    }
  }
  if (source_buffer.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: no [source_buffers] entries: no trace source feeds any buffer",
        trace.name));
  }
  std::map<std::string, std::string> source_core;
  if (const IniSection* s = trace.Find("core_trace_sources")) {
    for (const IniEntry& e : s->entries) source_core[e.value] = e.key;
  }

  Manifest manifest;
  manifest.backend = Backend::kCoreSight;
  manifest.mode = TraceMode::kCpu;
  manifest.recorder = "OpenCSD snapshot";
  manifest.command = description;
  CoreSightConfig config;
  std::optional<std::string> config_format;
  bool any_64bit = false;
  std::set<std::tuple<std::string, uint64_t, uint64_t, uint64_t, MemorySpace>>
      seen_dumps;

  for (size_t b = 0; b < buffers.size(); ++b) {
    const TraceBuffer& tb = buffers[b];
    BufferInfo info;
    info.id = static_cast<uint32_t>(b);
    info.file = tb.file;
    std::string buffer_path = JoinPath(dir, tb.file);
    if (!IsRegularFile(buffer_path, &info.size)) {
      return absl::NotFoundError(
          absl::StrFormat("%s: [%s] file=%s: no such file in %s", trace.name,
                          tb.section->name, tb.file, dir));
    }
    // Sources of this buffer, in name order (as OpenCSD builds its tree).
    std::vector<std::string> source_names;
    for (const auto& [source, buffer_name] : source_buffer) {
      if (buffer_name == tb.name) source_names.push_back(source);
    }
    bool formatted = tb.format != "source_data";
    std::map<uint32_t, std::string> trace_ids;
    std::vector<int32_t> buffer_cpus;
    size_t sources_before = config.sources.size();
    for (const std::string& source_name : source_names) {
      auto it = device_by_name.find(source_name);
      if (it == device_by_name.end()) {
        const IniEntry* e = source_buffer_entry[source_name];
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s:%d: [source_buffers] %s: no device named '%s' in the "
            "snapshot's device list",
            trace.name, e->line, source_name, source_name));
      }
      const Device& device = devices[it->second];
      std::string architecture = ArchitectureForSourceType(device.type);
      if (architecture.empty()) continue;  // STM, ITM: not program flow
      CoreSightSource source;
      source.architecture = architecture;
      source.buffer = static_cast<uint32_t>(b);
      source.registers = device.registers;
      std::string id_register = TraceIdRegister(architecture);
      auto id = device.registers.find(id_register);
      if (id == device.registers.end()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: [regs] %s missing: the trace ID of source '%s' (%s) is "
            "unknown",
            device.ini.name, id_register, device.name, device.type));
      }
      source.trace_id = static_cast<uint32_t>(id->second & 0x7f);
      auto core_it = source_core.find(source_name);
      if (core_it != source_core.end()) {
        auto core = device_by_name.find(core_it->second);
        if (core == device_by_name.end()) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: [core_trace_sources] %s=%s: no device named '%s' in the "
              "snapshot's device list",
              trace.name, core_it->second, source_name, core_it->second));
        }
        const Device& core_device = devices[core->second];
        CoreArchProfile profile = CoreArchProfileForName(core_device.type);
        source.arch_version = profile.arch_version;
        source.core_profile = profile.profile;
        source.cpu = CpuNumberFromName(core_device.name);
        if (source.cpu) buffer_cpus.push_back(*source.cpu);
        if (profile.arch_version != "v7" && profile.profile != "M") {
          any_64bit = true;
        }
        for (const Dump& dump : core_device.dumps) {
          auto key = std::make_tuple(dump.file, dump.address, dump.offset,
                                     dump.length, dump.space);
          if (!seen_dumps.insert(key).second) continue;
          MemoryDump memory;
          memory.file = dump.file;
          memory.address = dump.address;
          memory.file_offset = dump.offset;
          memory.size = dump.length;
          memory.space = dump.space;
          manifest.memory.push_back(std::move(memory));
        }
      } else if (architecture == "etmv4" || architecture == "ete") {
        any_64bit = true;
      }
      if (formatted) {
        auto [prev, inserted] = trace_ids.emplace(source.trace_id, device.name);
        if (!inserted) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: trace sources '%s' and '%s' both use trace ID 0x%x in "
              "buffer '%s'",
              device.ini.name, prev->second, device.name, source.trace_id,
              tb.name));
        }
      }
      config.sources.push_back(std::move(source));
      // An unformatted buffer carries one source: OpenCSD uses the first.
      if (!formatted) break;
    }
    if (buffer_cpus.size() == 1) info.cpu = buffer_cpus[0];
    if (config.sources.size() > sources_before) {
      if (config_format && *config_format != tb.format) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: buffers use different formats (%s and %s): one capture "
            "holds one sink type",
            trace.name, *config_format, tb.format));
      }
      config_format = tb.format;
      if (tb.format == "coresight") {
        config.sink = SinkForBufferName(tb.name);
        config.formatted = true;
      } else if (tb.format == "dstream_coresight") {
        config.sink = "tpiu";
        config.formatted = true;
        config.has_fsyncs = true;
      } else {
        config.sink = "raw";
        config.formatted = false;
      }
    }
    manifest.buffers.push_back(std::move(info));
  }
  if (config.sources.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: no ETM, PTM or ETE trace source feeds any buffer (only STM/ITM "
        "or unknown device types)",
        trace.name));
  }
  manifest.cpu.arch = any_64bit ? "aarch64" : "arm";
  manifest.cpu.vendor = "ARM";
  manifest.coresight = std::move(config);
  return std::make_unique<Capture>(InputKind::kOpenCsdSnapshot, path, dir,
                                   std::move(manifest), std::vector<Record>{},
                                   options, std::nullopt);
}

}  // namespace hwt::capture
