// Record type names and the two kernel numberings of record_type (upstream
// FreeBSD and the older CheriBSD-era trees; see reference/hwt-abi.md).
#include "capture/record.h"

#include <array>
#include <utility>

namespace hwt::capture {
namespace {

constexpr std::array<std::pair<RecordType, std::string_view>, 17> kNames = {{
    {RecordType::kMmap, "mmap"},
    {RecordType::kMunmap, "munmap"},
    {RecordType::kExecutable, "executable"},
    {RecordType::kInterp, "interp"},
    {RecordType::kKernel, "kernel"},
    {RecordType::kThreadCreate, "thread_create"},
    {RecordType::kThreadSetName, "thread_set_name"},
    {RecordType::kBuffer, "buffer"},
    {RecordType::kComm, "comm"},
    {RecordType::kFork, "fork"},
    {RecordType::kExit, "exit"},
    {RecordType::kSwitch, "switch"},
    {RecordType::kAux, "aux"},
    {RecordType::kLost, "lost"},
    {RecordType::kItraceStart, "itrace_start"},
    {RecordType::kAuxtraceError, "auxtrace_error"},
    {RecordType::kAuxOutputHwId, "aux_output_hw_id"},
}};

// Index = kernel value.
constexpr std::array<RecordType, 7> kUpstream = {
    RecordType::kMmap,   RecordType::kMunmap,       RecordType::kExecutable,
    RecordType::kKernel, RecordType::kThreadCreate, RecordType::kThreadSetName,
    RecordType::kBuffer};
constexpr std::array<RecordType, 7> kCheriBsd = {
    RecordType::kMmap,   RecordType::kMunmap,       RecordType::kExecutable,
    RecordType::kInterp, RecordType::kThreadCreate, RecordType::kThreadSetName,
    RecordType::kKernel};

const std::array<RecordType, 7>& Table(RecordNumbering numbering) {
  return numbering == RecordNumbering::kUpstream ? kUpstream : kCheriBsd;
}

}  // namespace

std::string_view RecordTypeName(RecordType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "unknown";
}

bool IsPerfRecordType(RecordType type) { return type >= RecordType::kComm; }

std::optional<RecordType> ParseRecordTypeName(std::string_view name) {
  for (const auto& [t, n] : kNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

std::optional<RecordType> RecordTypeFromKernel(uint32_t value,
                                               RecordNumbering numbering) {
  const auto& table = Table(numbering);
  if (value >= table.size()) return std::nullopt;
  return table[value];
}

std::optional<uint32_t> KernelValue(RecordType type,
                                    RecordNumbering numbering) {
  const auto& table = Table(numbering);
  for (uint32_t i = 0; i < table.size(); ++i) {
    if (table[i] == type) return i;
  }
  return std::nullopt;
}

}  // namespace hwt::capture
