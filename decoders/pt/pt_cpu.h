// The CPU identity libipt needs (pt_cpu) and the errata to apply, from the
// capture's CpuIdentity. libipt 2.0.5 knows the errata of CPUs up to about
// 2020; for newer models it reports -pte_bad_cpu, and we fill in the errata
// that libipt 2.2 applies (the same erratum names: its tables only grew).
#ifndef HWT_DECODERS_PT_PT_CPU_H_
#define HWT_DECODERS_PT_PT_CPU_H_

#include <intel-pt.h>

#include <string>

#include "capture/manifest.h"

namespace hwt::pt {

struct PtCpuSetup {
  struct pt_cpu cpu = {};
  struct pt_errata errata = {};
  // Whether `cpu` names a CPU (vendor Intel with a family); decoding without
  // one applies no errata.
  bool identified = false;
  // 0, or the libipt error (-pte_bad_cpu) when errata are unknown for the
  // identified CPU.
  int errata_error = 0;
  // Set when errata come from our table of CPUs newer than libipt 2.0.5.
  bool errata_from_supplement = false;
  // One line for the user when decoding may be less exact, else empty.
  std::string note;
};

PtCpuSetup SetupPtCpu(const capture::CpuIdentity& identity);

// Errata of CPUs libipt 2.0.5 does not know (libipt 2.2's table). Returns
// false when the model is not in the table either.
bool SupplementErrata(const struct pt_cpu& cpu, struct pt_errata* errata);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_CPU_H_
