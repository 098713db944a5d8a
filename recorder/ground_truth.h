// The ground truth of a recorded execution, computed exactly as
// docs/call-stacks.md defines it: call stacks rebuilt from every executed
// instruction, instructions attributed to stacks (folded stacks), per
// function self/total counts and call edges, plus the instruction count and
// a digest of the instruction sequence. The analysis layer implements the
// same document independently from decoded trace; tests compare the two.
// Deliberately independent of analysis/ and symbolizer/: symbols come from
// the images through function_table.h.
//
// Output files (Write): summary.json
//   {"format": "hwt-ground-truth", "version": 1, "recorder", "command",
//    "instructions", "digest": "fnv1a64:<16 hex digits>", "exit_status",
//    "undecodable_instructions",
//    "functions": [{"name", "self", "total"}]            (sorted by name),
//    "call_edges": [{"caller", "callee", "count"}]       (sorted),
//    "images": [{"path", "file", "bias"}]}               (mapping order)
// and folded.txt (one "frame;frame;... count" line per stack, sorted).
// The digest is FNV-1a (64 bit) over the instruction addresses as 8-byte
// little-endian words, in execution order.
#ifndef HWT_RECORDER_GROUND_TRUTH_H_
#define HWT_RECORDER_GROUND_TRUTH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "recorder/code_map.h"
#include "recorder/execution.h"
#include "recorder/function_table.h"

namespace hwt::recorder {

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
  // ("[vdso]" -> the dump).
  explicit GroundTruth(CodeMapOptions options = {});
  ~GroundTruth() override;

  void OnStart(const ExecutionInfo& info) override;
  void OnMapping(const MappingEvent& event) override;
  void OnInstructions(absl::Span<const uint64_t> ips) override;
  void OnExit(int status) override;

  // The first problem met (an image that cannot be read); results are
  // incomplete then.
  absl::Status status() const { return status_; }

  uint64_t instructions() const { return instructions_; }
  uint64_t digest() const { return digest_; }
  // Instructions whose bytes could not be decoded (counted, attributed, but
  // their control flow is unknown).
  uint64_t undecodable() const { return undecodable_; }
  std::optional<int> exit_status() const { return exit_status_; }

  std::string FoldedStacks() const;
  std::vector<FunctionCount> Functions() const;
  std::vector<CallEdge> CallEdges() const;
  std::string SummaryJson() const;

  // Writes DIR/summary.json and DIR/folded.txt (creating DIR), atomically.
  absl::Status Write(const std::string& dir) const;

 private:
  // A function identity for the jump rule: (image instance, symbol index);
  // symbol kNone = code of that image no symbol covers; image -1 = outside
  // every image.
  struct FuncKey {
    int32_t image = -1;
    int32_t symbol = FunctionTable::kNone;
    bool operator==(const FuncKey& o) const {
      return image == o.image && symbol == o.symbol;
    }
  };
  struct Frame {
    uint32_t node = 0;
    uint64_t return_address = 0;
  };
  struct Node {
    uint32_t parent = 0;  // kNoNode for roots
    uint32_t name = 0;    // index into names_
    uint64_t count = 0;
  };

  FuncKey KeyOf(uint64_t addr);
  uint32_t FrameName(uint64_t addr, const FuncKey& key);
  uint32_t Intern(const std::string& name);
  uint32_t Child(uint32_t parent, uint32_t name);
  const FunctionTable* TableFor(uint32_t image);
  void StartStack(uint64_t addr);
  void Transfer(uint64_t ip, const std::optional<x86::Insn>& insn,
                uint64_t next);

  CodeMap code_;
  absl::Status status_;
  ExecutionInfo info_;
  std::optional<int> exit_status_;
  uint64_t instructions_ = 0;
  uint64_t digest_ = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  uint64_t undecodable_ = 0;

  bool have_prev_ = false;
  uint64_t prev_ip_ = 0;
  std::optional<x86::Insn> prev_insn_;

  std::vector<Frame> stack_;
  std::vector<Node> nodes_;
  absl::flat_hash_map<uint64_t, uint32_t> children_;  // (parent, name)
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
  absl::flat_hash_map<uint64_t, uint64_t> edges_;  // (caller, callee) names

  std::map<std::string, std::unique_ptr<FunctionTable>> tables_;  // by file
  absl::flat_hash_map<uint64_t, FuncKey> keys_;                   // by address
  uint64_t keys_generation_ = 0;
};

}  // namespace hwt::recorder

#endif  // HWT_RECORDER_GROUND_TRUTH_H_
