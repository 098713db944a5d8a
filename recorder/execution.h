// A recorded execution as a stream: what the software recorders (ptrace
// single-stepping, valgrind) produce and what the PT encoder and the
// ground-truth computation consume. Streaming keeps memory flat for recordings
// of hundreds of millions of instructions.
#ifndef HWT_RECORDER_EXECUTION_H_
#define HWT_RECORDER_EXECUTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "capture/manifest.h"
#include "capture/record.h"
#include "decoders/x86/x86_insn.h"

namespace hwt::recorder {

// A change of the traced process's mappings, as the HWT kernel would report it
// (EXECUTABLE, MMAP, MUNMAP records), with the file it refers to on this
// machine.
struct MappingEvent {
  capture::RecordType type = capture::RecordType::kMmap;
  std::string path;       // path as the traced process saw it
  uint64_t addr = 0;      // as in capture::Record
  uint64_t baseaddr = 0;  // EXECUTABLE: interpreter base (0 if static)
};

struct ExecutionInfo {
  std::string command;       // argv joined, for humans
  capture::CpuIdentity cpu;  // the CPU the trace claims to come from
  std::string recorder;      // "ptrace-singlestep", "valgrind-hwttrace"
};

class ExecutionSink {
 public:
  virtual ~ExecutionSink() = default;
  virtual void OnStart(const ExecutionInfo& info) {}
  // A mapping change that takes effect before the next instruction passed to
  // OnInstructions.
  virtual void OnMapping(const MappingEvent& event) = 0;
  // The next executed user-mode instructions, in order, by address. A
  // rep-prefixed string instruction appears once per execution, not once
  // per iteration.
  virtual void OnInstructions(absl::Span<const uint64_t> ips) = 0;
  // The same, with each instruction's length as the recorder's own decoder
  // measured it (the valgrind recorder: VEX's), for sinks that must not take
  // lengths from the project's x86 classifier (the ground truth). Recorders
  // that know lengths call this instead of OnInstructions; the default
  // ignores the lengths.
  virtual void OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                         absl::Span<const uint8_t> lengths) {
    OnInstructions(ips);
  }
  // The process ended (exit status, or -signal).
  virtual void OnExit(int status) {}
};

// What instruction is at an address of the traced process (the recorder
// implements it over the mapped files, tests over fake code). The PT encoder
// uses it to classify executed instructions; it caches answers per address and
// forgets them at every mapping change. nullopt = no mapped code or an invalid
// encoding at `ip`.
class InsnSource {
 public:
  virtual ~InsnSource() = default;
  virtual std::optional<x86::Insn> InsnAt(uint64_t ip) = 0;
};

// Fans one execution out to several sinks (encoder + ground truth + ...).
class TeeExecutionSink : public ExecutionSink {
 public:
  explicit TeeExecutionSink(std::vector<ExecutionSink*> sinks)
      : sinks_(std::move(sinks)) {}
  void OnStart(const ExecutionInfo& info) override {
    for (auto* s : sinks_) s->OnStart(info);
  }
  void OnMapping(const MappingEvent& event) override {
    for (auto* s : sinks_) s->OnMapping(event);
  }
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    for (auto* s : sinks_) s->OnInstructions(ips);
  }
  void OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                 absl::Span<const uint8_t> lengths) override {
    for (auto* s : sinks_) s->OnInstructionsWithLengths(ips, lengths);
  }
  void OnExit(int status) override {
    for (auto* s : sinks_) s->OnExit(status);
  }

 private:
  std::vector<ExecutionSink*> sinks_;
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_EXECUTION_H_
