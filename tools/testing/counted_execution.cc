// Implementation of the counted.S execution model; see counted_execution.h.
#include "tools/testing/counted_execution.h"

#include <algorithm>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "nlohmann/json.hpp"

namespace hwt::tools::testing {
namespace {

// counted.S's execution, from its comments: runs of instructions of one
// function, by position in it (0 = its first instruction, as objdump lists
// them), in the order they execute. Each line says which source lines run.
struct Run {
  const char* function;
  int first, last;
};
constexpr Run kExecution[] = {
    {"_start", 0, 1},  // mov $3,%r12d; call leaf          (iteration 1)
    {"leaf", 0, 2},    // mov, add, ret
    {"_start", 2, 3},  // dec %r12d; jnz .Lloop (taken)
    {"_start", 1, 1},  // call leaf                         (iteration 2)
    {"leaf", 0, 2},
    {"_start", 2, 3},  // dec; jnz (taken)
    {"_start", 1, 1},  // call leaf                         (iteration 3)
    {"leaf", 0, 2},
    {"_start", 2, 5},  // dec; jnz (not taken); lea leaf2; call *%rax
    {"leaf2", 0, 1},   // nop; ret
    {"_start", 6, 6},  // call tail
    {"tail", 0, 1},    // xor; jmp leaf
    {"leaf", 0, 2},    // ... whose ret returns to _start
    {"_start", 7, 7},  // call outer
    {"outer", 0, 1},   // push %rbx; call leaf
    {"leaf", 0, 2},
    {"outer", 2, 2},  // call leaf
    {"leaf", 0, 2},
    {"outer", 3, 4},     // pop %rbx; ret
    {"_start", 8, 9},    // mov $2,%edi; call rec
    {"rec", 0, 3},       // rec(2): test; jz (not taken); dec; call rec
    {"rec", 0, 3},       // rec(1): the same
    {"rec", 0, 1},       // rec(0): test; jz .Lrec_done (taken)
    {"rec", 4, 4},       // ret (rec(0))
    {"rec", 4, 4},       // ret (rec(1))
    {"rec", 4, 4},       // ret (rec(2))
    {"_start", 10, 10},  // call special
    {"special", 0, 2},   // mov $4,%ecx; nop; loop .Lspin (taken)
    {"special", 1, 2},   // nop; loop (taken)
    {"special", 1, 2},   // nop; loop (taken)
    {"special", 1, 2},   // nop; loop (not taken: rcx is 0)
    {"special", 3, 3},   // jrcxz .Lzero (taken), skipping the nop
    {"special", 5, 9},   // mov $1,%ecx; jrcxz (not taken); pause; nop; ret
    {"_start", 11, 17},  // lea; lea; mov $5; rep movsb; mov $60; xor; syscall
};

std::string Hex(uint64_t v) { return absl::StrFormat("0x%x", v); }

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// objdump -d -w lines: "0000000000401000 <_start>:" starts a function,
// "  401000:\t41 bc 03 00 00 00 \tmov    $0x3,%r12d" is an instruction.
absl::StatusOr<std::map<uint64_t, Insn>> Disassemble(const std::string& image) {
  const hwt::testing::CommandResult r =
      hwt::testing::RunCommand({"objdump", "-d", "-w", image});
  if (r.exit_code != 0) {
    return absl::InternalError("objdump -d " + image + ": " + r.err);
  }
  std::map<uint64_t, Insn> insns;
  std::string function;
  uint64_t function_start = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t open = line.find(" <");
    if (!line.empty() && line.back() == ':' && open != std::string::npos) {
      function = line.substr(open + 2, line.size() - open - 4);
      if (!absl::SimpleHexAtoi(line.substr(0, open), &function_start)) {
        return absl::InternalError("objdump: bad line: " + line);
      }
      continue;
    }
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() < 3 || function.empty()) continue;
    Insn insn;
    if (!absl::SimpleHexAtoi(
            absl::StripAsciiWhitespace(absl::StripSuffix(fields[0], ":")),
            &insn.address)) {
      continue;
    }
    insn.length = static_cast<int>(
        std::vector<std::string>(
            absl::StrSplit(fields[1], ' ', absl::SkipWhitespace()))
            .size());
    std::string text(absl::StripAsciiWhitespace(fields[2]));
    const size_t space = text.find(' ');
    insn.mnemonic = text.substr(0, space);
    if (space != std::string::npos) {
      insn.operands =
          std::string(absl::StripAsciiWhitespace(text.substr(space)));
    }
    // Suffixed forms of older binutils ("callq", "retq").
    if (insn.mnemonic == "callq" || insn.mnemonic == "retq" ||
        insn.mnemonic == "jmpq") {
      insn.mnemonic.pop_back();
    }
    insn.function = function;
    insn.function_offset = insn.address - function_start;
    insn.indirect = !insn.operands.empty() && insn.operands[0] == '*';
    if (insn.IsBranch() && !insn.indirect && !insn.operands.empty()) {
      // "401050 <leaf>": the target address first.
      absl::SimpleHexAtoi(insn.operands.substr(0, insn.operands.find(' ')),
                          &insn.target);
    }
    insns[insn.address] = insn;
  }
  return insns;
}

}  // namespace

