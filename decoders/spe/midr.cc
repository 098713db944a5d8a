// MIDR -> SPE encoding tables; part numbers from Arm's and Ampere's technical
// reference manuals (as Linux arch/arm64/include/asm/cputype.h lists them).
#include "decoders/spe/midr.h"

#include "absl/strings/str_format.h"

namespace hwt::spe {
namespace {

constexpr uint32_t kImplementerArm = 0x41;
constexpr uint32_t kImplementerAmpere = 0xc0;

struct KnownPart {
  uint32_t implementer;
  uint32_t part;
  const char* name;
  DataSourceTable data_sources;
  bool n1_events;
};

constexpr KnownPart kKnownParts[] = {
    {kImplementerArm, 0xd0c, "Neoverse N1", DataSourceTable::kCommon, true},
    {kImplementerArm, 0xd49, "Neoverse N2", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd40, "Neoverse V1", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd4f, "Neoverse V2", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd81, "Cortex-A720", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd87, "Cortex-A725", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd4c, "Cortex-X1C", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd4e, "Cortex-X3", DataSourceTable::kCommon, false},
    {kImplementerArm, 0xd85, "Cortex-X925", DataSourceTable::kCommon, false},
    {kImplementerAmpere, 0xac4, "AmpereOne AC04", DataSourceTable::kAmpereOne,
     false},
};

}  // namespace

uint32_t MidrImplementer(uint64_t midr) { return (midr >> 24) & 0xff; }
uint32_t MidrPartNumber(uint64_t midr) { return (midr >> 4) & 0xfff; }

CpuModel IdentifyCpu(uint64_t midr) {
  CpuModel model;
  model.midr = midr;
  if (midr == 0) {
    model.name = "unknown";
    return model;
  }
  for (const KnownPart& part : kKnownParts) {
    if (MidrImplementer(midr) == part.implementer &&
        MidrPartNumber(midr) == part.part) {
      model.name = part.name;
      model.data_sources = part.data_sources;
      model.neoverse_n1_events = part.n1_events;
      return model;
    }
  }
  model.name = absl::StrFormat("unknown (MIDR 0x%x)", midr);
  return model;
}

}  // namespace hwt::spe
