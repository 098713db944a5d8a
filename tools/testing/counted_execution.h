// An independent model of testdata/programs/counted.S's execution, for
// checking the tools' counted.* goldens (testdata/decode) without the code
// that wrote them: the instructions come from binutils' objdump of the
// recorded image (not our x86 classifier or disassembler), the order in which
// they run is written by hand from counted.S's comments, and everything the
// listings and reports show (blocks, branches, calls, call trees, hot spots,
// PT's TNT bits) is computed from those two here, by simple rules stated
// beside each.
#ifndef HWT_TOOLS_TESTING_COUNTED_EXECUTION_H_
#define HWT_TOOLS_TESTING_COUNTED_EXECUTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hwt::tools::testing {

// One instruction as objdump -d prints it.
struct Insn {
  uint64_t address = 0;
  int length = 0;
  std::string mnemonic;  // "call", "jne", "rep", ... (objdump's, no suffix)
  std::string operands;  // objdump's text after the mnemonic
  std::string function;  // the symbol objdump lists it under
  uint64_t function_offset = 0;
  uint64_t target = 0;  // direct branches and calls: objdump's target
  bool indirect = false;

  uint64_t next() const { return address + static_cast<uint64_t>(length); }
  // "leaf", "_start+0xb": the naming the listings use.
  std::string Name() const;
  // Ends a basic block (every control transfer, syscall included).
  bool IsBranch() const;
  bool IsCall() const;
  bool IsReturn() const;
  bool IsConditional() const;  // jcc, loop*, jrcxz
};

// A block of the execution: consecutive instructions up to a branch.
struct Block {
  const Insn* first = nullptr;
  const Insn* last = nullptr;
  int instructions = 0;
  // As the listings name it: "call", "call-indirect", "return", "jump",
  // "cond-taken", "cond-not-taken", "far-call".
  std::string kind;
  uint64_t next = 0;  // address of the next block's first instruction, or 0
};

// One node of the call tree: a call path and what ran there.
struct Frame {
  uint64_t self = 0;
  uint64_t total = 0;
  uint64_t calls = 0;  // call instructions that entered this path
};

// The capture the counted.* goldens are made from
// (testdata/decode/counted.hwt), and its counted_static image file ("" when
// the manifest does not name one).
std::string CountedCapture();
std::string CountedProgramImage();

class CountedExecution {
 public:
  // Disassembles `image` (the counted_static image of the capture) with
  // objdump and lays the hand-written execution over it.
  static absl::StatusOr<CountedExecution> Create(const std::string& image);
  // Movable (the instructions keep their addresses), not copyable.
  CountedExecution(CountedExecution&&) = default;
  CountedExecution& operator=(CountedExecution&&) = default;
  CountedExecution(const CountedExecution&) = delete;
  CountedExecution& operator=(const CountedExecution&) = delete;

  // The executed instructions, in order (79).
  const std::vector<const Insn*>& trace() const { return trace_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  // Call paths ("_start;outer;leaf") -> frame. Rules: a call pushes its
  // target's function, a return pops, a jump into another function
  // replaces the top frame (a tail call, which is not a call).
  const std::map<std::string, Frame>& tree() const { return tree_; }
  // The call listing: one "depth name" per entered function, root first
  // (the root at depth 0, then one line per executed call).
  const std::vector<std::pair<int, std::string>>& calls() const {
    return calls_;
  }
  // Executions of each instruction, and of conditional branches taken.
  std::map<uint64_t, uint64_t> InstructionCounts() const;
  std::map<uint64_t, uint64_t> TakenCounts() const;
  // Instructions per function (where they are, whoever called).
  std::map<std::string, uint64_t> SelfByFunction() const;
  // Instructions under each function's outermost frames (a recursive
  // function's inner frames are inside its outer ones).
  std::map<std::string, uint64_t> TotalByFunction() const;
  // Call instructions executed per target function.
  std::map<std::string, uint64_t> CallsByFunction() const;
  // PT with return compression: one TNT bit per conditional branch and per
  // return ('!' taken / returned, '.' not taken), in order.
  std::string TntBits() const;
  // Targets of the indirect calls (each one a TIP packet).
  std::vector<uint64_t> IndirectTargets() const;

  const Insn* At(uint64_t address) const;

 private:
  CountedExecution() = default;

  std::map<uint64_t, Insn> insns_;
  std::vector<const Insn*> trace_;
  std::vector<Block> blocks_;
  std::map<std::string, Frame> tree_;
  std::vector<std::pair<int, std::string>> calls_;
};

}  // namespace hwt::tools::testing

#endif  // HWT_TOOLS_TESTING_COUNTED_EXECUTION_H_