std::string Insn::Name() const {
  return function_offset == 0
             ? function
             : absl::StrCat(function, "+", Hex(function_offset));
}

bool Insn::IsCall() const { return mnemonic == "call"; }
bool Insn::IsReturn() const { return mnemonic == "ret"; }
bool Insn::IsConditional() const {
  return (mnemonic[0] == 'j' && mnemonic != "jmp") ||
         StartsWith(mnemonic, "loop");
}
bool Insn::IsBranch() const {
  return IsCall() || IsReturn() || IsConditional() || mnemonic == "jmp" ||
         mnemonic == "syscall";
}

absl::StatusOr<CountedExecution> CountedExecution::Create(
    const std::string& image) {
  CountedExecution e;
  auto insns = Disassemble(image);
  if (!insns.ok()) return insns.status();
  e.insns_ = std::move(*insns);
  std::map<std::string, std::vector<const Insn*>> by_function;
  for (const auto& [address, insn] : e.insns_) {
    by_function[insn.function].push_back(&insn);
  }
  for (const Run& run : kExecution) {
    const std::vector<const Insn*>& code = by_function[run.function];
    if (run.last >= static_cast<int>(code.size())) {
      return absl::InternalError(absl::StrCat(
          "objdump lists ", code.size(), " instructions in ", run.function));
    }
    for (int i = run.first; i <= run.last; ++i) e.trace_.push_back(code[i]);
  }

  // Blocks: split after every branch; the kind from the instruction and
  // from where execution went next.
  for (size_t i = 0; i < e.trace_.size();) {
    Block b;
    const size_t start = i;
    b.first = e.trace_[i];
    while (i < e.trace_.size() && !e.trace_[i]->IsBranch()) ++i;
    if (i == e.trace_.size())
      return absl::InternalError("trace ends mid-block");
    b.last = e.trace_[i];
    b.instructions = static_cast<int>(i - start + 1);
    ++i;
    b.next = i < e.trace_.size() ? e.trace_[i]->address : 0;
    const Insn& last = *b.last;
    if (last.IsCall()) {
      b.kind = last.indirect ? "call-indirect" : "call";
    } else if (last.IsReturn()) {
      b.kind = "return";
    } else if (last.mnemonic == "jmp") {
      b.kind = last.indirect ? "jump-indirect" : "jump";
    } else if (last.mnemonic == "syscall") {
      b.kind = "far-call";
    } else {
      b.kind = b.next == last.next() ? "cond-not-taken" : "cond-taken";
    }
    e.blocks_.push_back(b);
  }

  // The call tree and the call listing.
  std::vector<std::string> stack = {e.trace_.front()->function};
  e.calls_.push_back({0, stack.back()});
  for (size_t i = 0; i < e.trace_.size(); ++i) {
    const Insn& insn = *e.trace_[i];
    std::string path = absl::StrJoin(stack, ";");
    ++e.tree_[path].self;
    for (size_t depth = 1; depth <= stack.size(); ++depth) {
      std::vector<std::string> prefix(stack.begin(), stack.begin() + depth);
      ++e.tree_[absl::StrJoin(prefix, ";")].total;
    }
    if (i + 1 == e.trace_.size()) break;
    const Insn& next = *e.trace_[i + 1];
    if (insn.IsCall()) {
      e.calls_.push_back({static_cast<int>(stack.size()), next.function});
      stack.push_back(next.function);
      ++e.tree_[absl::StrJoin(stack, ";")].calls;
    } else if (insn.IsReturn()) {
      stack.pop_back();
    } else if (insn.mnemonic == "jmp" && next.function != insn.function) {
      stack.back() = next.function;
    }
  }
  return e;
}

