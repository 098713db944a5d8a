// Data source tables; see data_source.h.
#include "decoders/spe/data_source.h"

#include "absl/strings/str_format.h"

namespace hwt::spe {

std::string_view DataSourceName(uint64_t value, const CpuModel& cpu) {
  switch (cpu.data_sources) {
    case DataSourceTable::kCommon:
      switch (value) {
        case 0x0:
          return "L1D";
        case 0x8:
          return "L2";
        case 0x9:
          return "peer-core";
        case 0xa:
          return "local-cluster";
        case 0xb:
          return "system-cache";
        case 0xc:
          return "peer-cluster";
        case 0xd:
          return "remote";
        case 0xe:
          return "DRAM";
        default:
          return {};
      }
    case DataSourceTable::kAmpereOne:
      switch (value) {
        case 0x0:
          return "local-chip-cache-or-device";
        case 0x3:
          return "SLC";
        case 0x5:
          return "remote-chip-cache";
        case 0x7:
          return "DDR";
        case 0x8:
          return "L1D";
        case 0x9:
          return "L2D";
        default:
          return {};
      }
    case DataSourceTable::kUnknown:
      return {};
  }
  return {};
}

std::string DataSourceLabel(uint64_t value, const CpuModel& cpu) {
  std::string_view name = DataSourceName(value, cpu);
  if (!name.empty()) return std::string(name);
  return absl::StrFormat("0x%x", value);
}

}  // namespace hwt::spe
