// The exact software recorder: runs a program under ptrace and single-steps
// every user-mode instruction it executes, delivering their addresses in
// order to an ExecutionSink together with the mapping changes FreeBSD's HWT
// would report (EXECUTABLE at exec, MMAP/MUNMAP of executable file mappings,
// plus the vDSO as an MMAP of "[vdso]"). It is what the project's PT decoder
// is checked against: the recorded execution is the ground truth.
//
// Single-threaded programs only: a program that creates a thread is stopped
// and refused with an error. Signals are delivered to the program as they
// would be without the recorder. Speed is that of two system calls and a
// trap per instruction (~20k instructions/s in this VM); see
// docs/recorder.md.
#ifndef HWT_RECORDER_PTRACE_RECORDER_H_
#define HWT_RECORDER_PTRACE_RECORDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "recorder/cpuid_table.h"
#include "recorder/execution.h"
#include "recorder/initial_stack.h"
#include "recorder/recording.h"

namespace hwt::recorder {

struct PtraceRecorderOptions {
  // The program and its arguments; argv[0] is searched in PATH when it has
  // no '/'.
  std::vector<std::string> argv;
  // The program's environment; nullopt: the recorder's own.
  std::optional<std::vector<std::string>> env;
  // personality(ADDR_NO_RANDOMIZE): the same addresses on every run.
  bool disable_aslr = true;
  // Files for the program's standard streams; empty: inherited.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  // Where to write the vDSO (a complete ELF image) so that sinks can decode
  // it: map the recorded path "[vdso]" to this file (CodeMapOptions::
  // path_aliases). Empty: not written.
  std::string vdso_dump_path;
  // Answers for CPUID (and XGETBV when cpuid->xcr0 is set). CPUID is never
  // single-stepped (under a hypervisor the trap after it can be lost, and
  // the next instruction runs unseen): the recorder reports it as executed,
  // sets its result registers and skips it, with this table's answers, or
  // this machine's when there is no table.
  std::optional<CpuidTable> cpuid;
  // System calls (by number) that fail with ENOSYS without running, as on a
  // kernel (or under valgrind) that does not have them.
  std::vector<long> enosys_syscalls;
  // Rewrites the types of the program's initial auxiliary vector, entry by
  // entry (valgrind turns AT_SYSINFO_EHDR and a few others into AT_IGNORE:
  // pass the types a program sees under valgrind to start the same way).
  // Only changes to AT_IGNORE are possible; the entry counts must agree.
  std::optional<std::vector<uint64_t>> auxv_types;
  // Rebuilds the initial stack at the exec stop so that the stack pointer
  // and every string lie at the same page offsets as in `stack_layout`
  // (same contents, addresses moved by a multiple of the page size). The
  // argument and environment counts must agree.
  std::optional<InitialStackLayout> stack_layout;
  // Reads the instruction pointer after every step and checks it against
  // the prediction from the decoded instruction (slower; for tests).
  bool verify_predictions = false;
  // Stops (kills) the program after this many instructions; 0: no limit.
  uint64_t max_instructions = 0;
};

// Records one run. A program that cannot be started, that creates a thread,
// or whose code cannot be decoded is an error; a program that exits
// non-zero or is killed by a signal is a successful recording whose
// exit_status says so (and the sink's OnExit gets it).
absl::StatusOr<RecordingStats> RecordWithPtrace(
    const PtraceRecorderOptions& options, ExecutionSink& sink);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_PTRACE_RECORDER_H_
