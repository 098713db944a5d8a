// A generator of long, random but valid event streams for a synthetic
// program (calls, returns, longjmp-style returns and jumps, returns without a
// known caller, tail calls, PLT stubs, jumps, syscalls traced and untraced,
// untraced callees, interrupts, gaps, timing, several streams, CPU-mode
// contexts), together with the profile expected from it. The expectation
// comes from a deliberately simple reference model of docs/call-stacks.md
// that works on the generator's own knowledge of what ran (names and
// strings, no analysis/ code), so the builder is checked against an
// independent implementation of the contract.
#ifndef HWT_ANALYSIS_TESTING_SYNTHETIC_TRACE_H_
#define HWT_ANALYSIS_TESTING_SYNTHETIC_TRACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "analysis/testing/event_script.h"

namespace hwt::analysis::testing {

struct SyntheticOptions {
  uint64_t seed = 1;
  size_t blocks = 20000;
  int streams = 1;
  bool per_context = false;  // CPU mode: contexts switch on each stream
  int contexts = 3;
  bool timing = true;
  bool gaps = true;
  bool kernel = true;  // some syscalls run a traced kernel handler
};

// What the reference model says the profile must contain. Stack keys are
// folded-style name paths ("main;f3;f7").
struct ExpectedProfile {
  std::map<std::string, uint64_t> stacks;      // merged: instructions
  std::map<std::string, uint64_t> stack_time;  // merged: time
  // Per thread: (stream, context) -> stacks.
  std::map<std::pair<uint32_t, uint64_t>, std::map<std::string, uint64_t>>
      thread_stacks;
  std::map<std::string, uint64_t> call_edges;  // "caller->callee"
  uint64_t instructions = 0;
  uint64_t blocks = 0;
  uint64_t gaps = 0;
};

struct SyntheticTrace {
  EventScript script;
  ExpectedProfile expected;
};

SyntheticTrace GenerateSyntheticTrace(const SyntheticOptions& options);

}  // namespace hwt::analysis::testing

#endif  // HWT_ANALYSIS_TESTING_SYNTHETIC_TRACE_H_
