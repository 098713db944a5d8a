// Helpers for the hostile-input suite: a PT capture of a synthetic program
// with its trace's packet boundaries, captures whose trace buffer is replaced
// by other bytes, decoding that checks the byte accounting, and file-system
// snapshots that show what a run left behind.
#ifndef HWT_TESTS_HOSTILE_TESTING_HOSTILE_INPUTS_H_
#define HWT_TESTS_HOSTILE_TESTING_HOSTILE_INPUTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "base/file_util.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"

namespace hwt::hostile {

// A synthetic x86-64 program, one execution of it encoded as PT, and the
// offset of every packet in that trace.
struct PtCase {
  recorder::SyntheticProgram program;
  std::string trace;
  std::vector<uint64_t> packet_offsets;
  capture::PtConfig pt_config;
};
PtCase MakePtCase(uint64_t instructions,
                  const recorder::PtEncoderOptions& options, uint64_t seed = 1);

// Writes a PT bundle at `dir`: `trace` as buffer 0, the case's program as a
// memory dump at its load address.
absl::Status WritePtBundle(const std::string& dir, const PtCase& c,
                           const std::string& trace);

// A capture opened from a bundle, with its timeline; WithTrace() gives the
// same capture with buffer 0 replaced by other bytes.
class CaptureUnderTest {
 public:
  static absl::StatusOr<std::unique_ptr<CaptureUnderTest>> Open(
      const std::string& path, const capture::InputOptions& options = {});
  std::unique_ptr<capture::Capture> WithTrace(const std::string& bytes);
  const capture::Capture& capture() const { return *capture_; }
  const capture::AddressSpaceTimeline& timeline() const { return timeline_; }

 private:
  std::unique_ptr<capture::Capture> capture_;
  capture::AddressSpaceTimeline timeline_;
  std::unique_ptr<TempDir> scratch_;
  int traces_ = 0;
};

// The result of decoding a capture with CreateDecoder().
struct Decoded {
  absl::Status status;                     // CreateDecoder and Decode
  std::vector<std::vector<Event>> events;  // per stream
  std::vector<StreamStats> stats;
  std::vector<int> ends;  // OnStreamEnd calls per stream

  std::vector<Event> Blocks(uint32_t stream = 0) const;
  uint64_t Instructions() const;
};
Decoded Decode(const capture::Capture& capture,
               const capture::AddressSpaceTimeline& timeline);

// Expects (gtest) trace_bytes == bytes_decoded + bytes_lost for every stream,
// the streams' bytes adding up to `size` (at most `size` when `deformatted`),
// every event and error inside the buffer, each stream ended once.
void ExpectAccounted(const Decoded& decoded, uint64_t size, bool deformatted,
                     const std::string& what);

// The fast instruction count (TraceDecoder::CountInstructions) of the same
// capture: it succeeds, accounts for every byte, and when `full` found no
// error but overflows it has full's instructions, errors and lost bytes.
void ExpectFastCountAgrees(const capture::Capture& capture,
                           const capture::AddressSpaceTimeline& timeline,
                           const Decoded& full, const std::string& what);

// $TMPDIR pointed at a fresh `parent`/tmp for the object's lifetime (and
// restored after), so a test sees what readers leave behind there (packed
// bundles and perf.data imports unpack below $TMPDIR).
class PrivateTmpDir {
 public:
  explicit PrivateTmpDir(const std::string& parent);
  ~PrivateTmpDir();
  PrivateTmpDir(const PrivateTmpDir&) = delete;
  PrivateTmpDir& operator=(const PrivateTmpDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::optional<std::string> old_;
};

// Every path below `dir` (relative), for before/after comparisons.
std::set<std::string> ListTree(const std::string& dir);

// `bytes` with bit `bit` (0 = lowest bit of the first byte) flipped.
std::string FlipBit(std::string bytes, uint64_t bit);

}  // namespace hwt::hostile

#endif  // HWT_TESTS_HOSTILE_TESTING_HOSTILE_INPUTS_H_
