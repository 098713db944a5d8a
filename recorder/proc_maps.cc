// Reading /proc/PID/{maps,auxv} and diffing executable mappings; see
// proc_maps.h.
#include "recorder/proc_maps.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

bool ParseHex(absl::string_view text, uint64_t* value) {
  return absl::SimpleHexAtoi(text, value);
}

// A maximal run of executable mappings of one file with contiguous
// addresses and file offsets.
struct Run {
  std::string path;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
};

std::vector<Run> ExecutableFileRuns(const std::vector<ProcMapping>& maps) {
  std::vector<Run> runs;
  for (const ProcMapping& m : maps) {
    if (!m.executable() || !m.file_backed()) continue;
    if (!runs.empty()) {
      Run& last = runs.back();
      if (last.path == m.path && last.end == m.start &&
          last.offset + (last.end - last.start) == m.offset) {
        last.end = m.end;
        continue;
      }
    }
    runs.push_back(Run{m.path, m.start, m.end, m.offset});
  }
  return runs;
}

// Whether every address of `run` is mapped from the same file offsets by
// `others`.
bool Covered(const Run& run, const std::vector<Run>& others) {
  uint64_t at = run.start;
  while (at < run.end) {
    bool advanced = false;
    for (const Run& o : others) {
      if (o.path != run.path || at < o.start || at >= o.end) continue;
      if (o.offset - o.start != run.offset - run.start) return false;
      at = std::min(o.end, run.end);
      advanced = true;
      break;
    }
    if (!advanced) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ProcMapping>> ParseProcMaps(std::string_view text) {
  std::vector<ProcMapping> maps;
  int line_number = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n',
                      absl::SkipEmpty())) {
    ++line_number;
    // start-end perms offset dev inode [path]
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    ProcMapping m;
    std::vector<absl::string_view> range =
        absl::StrSplit(fields.empty() ? absl::string_view() : fields[0], '-');
    if (fields.size() < 5 || range.size() != 2 ||
        !ParseHex(range[0], &m.start) || !ParseHex(range[1], &m.end) ||
        !ParseHex(fields[2], &m.offset) ||
        !absl::SimpleAtoi(fields[4], &m.inode)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "maps line %d: cannot parse '%s'", line_number, std::string(line)));
    }
    m.perms = std::string(fields[1]);
    if (fields.size() > 5) {
      // The path may contain spaces: everything after the inode field.
      m.path = std::string(line.substr(fields[5].data() - line.data()));
    }
    maps.push_back(std::move(m));
  }
  return maps;
}

absl::StatusOr<std::vector<ProcMapping>> ReadProcMaps(pid_t pid) {
  std::string path = absl::StrFormat("/proc/%d/maps", pid);
  HWT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  auto maps = ParseProcMaps(text);
  if (!maps.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %s", path, maps.status().message()));
  }
  return maps;
}

absl::StatusOr<std::vector<std::pair<uint64_t, uint64_t>>> ReadProcAuxv(
    pid_t pid) {
  std::string path = absl::StrFormat("/proc/%d/auxv", pid);
  HWT_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  std::vector<std::pair<uint64_t, uint64_t>> auxv;
  for (size_t at = 0; at + 16 <= bytes.size(); at += 16) {
    uint64_t type = 0;
    uint64_t value = 0;
    std::memcpy(&type, bytes.data() + at, 8);
    std::memcpy(&value, bytes.data() + at + 8, 8);
    if (type == 0) break;  // AT_NULL
    auxv.emplace_back(type, value);
  }
  return auxv;
}

std::vector<MappingEvent> DiffExecutableMappings(
    const std::vector<ProcMapping>& before,
    const std::vector<ProcMapping>& after,
    const std::function<std::optional<uint64_t>(const std::string&)>&
        first_exec_offset) {
  std::vector<Run> old_runs = ExecutableFileRuns(before);
  std::vector<Run> new_runs = ExecutableFileRuns(after);
  std::vector<MappingEvent> events;
  for (const Run& run : old_runs) {
    if (Covered(run, new_runs)) continue;
    MappingEvent event;
    event.type = capture::RecordType::kMunmap;
    event.path = run.path;
    event.addr = run.start;
    events.push_back(event);
  }
  for (const Run& run : new_runs) {
    if (Covered(run, old_runs)) continue;
    uint64_t addr = run.start;
    if (std::optional<uint64_t> anchor = first_exec_offset(run.path)) {
      uint64_t size = run.end - run.start;
      if (*anchor < run.offset || *anchor >= run.offset + size) continue;
      addr = run.start + (*anchor - run.offset);
    }
    MappingEvent event;
    event.type = capture::RecordType::kMmap;
    event.path = run.path;
    event.addr = addr;
    events.push_back(event);
  }
  return events;
}

}  // namespace hwt::recorder
