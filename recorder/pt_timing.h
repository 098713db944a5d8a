// The clock of the PT encoder's timing packets (TSC, MTC, CYC): the options
// that define it and the conversions between core cycles, TSC and the
// crystal clock (CTC) that the encoder uses to place timing packets.
#ifndef HWT_RECORDER_PT_TIMING_H_
#define HWT_RECORDER_PT_TIMING_H_

#include <cstdint>

namespace hwt::recorder {

// The clock model used when any timing packet is enabled. Instruction k of
// the execution (counting from 0, lost ones included) runs during core cycles
// [start(k), start(k) + cycles_per_instruction), where
//   start(k) = k * cycles_per_instruction + (far calls before k) *
//   cycles_per_far_call
// (a far call -- syscall, int -- spends cycles_per_far_call cycles in the
// kernel with tracing off). Then:
//   TSC(cycle) = tsc_start + floor(cycle * nom_freq / cbr)
//   CTC(tsc)   = floor(tsc * cpuid_15_eax / cpuid_15_ebx)   (crystal clock)
// Packets produced when an instruction retires carry the time
// start(k) + cycles_per_instruction; packets produced when tracing (re)starts
// at an instruction carry start(k).
struct PtTimingOptions {
  bool tsc = false;  // TSCEn: TSC in every PSB+
  bool mtc = false;  // MTCEn: MTC at every 2^mtc_freq CTC ticks; TMA in PSB+
  uint8_t mtc_freq = 3;
  bool cyc = false;  // CYCEn with CycThresh 0: CYC before CYC-eligible packets
  uint32_t cycles_per_instruction = 1;
  uint64_t cycles_per_far_call = 0;
  uint8_t cbr = 20;           // core:bus ratio, sent in every PSB+
  uint8_t nom_freq = 20;      // MSR_PLATFORM_INFO[15:8] (TSC:bus ratio)
  uint32_t cpuid_15_eax = 1;  // TSC ticks per CTC tick = ebx / eax
  uint32_t cpuid_15_ebx = 4;
  uint64_t tsc_start = 0x10000000;

  bool any() const { return tsc || mtc || cyc; }
};

// TSC(cycle).
uint64_t TscAtCycle(const PtTimingOptions& t, uint64_t cycle);
// The first cycle whose TSC is >= tsc.
uint64_t CycleAtTsc(const PtTimingOptions& t, uint64_t tsc);
// CTC(tsc).
uint64_t CtcAtTsc(const PtTimingOptions& t, uint64_t tsc);
// The TSC at which the crystal clock reaches `ctc`.
uint64_t TscAtCtc(const PtTimingOptions& t, uint64_t ctc);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_PT_TIMING_H_
