// What a software recorder reports about one recorded run (both recorders
// fill the fields that apply to them).
#ifndef HWT_RECORDER_RECORDING_H_
#define HWT_RECORDER_RECORDING_H_

#include <cstdint>

namespace hwt::recorder {

struct RecordingStats {
  uint64_t instructions = 0;  // delivered to the sink
  double seconds = 0;         // wall time of the whole run
  int exit_status = 0;        // as passed to OnExit: exit code, or -signal
  uint64_t mapping_events = 0;

  // ptrace recorder.
  uint64_t steps = 0;  // single steps (a rep string steps per iteration)
  uint64_t register_reads = 0;
  uint64_t cpuid_emulated = 0;
  uint64_t cpuid_misses = 0;  // CPUID leaves the table had no answer for
  uint64_t xgetbv_emulated = 0;
  uint64_t signals_delivered = 0;  // both recorders
  uint64_t syscalls_failed = 0;    // enosys_syscalls
  bool truncated = false;          // stopped at max_instructions

  // valgrind recorder.
  uint64_t guest_instructions = 0;  // VEX's count (rep iterations each)
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_RECORDING_H_
