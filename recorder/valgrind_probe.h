// What a program sees when it runs under valgrind: the CPUID answers of
// valgrind's virtual CPU, XCR0, the environment valgrind gives it and the
// types of its auxiliary vector. Obtained by running
// testdata/programs/cpuid_probe.c under valgrind; used to make the ptrace
// recorder run a program the way valgrind runs it, so that the two
// recorders can be compared instruction by instruction.
#ifndef HWT_RECORDER_VALGRIND_PROBE_H_
#define HWT_RECORDER_VALGRIND_PROBE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/file_util.h"
#include "recorder/cpuid_table.h"
#include "recorder/ptrace_recorder.h"
#include "recorder/valgrind_recorder.h"

namespace hwt::recorder {

struct ValgrindProfile {
  CpuidTable cpuid;                   // with xcr0 when the probe saw OSXSAVE
  std::vector<std::string> env;       // the program's environment, in order
  std::vector<uint64_t> auxv_types;   // the program's auxiliary vector types
  std::vector<long> enosys_syscalls;  // start-up system calls valgrind lacks
  InitialStackLayout stack;           // where valgrind put the initial stack
};

// Parses the probe's output (see cpuid_probe.c for the format).
absl::StatusOr<ValgrindProfile> ParseProbeOutput(std::string_view text);

// Runs `probe_program` under valgrind with `options` (argv[0] is replaced
// by the probe; the arguments, env and valgrind are used) and parses what it
// printed.
absl::StatusOr<ValgrindProfile> ProbeValgrind(
    const std::string& probe_program, const ValgrindRecorderOptions& options);

// Two recorders can only be compared on runs that start identically: the
// same argv strings (argv[0] included: glibc looks for its last '/'), the
// same environment and the same stack page offsets. A lookalike is a
// temporary link `DIR/NAME` (NAME = the program's base name): the probe runs
// through it, with the program's arguments and environment, so that valgrind
// lays out its stack as it will for the program; the link then points at the
// program, and both recorders run the program through it.
class ValgrindLookalike {
 public:
  static absl::StatusOr<ValgrindLookalike> Create(
      const std::string& probe_program, const ValgrindRecorderOptions& program);

  const ValgrindProfile& profile() const { return profile_; }
  // The program's options with argv[0] = the link.
  const ValgrindRecorderOptions& valgrind_options() const { return valgrind_; }
  // `base` with the program's argv (through the link) and everything
  // MimicValgrind sets.
  PtraceRecorderOptions ptrace_options(PtraceRecorderOptions base) const;

 private:
  ValgrindLookalike(TempDir dir) : dir_(std::move(dir)) {}
  TempDir dir_;
  ValgrindProfile profile_;
  ValgrindRecorderOptions valgrind_;
};

// Ptrace options that start the program the way valgrind does: valgrind's
// CPUID/XCR0 answers, its environment, its auxiliary-vector types and its
// missing system calls.
PtraceRecorderOptions MimicValgrind(const ValgrindProfile& profile,
                                    PtraceRecorderOptions options);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_VALGRIND_PROBE_H_
