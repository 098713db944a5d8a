// Which implementation-defined SPE encodings a CPU uses, from its MIDR_EL1:
// the data source table and the IMPLEMENTATION DEFINED event bits differ by
// core (Arm's Neoverse/Cortex cores share one data source table; AmpereOne has
// its own). MIDR 0 means unknown: raw values are kept.
#ifndef HWT_DECODERS_SPE_MIDR_H_
#define HWT_DECODERS_SPE_MIDR_H_

#include <cstdint>
#include <string>

namespace hwt::spe {

enum class DataSourceTable : uint8_t {
  kUnknown,  // raw values only
  kCommon,   // Neoverse N1/N2/V1/V2, Cortex-A720/A725/X1C/X3/X925
  kAmpereOne,
};

struct CpuModel {
  uint64_t midr = 0;
  std::string name;  // "Neoverse N1", "unknown (MIDR 0x...)", "unknown"
  DataSourceTable data_sources = DataSourceTable::kUnknown;
  bool neoverse_n1_events = false;  // bit 12: late prefetch
};

uint32_t MidrImplementer(uint64_t midr);  // MIDR[31:24]
uint32_t MidrPartNumber(uint64_t midr);   // MIDR[15:4]

CpuModel IdentifyCpu(uint64_t midr);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_MIDR_H_
