// Test helpers shared by the tests that check a PT decode path against the
// sequential libipt decoder (parallel decoding, fast counting): synthetic
// traces that exercise what is hard at PSB seams, and a field-by-field
// comparison of stream statistics.
#ifndef HWT_TESTS_PT_TESTING_SYNTHETIC_CONFIGS_H_
#define HWT_TESTS_PT_TESTING_SYNTHETIC_CONFIGS_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "decoders/decoder.h"
#include "decoders/pt/testing/pt_streams.h"
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

// A 1,000,000-instruction synthetic trace (PSB every 512 bytes) written to
// `dir`, with 24 bytes of 0xd5 every 9,973 bytes from offset 3,000.
absl::StatusOr<recorder::SyntheticCapture> WriteCorruptSyntheticCapture(
    const std::string& dir);

// Three synthetic traces of 300k, 600k and 900k instructions as three
// buffers, each cut in four chunks with data lost before the third; the
// capture's files live in its own directory. `dir` holds the traces.
absl::StatusOr<TestCapture> MakeChunkedBuffersCapture(const std::string& dir);

// Every field equal; blocks too when `blocks`.
void ExpectSameStats(const StreamStats& actual, const StreamStats& expected,
                     bool blocks = true);

}  // namespace hwt::pt::testing

#endif  // HWT_TESTS_PT_TESTING_SYNTHETIC_CONFIGS_H_
