// Records a real x86-64 program in software and writes it as a genuine Intel
// PT capture bundle: the recorder (ptrace single-stepping or valgrind) streams
// the executed instructions into the PT encoder and the ground-truth builder at
// once; the bundle holds the trace, the HWT records with their buffer
// positions, copies of every image, and truth/ (what the decoder must find).
// This is what hwt-emulate runs; tests call it directly, and keep a run in an
// ExecutionLog to encode it again with other options without re-running it.
#ifndef HWT_RECORDER_EMULATE_H_
#define HWT_RECORDER_EMULATE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "recorder/execution.h"
#include "recorder/pt_encoder.h"
#include "recorder/recording.h"

namespace hwt::recorder {

// kAuto: valgrind (with the hwttrace tool) when it is installed, else
// ptrace; a valgrind recording that fails because the program runs code
// valgrind cannot record exactly (generated code, an instruction VEX cannot
// decode) is run again with ptrace. EmulateOptions::notify says which.
enum class RecorderKind { kAuto, kPtrace, kValgrind };

// One recorded run kept in memory (an ExecutionSink): its mapping events,
// instruction sequence and exit, the vDSO image it ran with, and the
// recorder's statistics. RecordCapture fills one when asked and can encode
// it again instead of running the program (tests: one slow ptrace run,
// several encoder options).
class ExecutionLog : public ExecutionSink {
 public:
  void OnStart(const ExecutionInfo& info) override { info_ = info; }
  void OnMapping(const MappingEvent& event) override {
    mappings_.push_back(Mapping{instructions_.size(), event});
  }
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    instructions_.insert(instructions_.end(), ips.begin(), ips.end());
  }
  void OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                 absl::Span<const uint8_t> lengths) override {
    lengths_.resize(instructions_.size());  // unknown before: 0
    instructions_.insert(instructions_.end(), ips.begin(), ips.end());
    lengths_.insert(lengths_.end(), lengths.begin(), lengths.end());
  }
  void OnExit(int status) override { exit_status_ = status; }
  // Forgets everything (before a run is recorded again).
  void Clear() { *this = ExecutionLog(); }

  // Delivers the run to `sink` as the recorder did (mapping events before
  // the instruction they precede).
  void Replay(ExecutionSink& sink) const;

  const ExecutionInfo& info() const { return info_; }
  const std::vector<uint64_t>& instructions() const { return instructions_; }
  // The recorder's lengths (OnInstructionsWithLengths), empty when it gave
  // none.
  const std::vector<uint8_t>& lengths() const { return lengths_; }
  std::optional<int> exit_status() const { return exit_status_; }

  // Filled by RecordCapture.
  std::string vdso;  // the vDSO dump ("[vdso]" mappings); empty if none
  RecordingStats stats;

 private:
  struct Mapping {
    size_t before = 0;  // instructions delivered before it
    MappingEvent event;
  };
  ExecutionInfo info_;
  std::vector<Mapping> mappings_;
  std::vector<uint64_t> instructions_;
  std::vector<uint8_t> lengths_;
  std::optional<int> exit_status_;
};

struct EmulateOptions {
  std::vector<std::string> argv;  // the program and its arguments
  RecorderKind recorder = RecorderKind::kAuto;
  // Told which recorder runs, and why (hwt-emulate prints it on stderr).
  std::function<void(const std::string&)> notify;
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
  uint64_t max_instructions = 0;  // stop after this many; 0 = all
  // Keep the run here (not owned; filled from empty).
  ExecutionLog* log = nullptr;
  // Encode this earlier run instead of running a program (not owned): argv
  // and the recorder options are then only what the manifest says.
  const ExecutionLog* replay = nullptr;
};

struct EmulateResult {
  std::string recorder;  // "ptrace-singlestep" or "valgrind-hwttrace"
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
