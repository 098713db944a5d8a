// SPE data source packets: implementation defined, decoded with the CPU's
// table (see midr.h). Unknown CPUs and values keep the raw number.
#ifndef HWT_DECODERS_SPE_DATA_SOURCE_H_
#define HWT_DECODERS_SPE_DATA_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "decoders/spe/midr.h"

namespace hwt::spe {

// The name of a data source value for this CPU ("L1D", "L2", "peer-core",
// "local-cluster", "system-cache", "peer-cluster", "remote", "DRAM"; AmpereOne
// "local-chip-cache-or-device", "SLC", "remote-chip-cache", "DDR", "L1D",
// "L2D"); empty when the table or the value is unknown.
std::string_view DataSourceName(uint64_t value, const CpuModel& cpu);

// The name, or "0x<raw>" when unknown.
std::string DataSourceLabel(uint64_t value, const CpuModel& cpu);

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_DATA_SOURCE_H_
