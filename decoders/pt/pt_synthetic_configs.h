// Test helpers shared by the tests that check a PT decode path against the
// sequential libipt decoder (parallel decoding, fast counting): synthetic
// traces that exercise what is hard at PSB seams, and a field-by-field
// comparison of stream statistics.
#ifndef HWT_DECODERS_PT_PT_SYNTHETIC_CONFIGS_H_
#define HWT_DECODERS_PT_PT_SYNTHETIC_CONFIGS_H_

#include <cstddef>
#include <ostream>
#include <vector>

#include "decoders/decoder.h"
#include "recorder/synthetic_capture.h"

namespace hwt::pt::testing {

struct SyntheticConfig {
  const char* name;
  recorder::SyntheticCaptureOptions options;
  size_t segment_bytes;  // for parallel decoding
};
inline void PrintTo(const SyntheticConfig& config, std::ostream* os) {
  *os << config.name;
}

// Thousands of PSBs; recursion deeper than the return-compression stack;
// long TNT; timing packets; overflows; no return compression.
std::vector<SyntheticConfig> SyntheticConfigs();

// Every field equal; blocks too when `blocks`.
void ExpectSameStats(const StreamStats& actual, const StreamStats& expected,
                     bool blocks = true);

}  // namespace hwt::pt::testing

#endif  // HWT_DECODERS_PT_PT_SYNTHETIC_CONFIGS_H_
