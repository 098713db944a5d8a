// The initial stack of a traced process at its exec stop (argc, argv, envp,
// the auxiliary vector and the strings they point to), rewritten so that
// the program starts the way another run did: auxiliary-vector entry types
// turned into AT_IGNORE, or the whole block rebuilt at other page offsets.
// Used by the ptrace recorder to mimic a valgrind run (valgrind_probe.h).
#ifndef HWT_RECORDER_INITIAL_STACK_H_
#define HWT_RECORDER_INITIAL_STACK_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "recorder/proc_maps.h"

namespace hwt::recorder {

// Where another run of the program (under valgrind) had its initial stack:
// the stack pointer (the address of argc) and the strings it points to.
// String functions take different paths depending on the offset of their
// data within a page (page-crossing checks, vector alignment), so a run that
// must execute exactly like that one needs its stack at the same page
// offsets.
struct InitialStackLayout {
  uint64_t sp = 0;
  std::vector<uint64_t> argv;  // address of each argument string
  std::vector<uint64_t> env;   // address of each environment string
  uint64_t random = 0;         // AT_RANDOM's 16 bytes (0: none)
  uint64_t execfn = 0;         // AT_EXECFN's string (0: none)
  uint64_t platform = 0;       // AT_PLATFORM's string (0: none)
};

// Rewrites the stack at `rsp` of the stopped process `pid` (its memory open
// as `mem_fd`; `maps` its mappings, for the [stack] bounds): entry types
// from `auxv_types` (only changes to AT_IGNORE), and with `layout` the block
// rebuilt at the layout's page offsets (moved by a multiple of the page
// size) and rsp set to it. Errors say what does not match.
absl::Status RewriteInitialStack(
    pid_t pid, int mem_fd, uint64_t rsp, const std::vector<ProcMapping>& maps,
    const std::optional<std::vector<uint64_t>>& auxv_types,
    const std::optional<InitialStackLayout>& layout);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_INITIAL_STACK_H_