const Insn* CountedExecution::At(uint64_t address) const {
  auto it = insns_.find(address);
  return it == insns_.end() ? nullptr : &it->second;
}

std::map<uint64_t, uint64_t> CountedExecution::InstructionCounts() const {
  std::map<uint64_t, uint64_t> counts;
  for (const Insn* insn : trace_) ++counts[insn->address];
  return counts;
}

std::map<uint64_t, uint64_t> CountedExecution::TakenCounts() const {
  std::map<uint64_t, uint64_t> taken;
  for (const Block& b : blocks_) {
    if (b.last->IsConditional()) {
      taken[b.last->address] += b.kind == "cond-taken" ? 1 : 0;
    }
  }
  return taken;
}

std::map<std::string, uint64_t> CountedExecution::SelfByFunction() const {
  std::map<std::string, uint64_t> self;
  for (const Insn* insn : trace_) ++self[insn->function];
  return self;
}

std::map<std::string, uint64_t> CountedExecution::TotalByFunction() const {
  std::map<std::string, uint64_t> total;
  for (const auto& [path, frame] : tree_) {
    const std::vector<std::string> names = absl::StrSplit(path, ';');
    if (std::count(names.begin(), names.end(), names.back()) == 1) {
      total[names.back()] += frame.total;
    }
  }
  return total;
}

std::map<std::string, uint64_t> CountedExecution::CallsByFunction() const {
  std::map<std::string, uint64_t> calls;
  for (const Block& b : blocks_) {
    if (b.kind == "call" || b.kind == "call-indirect") {
      ++calls[At(b.next)->function];
    }
  }
  return calls;
}

std::string CountedExecution::TntBits() const {
  std::string bits;
  for (const Block& b : blocks_) {
    if (b.last->IsReturn()) bits += '!';
    if (b.last->IsConditional()) bits += b.kind == "cond-taken" ? '!' : '.';
  }
  return bits;
}

std::vector<uint64_t> CountedExecution::IndirectTargets() const {
  std::vector<uint64_t> targets;
  for (const Block& b : blocks_) {
    if (b.kind == "call-indirect" || b.kind == "jump-indirect") {
      targets.push_back(b.next);
    }
  }
  return targets;
}

std::string CountedCapture() {
  return hwt::testing::SourceDir() + "/testdata/decode/counted.hwt";
}

std::string CountedProgramImage() {
  auto manifest = ReadFileToString(CountedCapture() + "/manifest.json");
  if (!manifest.ok()) return "";
  const nlohmann::json json = nlohmann::json::parse(*manifest, nullptr, false);
  if (json.is_discarded() || !json.contains("images")) return "";
  for (const auto& entry : json["images"]) {
    if (entry["original_path"].get<std::string>().find("counted_static") !=
        std::string::npos) {
      return CountedCapture() + "/" + entry["file"].get<std::string>();
    }
  }
  return "";
}

}  // namespace hwt::tools::testing
