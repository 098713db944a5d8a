// The ground truth of a recorded execution, computed exactly as
// docs/call-stacks.md defines it: call stacks rebuilt from every executed
// instruction, instructions attributed to stacks (folded stacks), per
// function self/total counts and call edges, plus the instruction count and
// a digest of the instruction sequence. The analysis layer implements the
// same stack rules independently from decoded trace; tests compare the two.
// Both halves are deliberately independent of the code they check: the
// stack machinery of analysis/, and the symbolizer's function rules (which
// function an address belongs to, and its name, come from the truth's own
// ELF reader, recorder/elf_functions.h). What ran comes from the recorder:
// with OnInstructionsWithLengths (the valgrind recorder) the addresses and
// lengths are VEX's; the project's x86 classifier (CodeMap) is used only
// for the class of each instruction (call, return, jump, conditional jump)
// and a direct branch's target, and for lengths when the recorder gives
// none (the ptrace recorder).
//
// Output files (Write): summary.json
//   {"format": "hwt-ground-truth", "version": 1, "recorder", "command",
//    "instructions", "digest": "fnv1a64:<16 hex digits>", "exit_status",
//    "undecodable_instructions", "recorder_lengths" (instructions whose
//    length came from the recorder, not the classifier),
//    "functions": [{"name", "self", "total"}]            (sorted by name),
//    "call_edges": [{"caller", "callee", "count"}]       (sorted),
//    "images": [{"path", "file", "bias"}]}               (mapping order)
// where "file" is the file read, or the recorded path for an aliased one
// (the vDSO dump is a temporary file).
// and folded.txt (one "frame;frame;... count" line per stack, sorted).
// The digest is FNV-1a (64 bit) over the instruction addresses as 8-byte
// little-endian words, in execution order (InstructionDigest).
#ifndef HWT_RECORDER_GROUND_TRUTH_H_
#define HWT_RECORDER_GROUND_TRUTH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "recorder/code_map.h"
#include "recorder/elf_functions.h"
#include "recorder/execution.h"

namespace hwt::recorder {

// FNV-1a (64 bit) over addresses as 8-byte little-endian words: the digest
// of summary.json. Feed instructions in order, starting from kOffsetBasis.
class InstructionDigest {
 public:
  void Add(uint64_t ip) {
    for (int byte = 0; byte < 8; ++byte) {
      value_ = (value_ ^ ((ip >> (8 * byte)) & 0xff)) * kPrime;
    }
  }
  void Add(absl::Span<const uint64_t> ips) {
    for (uint64_t ip : ips) Add(ip);
  }
  uint64_t value() const { return value_; }

  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
  static constexpr uint64_t kPrime = 0x100000001b3ull;

 private:
  uint64_t value_ = kOffsetBasis;
};

struct FunctionCount {
  std::string name;
  uint64_t self = 0;
  uint64_t total = 0;
};

struct CallEdge {
  std::string caller;
  std::string callee;
  uint64_t count = 0;
};

class GroundTruth : public ExecutionSink {
 public:
  // `options` tell the code map where recorded paths are on this machine
  // ("[vdso]" -> the dump); `functions` where debug files are.
  explicit GroundTruth(CodeMapOptions options = {},
                       ElfFunctionOptions functions = {});
  ~GroundTruth() override;

  void OnStart(const ExecutionInfo& info) override;
  void OnMapping(const MappingEvent& event) override;
  void OnInstructions(absl::Span<const uint64_t> ips) override;
  void OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                 absl::Span<const uint8_t> lengths) override;
  void OnExit(int status) override;

  // The first problem met (an image that cannot be read); results are
  // incomplete then.
  absl::Status status() const { return status_; }

  uint64_t instructions() const { return instructions_; }
  uint64_t digest() const { return digest_.value(); }
  // Instructions whose bytes could not be decoded (counted, attributed, but
  // their control flow is unknown).
  uint64_t undecodable() const { return undecodable_; }
  // Instructions whose length came from the recorder (not the classifier).
  uint64_t recorder_lengths() const { return recorder_lengths_; }
  std::optional<int> exit_status() const { return exit_status_; }

  std::string FoldedStacks() const;
  std::vector<FunctionCount> Functions() const;
  std::vector<CallEdge> CallEdges() const;
  std::string SummaryJson() const;

 private:
  // A function identity for the jump rules: (symbol image, symbol); symbol
  // null = code of that image no symbol covers; image -1 = outside every
  // image.
  struct FuncKey {
    int32_t image = -1;
    const ElfFunction* symbol = nullptr;
    bool operator==(const FuncKey& o) const {
      return image == o.image && symbol == o.symbol;
    }
  };
  // What is known about one executed address.
  struct Place {
    FuncKey key;
    uint64_t vaddr = 0;  // ELF virtual address (image >= 0)
  };
  struct Frame {
    uint32_t node = 0;
    uint64_t return_address = 0;
    FuncKey key;  // the frame's function
  };
  struct Node {
    uint32_t parent = 0;  // kNoNode for roots
    uint32_t name = 0;    // index into names_
    uint64_t count = 0;
  };

  const Place& PlaceOf(uint64_t addr);
  int32_t SymbolImage(uint32_t mapped_image);
  uint32_t FrameName(const Place& place);
  uint32_t Intern(const std::string& name);
  uint32_t Child(uint32_t parent, uint32_t name);
  void StartStack(uint64_t addr);
  void Transfer(uint64_t ip, const std::optional<x86::Insn>& insn,
                uint8_t length, uint64_t next);
  void Step(uint64_t ip, uint8_t length);
  void Jump(uint64_t ip, uint64_t target);

  std::map<std::string, std::string> aliased_;  // CodeMapOptions::path_aliases
  CodeMap code_;
  absl::Status status_;
  ExecutionInfo info_;
  std::optional<int> exit_status_;
  uint64_t instructions_ = 0;
  InstructionDigest digest_;
  uint64_t undecodable_ = 0;
  uint64_t recorder_lengths_ = 0;

  bool have_prev_ = false;
  uint64_t prev_ip_ = 0;
  uint8_t prev_length_ = 0;  // the recorder's, or 0
  std::optional<x86::Insn> prev_insn_;

  std::vector<Frame> stack_;
  std::vector<Node> nodes_;
  absl::flat_hash_map<uint64_t, uint32_t> children_;  // (parent, name)
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
  absl::flat_hash_map<uint64_t, uint64_t> edges_;  // (caller, callee) names

  ElfFunctionOptions function_options_;
  // Symbol tables: one per (recorded path, file), as the capture's
  // address-space timeline has them (null: unreadable); by CodeMap image
  // index.
  std::vector<std::unique_ptr<ElfFunctionTable>> tables_;
  std::map<std::pair<std::string, std::string>, int32_t> symbol_images_;
  std::vector<int32_t> symbol_image_of_;  // -2: not registered yet
  std::vector<std::string> symbol_image_paths_;
  absl::flat_hash_map<uint64_t, Place> places_;  // by address
  uint64_t places_generation_ = 0;
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_GROUND_TRUTH_H_
