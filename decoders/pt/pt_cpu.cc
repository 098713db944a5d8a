// CPU identity and errata for libipt; see pt_cpu.h.
#include "decoders/pt/pt_cpu.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace hwt::pt {
namespace {

enum Erratum : uint32_t {
  kBdm70 = 1 << 0,
  kBdm64 = 1 << 1,
  kSkd007 = 1 << 2,
  kSkd022 = 1 << 3,
  kSkd010 = 1 << 4,
  kSkl014 = 1 << 5,
  kApl12 = 1 << 6,
  kApl11 = 1 << 7,
  kSkl168 = 1 << 8,
  kSkz84 = 1 << 9,
};

struct SupplementEntry {
  uint16_t family;
  uint8_t model;
  uint32_t errata;
};

// CPU models that libipt 2.0.5 does not know, with the errata libipt 2.2
// applies to them (its erratum tests run on exactly these models).
constexpr SupplementEntry kSupplement[] = {
    {6, 0xaa, kApl11 | kBdm70 | kSkd022},
    {6, 0xac, kApl11 | kBdm70 | kSkd022},
    {6, 0xad, kBdm70 | kSkd022 | kSkz84},
    {6, 0xae, kBdm70 | kSkd022 | kSkz84},
    {6, 0xaf, kApl11},
    {6, 0xb5, kApl11 | kBdm70 | kSkd022},
    {6, 0xb6, kApl11},
    {6, 0xb7, kApl11 | kBdm70 | kSkd022},
    {6, 0xba, kApl11 | kBdm70 | kSkd022},
    {6, 0xbd, kApl11 | kBdm70 | kSkd022},
    {6, 0xc5, kApl11 | kBdm70 | kSkd022},
    {6, 0xc6, kApl11 | kBdm70 | kSkd022},
    {6, 0xcc, kApl11 | kBdm70 | kSkd022},
    {6, 0xcf, kBdm70 | kSkd022 | kSkz84},
    {6, 0xd5, kApl11 | kBdm70 | kSkd022},
    {6, 0xdd, kApl11},
    {18, 0x01, kApl11 | kBdm70 | kSkd022},
    {18, 0x03, kApl11 | kBdm70 | kSkd022},
    {19, 0x01, kBdm70 | kSkd022 | kSkz84},
};

void ApplyErrata(uint32_t bits, struct pt_errata* errata) {
  std::memset(errata, 0, sizeof(*errata));
  errata->bdm70 = (bits & kBdm70) != 0;
  errata->bdm64 = (bits & kBdm64) != 0;
  errata->skd007 = (bits & kSkd007) != 0;
  errata->skd022 = (bits & kSkd022) != 0;
  errata->skd010 = (bits & kSkd010) != 0;
  errata->skl014 = (bits & kSkl014) != 0;
  errata->apl12 = (bits & kApl12) != 0;
  errata->apl11 = (bits & kApl11) != 0;
  errata->skl168 = (bits & kSkl168) != 0;
  errata->skz84 = (bits & kSkz84) != 0;
}

}  // namespace

bool SupplementErrata(const struct pt_cpu& cpu, struct pt_errata* errata) {
  if (cpu.vendor != pcv_intel) return false;
  for (const SupplementEntry& entry : kSupplement) {
    if (entry.family == cpu.family && entry.model == cpu.model) {
      ApplyErrata(entry.errata, errata);
      return true;
    }
  }
  return false;
}

PtCpuSetup SetupPtCpu(const capture::CpuIdentity& identity) {
  PtCpuSetup setup;
  setup.cpu.vendor = pcv_unknown;
  const bool intel =
      identity.vendor.empty() || identity.vendor == "GenuineIntel";
  if (!intel) {
    setup.note = absl::StrFormat(
        "CPU vendor '%s' is not Intel: decoding Intel PT without errata",
        identity.vendor);
    return setup;
  }
  if (identity.vendor.empty() && !identity.has_x86_model()) {
    setup.note =
        "CPU identity unknown (no family/model recorded): decoding without "
        "errata; give --cpu FAMILY/MODEL[/STEPPING]";
    return setup;
  }
  setup.identified = true;
  setup.cpu.vendor = pcv_intel;
  setup.cpu.family = static_cast<uint16_t>(identity.family);
  setup.cpu.model = static_cast<uint8_t>(identity.model);
  setup.cpu.stepping = static_cast<uint8_t>(identity.stepping);
  const int status = pt_cpu_errata(&setup.errata, &setup.cpu);
  if (status >= 0) return setup;
  if (status == -pte_bad_cpu && SupplementErrata(setup.cpu, &setup.errata)) {
    setup.errata_from_supplement = true;
    return setup;
  }
  setup.errata_error = status;
  std::memset(&setup.errata, 0, sizeof(setup.errata));
  setup.note = absl::StrFormat(
      "CPU family %u model %u is unknown to libipt %s: decoding without "
      "errata (%s)",
      identity.family, identity.model, "2.0.5", pt_errstr(pt_errcode(status)));
  return setup;
}

}  // namespace hwt::pt
