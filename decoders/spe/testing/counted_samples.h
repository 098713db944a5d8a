// A raw SPE trace of six known samples over counted.S's program image
// (testdata/decode/counted.hwt's counted_static), for the tests that check
// what the reports and exports make of SPE samples: three loads in leaf
// (0x401050-0x401058; latencies 10, 20, 30 cycles), two in special
// (0x401077, 0x40107c; 100 cycles each) and one outside every image
// (0x12345678; 5 cycles), all retired, data at 0x402000.
#ifndef HWT_DECODERS_SPE_TESTING_COUNTED_SAMPLES_H_
#define HWT_DECODERS_SPE_TESTING_COUNTED_SAMPLES_H_

#include <cstdint>
#include <string>

#include "decoders/spe/encoder.h"

namespace hwt::spe::testing {

inline std::string CountedSamplesTrace() {
  SpeEncoder encoder;
  auto sample = [&](uint64_t pc, uint16_t latency) {
    RecordSpec spec;
    spec.pc = pc;
    spec.op_class = 1;  // load
    spec.events = 0x2;  // retired
    spec.total_latency = latency;
    spec.data_va = 0x402000;
    spec.data_source = 0x0;
    EncodeRecord(spec, encoder);
  };
  sample(0x401050, 10);
  sample(0x401055, 20);
  sample(0x401057, 30);
  sample(0x401077, 100);
  sample(0x40107c, 100);
  sample(0x12345678, 5);
  return encoder.bytes();
}

}  // namespace hwt::spe::testing

#endif  // HWT_DECODERS_SPE_TESTING_COUNTED_SAMPLES_H_
