// The fast software recorder: runs a statically linked program under
// valgrind's lackey tool with superblock tracing (one "SB <address>" line per
// superblock entered; millions of instructions/s) and reconstructs the exact
// instruction sequence from the superblock starts and the program's code.
//
// Reconstruction relies on how VEX forms superblocks with
// --vex-guest-chase=no --vex-iropt-unroll-thresh=0 --vex-guest-max-insns=50:
// a superblock is straight-line code that ends at the first branch, call,
// return, system call, rep-string iteration or pause, or after 50
// instructions; loop/loope/loopne/jrcxz are side exits in its middle. The
// next superblock's start tells which exit was taken. Every superblock's
// exit is checked against the next start, and the total is checked against
// lackey's own count of executed guest instructions, so a wrong
// reconstruction is an error, never a silently different trace.
//
// Limits (errors, not silent): dynamically linked programs (valgrind maps
// ld.so and the libraries at addresses of its own choosing, which its output
// does not tell), programs that take signals, code outside the program image.
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
  // The program and its arguments (a static executable; searched in PATH
  // when argv[0] has no '/').
  std::vector<std::string> argv;
  // The environment given to valgrind (which adds to it for the program:
  // see ProbeValgrind); nullopt: the recorder's own.
  std::optional<std::vector<std::string>> env;
  std::string valgrind = "valgrind";
  // Files for the program's standard streams; empty: inherited. Valgrind's
  // own messages never go there.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  // What OnStart reports as the CPU (valgrind's virtual CPU: see
  // CpuIdentityFromTable of ProbeValgrind's table).
  capture::CpuIdentity cpu;
};

// Records one run. The program's exit status (or -signal) is in the stats
// and passed to OnExit. A program killed by a signal has its last
// superblock cut where lackey's instruction count says it stopped.
absl::StatusOr<RecordingStats> RecordWithValgrind(
    const ValgrindRecorderOptions& options, ExecutionSink& sink);

// Runs a program under the same valgrind tool and options without tracing
// (for probes such as testdata/programs/cpuid_probe.c); returns its exit
// status. options.stdout_path receives its output.
absl::StatusOr<int> RunUnderValgrind(const ValgrindRecorderOptions& options);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_VALGRIND_RECORDER_H_
