// hwt-html-spe-sample: writes a raw SPE trace of known samples for the HTML
// report's tests: loads and stores at the functions of counted_static
// (leaf 0x401050, rec 0x40106b, special 0x401077), with latencies from 3 to
// 900 cycles, L1D refills and LLC misses, data in two cache lines, and one
// sample outside every image. Test-only: not installed.
//   hwt-html-spe-sample OUT.spe
#include <cstdio>
#include <string>

#include "base/file_util.h"
#include "decoders/spe/encoder.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: hwt-html-spe-sample OUT.spe\n");
    return 2;
  }
  hwt::spe::SpeEncoder encoder;
  auto sample = [&](uint64_t pc, int op_class, uint16_t latency,
                    uint64_t events, uint64_t data, uint64_t source) {
    hwt::spe::RecordSpec spec;
    spec.pc = pc;
    spec.op_class = op_class;                               // 1: load/store
    spec.op = op_class == 1 && (latency % 2) != 0 ? 1 : 0;  // odd: store
    spec.events = events;
    spec.total_latency = latency;
    spec.issue_latency = static_cast<uint16_t>(latency / 3);
    spec.translation_latency = static_cast<uint16_t>(latency / 10);
    spec.data_va = data;
    spec.data_source = source;
    hwt::spe::EncodeRecord(spec, encoder);
  };
  constexpr uint64_t kRetired = 0x2, kL1dRefill = 0x8, kLlcMiss = 0x200;
  for (int i = 0; i < 12; ++i) {
    sample(0x401050 + (i % 3), 1, static_cast<uint16_t>(3 + i * 4), kRetired,
           0x402000 + (i % 4) * 8, 0x0);
  }
  for (int i = 0; i < 5; ++i) {
    sample(0x40106b, 1, static_cast<uint16_t>(40 + i * 30),
           kRetired | kL1dRefill, 0x402040, 0x8);
  }
  for (int i = 0; i < 3; ++i) {
    sample(0x401077, 1, static_cast<uint16_t>(300 + i * 300),
           kRetired | kL1dRefill | kLlcMiss, 0x402080, 0xa);
  }
  sample(0x12345678, 1, 5, kRetired, 0x402000, 0x0);
  const auto status = hwt::WriteFileAtomically(argv[1], encoder.bytes());
  if (!status.ok()) {
    fprintf(stderr, "hwt-html-spe-sample: %s\n",
            std::string(status.message()).c_str());
    return 3;
  }
  return 0;
}
