// Random but valid x86-64 programs (real machine code: functions made of
// straight-line code, if/else, loops with trip counts, switches through
// indirect jumps, direct/indirect/tail calls, "call next" PIC idioms,
// recursion, syscalls) and streamed executions of them, for tests and for
// benchmark traces of any size. The code is never run: an execution is a walk
// of the code driven by a seeded pseudo-random oracle that decides branch
// outcomes, loop trip counts, indirect targets and recursion depths. Both the
// program and the walk are reproducible from their seeds, and the walk's
// memory does not grow with its length.
#ifndef HWT_RECORDER_SYNTHETIC_PROGRAM_H_
#define HWT_RECORDER_SYNTHETIC_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "recorder/execution.h"

namespace hwt::recorder {

struct SyntheticProgramOptions {
  uint64_t seed = 1;
  uint64_t base = 0x400000;  // load address of the code
  int functions = 24;        // besides main
  int max_statements = 8;    // per block of a function body
  int max_nesting = 3;       // depth of nested if/loop/switch
  int max_loop_trips = 6;
  bool syscalls = true;
  // Functions that call themselves; each activation from outside picks a
  // depth in [1, max_recursion_depth]. 0 = none.
  int recursive_functions = 1;
  int max_recursion_depth = 20;
};

// What a control-transfer instruction does when the walker executes it.
enum class SyntheticSite : uint8_t {
  kNone,          // not a control transfer
  kCond,          // forward jcc/jrcxz: taken with a per-site probability
  kLoopBack,      // backward jcc/loop: taken (trips - 1) times per loop entry
  kCallGuard,     // jcc around a call: skips more often deeper in the stack
  kRecurseSkip,   // jcc around a recursive call: skips at the chosen depth
  kMainLoop,      // main's back edge: taken until the budget is spent
  kJump,          // direct jmp (incl. tail calls to other functions)
  kSwitch,        // indirect jmp through one of several case targets
  kCall,          // direct call
  kCallNext,      // call to the next instruction (PIC idiom, not a frame)
  kCallIndirect,  // indirect call to one of several functions
  kReturn,        // ret / ret imm16
  kSyscall,       // syscall / int 0x80 (continues at the next instruction)
  kExit,          // the exit syscall: the execution ends
};

class SyntheticProgram {
 public:
  struct Insn {
    uint64_t ip = 0;
    uint8_t length = 0;
    SyntheticSite site = SyntheticSite::kNone;
    uint64_t target = 0;  // direct target (kCond, kLoopBack, kJump, kCall, ...)
    uint32_t targets = 0;      // kSwitch/kCallIndirect: index into target lists
    uint16_t probability = 0;  // kCond: taken probability in 1/65536
    int32_t function = 0;      // function index (0 = main)
  };

  static SyntheticProgram Generate(const SyntheticProgramOptions& options);

  uint64_t base() const { return base_; }
  uint64_t entry() const { return entry_; }
  const std::string& code() const { return code_; }
  // Every instruction of the program, in address order.
  const std::vector<Insn>& instructions() const { return insns_; }
  // The instruction at `ip` (nullptr if no instruction starts there).
  const Insn* InsnAt(uint64_t ip) const;
  const std::vector<uint64_t>& target_list(uint32_t index) const {
    return target_lists_[index];
  }
  int function_count() const { return function_count_; }
  bool is_recursive(int function) const {
    return recursive_[static_cast<size_t>(function)];
  }
  int max_recursion_depth() const { return max_recursion_depth_; }
  int max_loop_trips() const { return max_loop_trips_; }

  // Writes the raw code (loaded at base()) atomically.
  absl::Status WriteCode(const std::string& path) const;

  // An InsnSource decoding this program's bytes with the LLVM x86 decoder
  // (independent of the generator's own bookkeeping). Keeps a reference to
  // the program.
  std::unique_ptr<InsnSource> NewInsnSource() const;

 private:
  friend class SyntheticAssembler;
  uint64_t base_ = 0;
  uint64_t entry_ = 0;
  std::string code_;
  std::vector<Insn> insns_;
  std::vector<int32_t> insn_index_;  // by code offset, -1 inside instructions
  std::vector<std::vector<uint64_t>> target_lists_;
  std::vector<bool> recursive_;
  int function_count_ = 0;
  int max_recursion_depth_ = 1;
  int max_loop_trips_ = 1;
};

struct SyntheticExecutionOptions {
  uint64_t seed = 1;
  // Instruction budget. With end_with_exit, the walk then unwinds (loops exit,
  // guarded calls are skipped) back to main and runs the exit stub, so the
  // execution is slightly longer; otherwise it stops after exactly this many.
  uint64_t instructions = 100000;
  bool end_with_exit = true;
  // Path reported in the initial MMAP event (the file WriteCode wrote).
  std::string code_path = "synthetic.bin";
  size_t batch = 4096;  // instructions per OnInstructions call
};

struct SyntheticExecutionStats {
  uint64_t instructions = 0;
  uint64_t max_call_depth = 0;
  uint64_t calls = 0;
  uint64_t returns = 0;
  uint64_t syscalls = 0;
  uint64_t cond_branches = 0;
};

// Walks `program` and feeds the execution to `sink`: OnStart, one kMmap
// OnMapping for the code, OnInstructions in batches, OnExit(0).
SyntheticExecutionStats RunSyntheticExecution(
    const SyntheticProgram& program, const SyntheticExecutionOptions& options,
    ExecutionSink* sink);

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_SYNTHETIC_PROGRAM_H_
