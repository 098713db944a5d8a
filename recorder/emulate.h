// Records a real x86-64 program in software and writes it as a genuine Intel
// PT capture bundle: the recorder (ptrace single-stepping or valgrind) streams
// the executed instructions into the PT encoder and the ground-truth builder at
// once; the bundle holds the trace, the HWT records with their buffer
// positions, copies of every image, and truth/ (what the decoder must find).
// This is what hwt-emulate runs; tests call it directly.
#ifndef HWT_RECORDER_EMULATE_H_
#define HWT_RECORDER_EMULATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "recorder/pt_encoder.h"
#include "recorder/recording.h"

namespace hwt::recorder {

enum class RecorderKind { kPtrace, kValgrind };

struct EmulateOptions {
  std::vector<std::string> argv;  // the program and its arguments
  RecorderKind recorder = RecorderKind::kPtrace;
  // The CPU the capture claims to come from (libipt applies its errata).
  capture::CpuIdentity cpu;
  PtEncoderOptions encoder;
  std::string bundle;       // NAME.hwt to write (required)
  bool overwrite = false;   // replace an existing bundle
  std::string raw_trace;    // also write the bare PT stream here (optional)
  bool copy_images = true;  // make the bundle self-contained
  // The program's standard streams; empty: inherited.
  std::string stdin_path;
  std::string stdout_path;
  uint64_t max_instructions = 0;  // ptrace: stop after this many; 0 = all
};

struct EmulateResult {
  RecordingStats recording;
  PtEncoderStats encoder;
  uint64_t truth_instructions = 0;
  std::string bundle;
};

// The CPU hwt-emulate claims by default: a Skylake-SP (6/85/4), the example
// of the project's scripted forms.
capture::CpuIdentity DefaultEmulatedCpu();

absl::StatusOr<EmulateResult> RecordCapture(const EmulateOptions& options);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_EMULATE_H_
