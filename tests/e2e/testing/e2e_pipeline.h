// Helpers for the end-to-end tests: record a real program into a capture
// bundle (recorder/emulate.h), then run the decoder and the analysis on that
// bundle as the tools do, and put both sides in comparable form. What the
// decoder and the analysis produce must equal the recording exactly:
// instruction by instruction, folded stack by folded stack.
#ifndef HWT_TESTS_E2E_TESTING_E2E_PIPELINE_H_
#define HWT_TESTS_E2E_TESTING_E2E_PIPELINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/profile.h"
#include "base/file_util.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/event.h"
#include "recorder/emulate.h"

namespace hwt::e2e {

// Per-function (self, total) by name, and call edges (caller, callee) ->
// count: the comparable form of truth/summary.json and of a profile.
using FunctionCounts = std::map<std::string, std::pair<uint64_t, uint64_t>>;
using CallEdgeCounts = std::map<std::pair<std::string, std::string>, uint64_t>;

// What RecordCapture wrote (truth/) and what the recorder saw.
struct Truth {
  uint64_t instructions = 0;
  std::string digest;  // "fnv1a64:..."
  std::string folded;  // truth/folded.txt
  FunctionCounts functions;
  CallEdgeCounts call_edges;
};

// Reads BUNDLE/truth/summary.json and folded.txt.
absl::StatusOr<Truth> ReadTruth(const std::string& bundle);

// A program recorded once (kept in memory) and encoded as often as needed.
class RecordedProgram {
 public:
  // Runs argv with `kind` (stdout to /dev/null) and writes the
  // default-options bundle.
  static absl::StatusOr<std::unique_ptr<RecordedProgram>> Record(
      const std::vector<std::string>& argv,
      recorder::RecorderKind kind = recorder::RecorderKind::kPtrace);

  // The bundle written with default encoder options.
  const std::string& bundle() const { return bundle_; }
  const recorder::EmulateResult& result() const { return result_; }
  const recorder::ExecutionLog& log() const { return log_; }

  // Encodes the same run again with `encoder` options into a new bundle
  // named NAME.hwt in this program's directory; returns the result.
  absl::StatusOr<recorder::EmulateResult> Encode(
      const std::string& name, const recorder::PtEncoderOptions& encoder,
      const std::string& raw_trace = "") const;

  const std::string& dir() const { return dir_->path(); }

 private:
  RecordedProgram() = default;
  std::vector<std::string> argv_;
  std::unique_ptr<TempDir> dir_;
  recorder::ExecutionLog log_;
  recorder::EmulateResult result_;
  std::string bundle_;
};

// The decoder's view: every block expanded into instruction addresses.
struct Decoded {
  std::vector<uint64_t> instructions;  // all streams, in stream order
  std::vector<StreamStats> stats;
  std::vector<Event> gaps;
  std::vector<std::string> walk_errors;  // blocks the walker could not expand
  // The fast path's count (TraceDecoder::CountInstructions), all streams.
  std::vector<StreamStats> fast_stats;
  uint64_t total_instructions() const;  // by the decoder's stats
  uint64_t total_errors() const;
  uint64_t total_overflows() const;
};

// Opens `path` (bundle, or raw trace with `options`), creates the decoder
// for it (CreateDecoder) and expands its blocks (InsnWalker, following the
// address-space timeline through the trace). For PT it also counts the
// instructions on the fast path, with a second decoder.
absl::StatusOr<Decoded> DecodeInstructions(
    const std::string& path, const capture::InputOptions& options = {});

// The analysis' view, named by the symbolizer (no inline frames: the ground
// truth, which reads symbols with its own reader, has real frames only).
struct Profiled {
  analysis::Profile profile;
  std::vector<StreamStats> stats;
  std::string folded;  // of the merged tree, instruction weight
  FunctionCounts functions;
  CallEdgeCounts call_edges;
};

// ProfileCapture over `path` with a Symbolizer holding the timeline's
// images, folded with report/profile/folded.h.
absl::StatusOr<Profiled> ProfileWithSymbols(
    const std::string& path, const capture::InputOptions& options = {});

// The trace positions of buffer 0's execs (EXECUTABLE records: the
// timeline's kResetUser changes).
absl::StatusOr<std::vector<uint64_t>> ExecPositions(const std::string& path);

// The trace offsets of the packets whose ptdump-style text starts with
// `prefix` (e.g. "ovf"), listed without decoding control flow.
absl::StatusOr<std::vector<uint64_t>> PacketOffsets(const std::string& path,
                                                    const std::string& prefix);

// "" when equal, else where the sequences first differ (with a few
// addresses around it).
std::string SequenceDifference(const std::vector<uint64_t>& actual,
                               const std::vector<uint64_t>& expected);

// "" when equal, else the first differing line of two texts.
std::string TextDifference(const std::string& actual,
                           const std::string& expected);

// The recorded sequence without the instructions an injected overflow lost.
std::vector<uint64_t> WithoutLost(
    const std::vector<uint64_t>& instructions,
    const std::vector<recorder::PtLostRange>& lost);

// The built test program `name` (testdata/programs).
std::string TestProgram(const std::string& name);

}  // namespace hwt::e2e

#endif  // HWT_TESTS_E2E_TESTING_E2E_PIPELINE_H_
