// The PT encoder's clock conversions; see pt_timing.h.
#include "recorder/pt_timing.h"

namespace hwt::recorder {

uint64_t TscAtCycle(const PtTimingOptions& t, uint64_t cycle) {
  if (!t.any()) return 0;
  return t.tsc_start +
         static_cast<uint64_t>(
             (static_cast<unsigned __int128>(cycle) * t.nom_freq) / t.cbr);
}

uint64_t CycleAtTsc(const PtTimingOptions& t, uint64_t tsc) {
  if (tsc <= t.tsc_start) return 0;
  unsigned __int128 num =
      static_cast<unsigned __int128>(tsc - t.tsc_start) * t.cbr;
  return static_cast<uint64_t>((num + t.nom_freq - 1) / t.nom_freq);
}

uint64_t CtcAtTsc(const PtTimingOptions& t, uint64_t tsc) {
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(tsc) * t.cpuid_15_eax) / t.cpuid_15_ebx);
}

uint64_t TscAtCtc(const PtTimingOptions& t, uint64_t ctc) {
  unsigned __int128 num = static_cast<unsigned __int128>(ctc) * t.cpuid_15_ebx;
  return static_cast<uint64_t>((num + t.cpuid_15_eax - 1) / t.cpuid_15_eax);
}

}  // namespace hwt::recorder
