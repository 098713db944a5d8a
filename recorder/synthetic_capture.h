// Synthetic Intel PT captures of any size for tests and benchmarks: a random
// but valid x86-64 program (recorder/synthetic_program.h), one execution of
// it encoded as PT by recorder/pt_encoder.h and streamed to a file (memory
// does not grow with the trace), opened as a capture with the program's raw
// code mapped at its base, and the program's function ranges (for resolvers
// that give profiles of synthetic traces real call stacks). Test/bench only
// (hwt_synthetic_capture).
#ifndef HWT_RECORDER_SYNTHETIC_CAPTURE_H_
#define HWT_RECORDER_SYNTHETIC_CAPTURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "recorder/pt_encoder.h"
#include "recorder/synthetic_program.h"

namespace hwt::recorder {

struct SyntheticCaptureOptions {
  SyntheticProgramOptions program;
  uint64_t execution_seed = 1;
  // Instruction budget of the execution; with target_bytes != 0 it is
  // derived from a short pilot run so that the trace has about that size.
  uint64_t instructions = 100000;
  uint64_t target_bytes = 0;
  PtEncoderOptions encoder;
};

struct SyntheticCapture {
  std::string code_path;
  std::string trace_path;
  std::unique_ptr<SyntheticProgram> program;
  std::unique_ptr<capture::Capture> capture;
  capture::AddressSpaceTimeline timeline;
  PtEncoderStats encoder;  // empty when opened from files
  SyntheticExecutionStats execution;
};

// Generates the program and its trace into `dir` (code.bin, trace.pt) and
// opens them. The trace is written while the execution runs.
absl::StatusOr<SyntheticCapture> WriteSyntheticCapture(
    const std::string& dir, const SyntheticCaptureOptions& options);

// Opens files written by WriteSyntheticCapture with the same program options
// (the program is regenerated from its seed: only the trace is slow to make).
absl::StatusOr<SyntheticCapture> OpenSyntheticCapture(
    const std::string& dir, const SyntheticProgramOptions& program);

// A capture of `trace_path` (one buffer, thread mode, Skylake-SP) with raw
// code `code_path` mapped at `base` from position 0.
absl::StatusOr<SyntheticCapture> OpenRawCodeCapture(
    const std::string& trace_path, const std::string& code_path, uint64_t base);

// [start, end) of every function of `program` (main first), sorted.
struct SyntheticFunction {
  uint64_t start = 0;
  uint64_t end = 0;
};
std::vector<SyntheticFunction> SyntheticFunctions(
    const SyntheticProgram& program);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_SYNTHETIC_CAPTURE_H_
