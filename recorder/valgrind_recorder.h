// The fast software recorder: runs a program under valgrind with the
// project's tool hwttrace (recorder/valgrind_tool/hwt_trace.c), which writes
// every executed instruction's address and length as VEX decoded it, and the
// program's executable file mappings as valgrind placed them. Nothing here
// decodes x86: the instruction sequence and lengths are valgrind's, which is
// what makes this recorder an independent check of the project's decoders.
//
// Static and dynamically linked programs, PIEs, exec (--trace-children=yes:
// the new program is recorded too), signals (handlers return through
// valgrind's trampoline, which is reported as an image of its own). Refused
// with an error: threads, code no file backs (JIT), instructions valgrind
// cannot decode. Children of fork run untraced.
#ifndef HWT_RECORDER_VALGRIND_RECORDER_H_
#define HWT_RECORDER_VALGRIND_RECORDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "recorder/execution.h"
#include "recorder/recording.h"

namespace hwt::recorder {

struct ValgrindRecorderOptions {
  // The program and its arguments (searched in PATH when argv[0] has no
  // '/').
  std::vector<std::string> argv;
  // The environment given to valgrind (which adds to it for the program:
  // see ProbeValgrind); nullopt: the recorder's own.
  std::optional<std::vector<std::string>> env;
  std::string valgrind = "valgrind";
  // The folder holding hwttrace (see FindValgrindToolDir); empty: found.
  std::string tool_dir;
  // Files for the program's standard streams; empty: inherited. Valgrind's
  // own messages never go there.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  // Ends the recording after this many instructions and kills the program
  // (which may have run on a little: the trace is read in chunks); 0: all.
  uint64_t max_instructions = 0;
  // What OnStart reports as the CPU (valgrind's virtual CPU: see
  // CpuIdentityFromTable of ProbeValgrind's table).
  capture::CpuIdentity cpu;
};

// Records one run. The program's exit status (or -signal) is in the stats
// and passed to OnExit. The faulting instruction of a program killed by a
// signal is not reported (it did not complete). Instructions are delivered
// with their lengths (OnInstructionsWithLengths).
absl::StatusOr<RecordingStats> RecordWithValgrind(
    const ValgrindRecorderOptions& options, ExecutionSink& sink);

// Whether a RecordWithValgrind error means "this program cannot be recorded
// exactly under valgrind, but the ptrace recorder can" (code no file backs,
// an instruction VEX cannot decode), as opposed to a bad program, a missing
// valgrind or a thread (which ptrace refuses too).
bool PtraceCanRecordInstead(const absl::Status& status);

// Whether valgrind and the hwttrace tool are here; otherwise why not.
absl::Status ValgrindRecorderAvailable(
    const std::string& valgrind = "valgrind");

// Runs a program under the same valgrind tool and options, its trace
// discarded (for probes such as testdata/programs/cpuid_probe.c: the program
// sees what a recorded one sees); returns its exit status.
// options.stdout_path receives its output.
absl::StatusOr<int> RunUnderValgrind(const ValgrindRecorderOptions& options);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_VALGRIND_RECORDER_H_
