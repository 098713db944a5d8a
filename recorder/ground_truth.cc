// GroundTruth: docs/call-stacks.md applied to a recorded execution; see
// ground_truth.h.
#include "recorder/ground_truth.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json_text.h"
#include "nlohmann/json.hpp"

namespace hwt::recorder {
namespace {

constexpr uint32_t kNoNode = 0xffffffffu;
constexpr uint64_t kNoReturn = ~uint64_t{0};
constexpr int32_t kNotRegistered = -2;

uint64_t PairKey(uint32_t a, uint32_t b) { return (uint64_t{a} << 32) | b; }

}  // namespace

GroundTruth::GroundTruth(CodeMapOptions options, ElfFunctionOptions functions)
    : aliased_(options.path_aliases),
      code_(std::move(options)),
      function_options_(std::move(functions)) {}

GroundTruth::~GroundTruth() = default;

void GroundTruth::OnStart(const ExecutionInfo& info) { info_ = info; }

void GroundTruth::OnMapping(const MappingEvent& event) {
  absl::Status status = code_.Apply(event);
  if (!status.ok() && status_.ok()) status_ = status;
  // A new program: its first instruction starts a new stack.
  if (event.type == capture::RecordType::kExecutable) have_prev_ = false;
}

void GroundTruth::OnExit(int status) { exit_status_ = status; }

// The symbol table of a CodeMap image instance, read on first use.
int32_t GroundTruth::SymbolImage(uint32_t mapped_image) {
  if (mapped_image >= symbol_image_of_.size()) {
    symbol_image_of_.resize(code_.images().size(), kNotRegistered);
  }
  int32_t& id = symbol_image_of_[mapped_image];
  if (id != kNotRegistered) return id;
  const MappedImage& image = code_.images()[mapped_image];
  auto [it, inserted] = symbol_images_.try_emplace(
      {image.recorded_path, image.file},
      static_cast<int32_t>(symbol_image_paths_.size()));
  if (inserted) {
    symbol_image_paths_.push_back(image.recorded_path);
    auto table = ElfFunctionTable::Read(image.file, function_options_);
    if (table.ok()) {
      tables_.push_back(std::make_unique<ElfFunctionTable>(std::move(*table)));
    } else {
      tables_.push_back(nullptr);
      if (status_.ok()) status_ = table.status();
    }
  }
  id = it->second;
  return id;
}

const GroundTruth::Place& GroundTruth::PlaceOf(uint64_t addr) {
  if (places_generation_ != code_.generation()) {
    places_.clear();
    places_generation_ = code_.generation();
  }
  auto [it, inserted] = places_.try_emplace(addr);
  if (inserted) {
    if (auto location = code_.Locate(addr)) {
      Place& place = it->second;
      place.key.image = SymbolImage(location->image);
      const ElfFunctionTable* table = tables_[place.key.image].get();
      place.key.symbol =
          table != nullptr ? table->Find(location->vaddr) : nullptr;
      place.vaddr = location->vaddr;
    }
  }
  return it->second;
}

uint32_t GroundTruth::Intern(const std::string& name) {
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(names_.size());
  names_.push_back(name);
  name_ids_.emplace(name, id);
  return id;
}

// The name of a frame entered at `place`: its function, or for code no
// symbol covers [IMAGE+0xVADDR] of the entry address.
uint32_t GroundTruth::FrameName(const Place& place) {
  if (place.key.image < 0) return Intern("[unknown]");
  if (place.key.symbol != nullptr) return Intern(place.key.symbol->name);
  return Intern(
      UncoveredCodeName(symbol_image_paths_[place.key.image], place.vaddr));
}

uint32_t GroundTruth::Child(uint32_t parent, uint32_t name) {
  uint64_t key = PairKey(parent, name);
  auto it = children_.find(key);
  if (it != children_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(Node{parent, name, 0});
  children_.emplace(key, id);
  return id;
}

void GroundTruth::StartStack(uint64_t addr) {
  stack_.clear();
  const Place& place = PlaceOf(addr);
  stack_.push_back(
      Frame{Child(kNoNode, FrameName(place)), kNoReturn, place.key});
}

// The control transfer from the instruction at `ip` to `next`: the class
// (and a direct branch's target) is the classifier's; `length` is the
// recorder's when nonzero.
void GroundTruth::Transfer(uint64_t ip, const std::optional<x86::Insn>& insn,
                           uint8_t length, uint64_t next) {
  if (!insn) return;  // undecodable: no known control transfer
  uint64_t fall_through = ip + (length != 0 ? length : insn->length);
  switch (insn->cls) {
    case x86::InsnClass::kCall:
    case x86::InsnClass::kCallIndirect: {
      uint64_t target =
          insn->cls == x86::InsnClass::kCall ? insn->target : next;
      // `call next; pop reg` inside one symbol's code reads the instruction
      // pointer: no call (a call to the next instruction that is another
      // function's entry is one).
      if (target == fall_through) {
        const Place here = PlaceOf(ip);
        if (here.key.symbol != nullptr && here.key == PlaceOf(target).key) {
          return;
        }
      }
      const Place& place = PlaceOf(target);
      uint32_t caller = nodes_[stack_.back().node].name;
      uint32_t callee = FrameName(place);
      ++edges_[PairKey(caller, callee)];
      stack_.push_back(
          Frame{Child(stack_.back().node, callee), fall_through, place.key});
      return;
    }
    case x86::InsnClass::kReturn: {
      for (size_t i = stack_.size(); i-- > 0;) {
        if (stack_[i].return_address == next) {
          stack_.resize(i);
          if (stack_.empty()) StartStack(next);
          return;
        }
      }
      stack_.pop_back();
      if (stack_.empty()) StartStack(next);
      return;
    }
    case x86::InsnClass::kJump:
    case x86::InsnClass::kJumpIndirect:
    case x86::InsnClass::kCondJump: {
      uint64_t target = next;
      if (insn->cls == x86::InsnClass::kJump) target = insn->target;
      if (insn->cls == x86::InsnClass::kCondJump) {
        // Taken only when execution went to the target.
        if (next != insn->target || next == fall_through) return;
      }
      Jump(ip, target);
      return;
    }
    default:
      return;  // far transfers and ordinary instructions
  }
}

// A taken jump from `ip` to `target` (docs/call-stacks.md, Stacks).
void GroundTruth::Jump(uint64_t ip, uint64_t target) {
  const Place target_place = PlaceOf(target);
  if (target_place.key == PlaceOf(ip).key) return;  // inside one function
  const FuncKey& key = target_place.key;
  // Into a symbol's body (not its entry) while it has a frame: unwind to
  // the newest one (longjmp).
  if (key.symbol != nullptr && target_place.vaddr != key.symbol->start) {
    for (size_t i = stack_.size(); i-- > 0;) {
      if (stack_[i].key == key) {
        stack_.resize(i + 1);
        return;
      }
    }
  }
  // A tail call: the target's function replaces the top frame.
  Frame& top = stack_.back();
  uint32_t parent = nodes_[top.node].parent;
  top.node = Child(parent, FrameName(target_place));
  top.key = key;
}

void GroundTruth::Step(uint64_t ip, uint8_t length) {
  if (!have_prev_) {
    StartStack(ip);
    have_prev_ = true;
  } else {
    Transfer(prev_ip_, prev_insn_, prev_length_, ip);
  }
  ++nodes_[stack_.back().node].count;
  prev_insn_ = code_.InsnAt(ip);
  if (!prev_insn_) ++undecodable_;
  prev_ip_ = ip;
  prev_length_ = length;
  digest_.Add(ip);
  ++instructions_;
}

void GroundTruth::OnInstructions(absl::Span<const uint64_t> ips) {
  for (uint64_t ip : ips) Step(ip, 0);
}

void GroundTruth::OnInstructionsWithLengths(absl::Span<const uint64_t> ips,
                                            absl::Span<const uint8_t> lengths) {
  for (size_t i = 0; i < ips.size(); ++i) {
    const uint8_t length = i < lengths.size() ? lengths[i] : 0;
    if (length != 0) ++recorder_lengths_;
    Step(ips[i], length);
  }
}

std::string GroundTruth::FoldedStacks() const {
  std::vector<std::string> lines;
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    if (nodes_[id].count == 0) continue;
    std::vector<const std::string*> frames;
    for (uint32_t n = id; n != kNoNode; n = nodes_[n].parent) {
      frames.push_back(&names_[nodes_[n].name]);
    }
    std::string line;
    for (size_t i = frames.size(); i-- > 0;) {
      line += *frames[i];
      if (i > 0) line += ';';
    }
    absl::StrAppend(&line, " ", nodes_[id].count);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

std::vector<FunctionCount> GroundTruth::Functions() const {
  // Subtree sums (children are created after their parents).
  std::vector<uint64_t> subtree(nodes_.size());
  for (size_t id = nodes_.size(); id-- > 0;) {
    subtree[id] += nodes_[id].count;
    if (nodes_[id].parent != kNoNode) {
      subtree[nodes_[id].parent] += subtree[id];
    }
  }
  std::vector<uint64_t> self(names_.size());
  std::vector<uint64_t> total(names_.size());
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    uint32_t name = nodes_[id].name;
    self[name] += nodes_[id].count;
    // Total: the subtree of the topmost frame of this function on the path
    // (recursion counts once).
    bool topmost = true;
    for (uint32_t n = nodes_[id].parent; n != kNoNode; n = nodes_[n].parent) {
      if (nodes_[n].name == name) {
        topmost = false;
        break;
      }
    }
    if (topmost) total[name] += subtree[id];
  }
  std::vector<FunctionCount> result;
  for (uint32_t name = 0; name < names_.size(); ++name) {
    if (total[name] == 0) continue;
    result.push_back(FunctionCount{names_[name], self[name], total[name]});
  }
  std::sort(result.begin(), result.end(),
            [](const FunctionCount& a, const FunctionCount& b) {
              return a.name < b.name;
            });
  return result;
}

std::vector<CallEdge> GroundTruth::CallEdges() const {
  std::vector<CallEdge> result;
  for (const auto& [key, count] : edges_) {
    result.push_back(
        CallEdge{names_[key >> 32], names_[key & 0xffffffffu], count});
  }
  std::sort(
      result.begin(), result.end(), [](const CallEdge& a, const CallEdge& b) {
        return std::tie(a.caller, a.callee) < std::tie(b.caller, b.callee);
      });
  return result;
}

std::string GroundTruth::SummaryJson() const {
  nlohmann::ordered_json j;
  j["format"] = "hwt-ground-truth";
  j["version"] = 1;
  j["recorder"] = info_.recorder;
  j["command"] = info_.command;
  j["instructions"] = instructions_;
  j["digest"] = absl::StrFormat("fnv1a64:%016x", digest_.value());
  if (exit_status_) {
    j["exit_status"] = *exit_status_;
  } else {
    j["exit_status"] = nullptr;
  }
  j["undecodable_instructions"] = undecodable_;
  j["recorder_lengths"] = recorder_lengths_;
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const FunctionCount& f : Functions()) {
    functions.push_back(
        {{"name", f.name}, {"self", f.self}, {"total", f.total}});
  }
  j["functions"] = std::move(functions);
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const CallEdge& e : CallEdges()) {
    edges.push_back(
        {{"caller", e.caller}, {"callee", e.callee}, {"count", e.count}});
  }
  j["call_edges"] = std::move(edges);
  nlohmann::ordered_json images = nlohmann::ordered_json::array();
  for (const MappedImage& image : code_.images()) {
    // An aliased file (the vDSO dump) is the recorder's temporary copy.
    const bool aliased = aliased_.count(image.recorded_path) != 0;
    images.push_back({{"path", image.recorded_path},
                      {"file", aliased ? image.recorded_path : image.file},
                      {"bias", absl::StrFormat("0x%x", image.bias)}});
  }
  j["images"] = std::move(images);
  return JsonText(j, JsonLayout::kIndented);
}

}  // namespace hwt::recorder
