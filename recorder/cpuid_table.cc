// CPU identities from CPUID answers; see cpuid_table.h.
#include "recorder/cpuid_table.h"

#include <cpuid.h>

#include <cstring>
#include <functional>

namespace hwt::recorder {
namespace {

using CpuidFn = std::function<std::optional<CpuidAnswer>(uint32_t, uint32_t)>;

capture::CpuIdentity IdentityFrom(const CpuidFn& cpuid) {
  capture::CpuIdentity cpu;
  cpu.arch = "x86_64";
  auto leaf0 = cpuid(0, 0);
  if (!leaf0) return cpu;
  char vendor[13] = {};
  std::memcpy(vendor, &leaf0->ebx, 4);
  std::memcpy(vendor + 4, &leaf0->edx, 4);
  std::memcpy(vendor + 8, &leaf0->ecx, 4);
  cpu.vendor = vendor;
  if (leaf0->eax >= 1) {
    if (auto leaf1 = cpuid(1, 0)) {
      uint32_t eax = leaf1->eax;
      uint32_t family = (eax >> 8) & 0xf;
      uint32_t model = (eax >> 4) & 0xf;
      if (family == 0xf) family += (eax >> 20) & 0xff;
      if (family == 0x6 || family >= 0xf) model |= ((eax >> 16) & 0xf) << 4;
      cpu.family = family;
      cpu.model = model;
      cpu.stepping = eax & 0xf;
    }
  }
  if (leaf0->eax >= 0x15) {
    if (auto leaf15 = cpuid(0x15, 0)) {
      cpu.cpuid_15_eax = leaf15->eax;
      cpu.cpuid_15_ebx = leaf15->ebx;
      cpu.cpuid_15_ecx = leaf15->ecx;
    }
  }
  return cpu;
}

}  // namespace

CpuidAnswer HostCpuid(uint32_t leaf, uint32_t subleaf) {
  CpuidAnswer a;
  __cpuid_count(leaf, subleaf, a.eax, a.ebx, a.ecx, a.edx);
  return a;
}

capture::CpuIdentity CpuIdentityFromTable(const CpuidTable& table) {
  return IdentityFrom([&](uint32_t leaf, uint32_t subleaf) {
    return table.Lookup(leaf, subleaf);
  });
}

capture::CpuIdentity HostCpuIdentity() {
  return IdentityFrom([](uint32_t leaf, uint32_t subleaf) {
    return std::optional<CpuidAnswer>(HostCpuid(leaf, subleaf));
  });
}

}  // namespace hwt::recorder
