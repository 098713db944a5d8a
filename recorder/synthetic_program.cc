// Generator and walker for SyntheticProgram; see synthetic_program.h.
#include "recorder/synthetic_program.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/types/span.h"
#include "base/file_util.h"
#include "decoders/x86/x86_insn.h"

namespace hwt::recorder {
namespace {

// xoshiro256** seeded through splitmix64: fast, and the same sequence on every
// platform (std:: distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : state_) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      s = z ^ (z >> 31);
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, n) (n > 0); the tiny modulo bias does not matter here.
  uint64_t Below(uint64_t n) { return Next() % n; }
  // True with probability p / 65536.
  bool Chance16(uint32_t p) { return (Next() >> 48) < p; }
  bool Percent(uint32_t percent) { return Below(100) < percent; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

// Non-branching instructions; 0xAA bytes are replaced by random immediates.
const std::vector<std::vector<uint8_t>>& OtherTemplates() {
  static const auto* templates = new std::vector<std::vector<uint8_t>>{
      {0x90},                          // nop
      {0x48, 0x89, 0xc3},              // mov rbx, rax
      {0x48, 0x83, 0xc0, 0xaa},        // add rax, imm8
      {0xb8, 0xaa, 0xaa, 0xaa, 0xaa},  // mov eax, imm32
      {0x48, 0xb8, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa},  // movabs
      {0x0f, 0x1f, 0x44, 0x00, 0x00},  // nopl 0(rax,rax)
      {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},  // nopw
      {0x48, 0x31, 0xd2},                                      // xor rdx, rdx
      {0x48, 0xff, 0xc1},                                      // inc rcx
      {0xf3, 0xa4},                                            // rep movsb
      {0xf3, 0x48, 0xab},                                      // rep stosq
      {0x48, 0x8b, 0x05, 0xaa, 0xaa, 0xaa, 0xaa},  // mov rax, [rip+d]
      {0x0f, 0xaf, 0xc3},                          // imul eax, ebx
      {0x50},                                      // push rax
      {0x58},                                      // pop rax
      {0xc5, 0xf8, 0x77},                          // vzeroupper
      {0xc5, 0xfc, 0x28, 0xc1},                    // vmovaps ymm0, ymm1
      {0x48, 0x8d, 0x44, 0x24, 0xaa},              // lea rax, [rsp+d8]
      {0x89, 0x7d, 0xaa},                          // mov [rbp+d8], edi
      {0x62, 0xf1, 0x7c, 0x48, 0x10, 0xc1},        // vmovups zmm0, zmm1
      {0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00,
       0x00},  // mov rax, fs:0x28
      // No LOCK-prefixed instructions: decoders/x86 (LLVM MC) decodes the
      // prefix as a 1-byte instruction of its own.
      {0x66, 0x0f, 0x6f, 0xc1},  // movdqa xmm0, xmm1
      {0x48, 0x63, 0xc7},        // movsxd rax, edi
      {0xf3, 0x0f, 0x1e, 0xfa},  // endbr64
  };
  return *templates;
}

}  // namespace

class SyntheticAssembler {
 public:
  explicit SyntheticAssembler(const SyntheticProgramOptions& options)
      : opt_(options), rng_(options.seed) {}

  SyntheticProgram Build() {
    const int total = 1 + std::max(0, opt_.functions);
    const int recursive = std::clamp(opt_.recursive_functions, 0, total - 1);
    program_.function_count_ = total;
    program_.max_recursion_depth_ = std::max(1, opt_.max_recursion_depth);
    program_.max_loop_trips_ = std::max(1, opt_.max_loop_trips);
    program_.recursive_.assign(static_cast<size_t>(total), false);
    for (int f = total - recursive; f < total; ++f) {
      program_.recursive_[static_cast<size_t>(f)] = true;
    }
    for (int f = 0; f < total; ++f) function_labels_.push_back(NewLabel());
    for (int f = 0; f < total; ++f) {
      function_ = f;
      if (f == 0) {
        GenerateMain();
      } else if (program_.recursive_[static_cast<size_t>(f)]) {
        GenerateRecursive(f);
      } else {
        GenerateFunction(f);
      }
      // Padding between functions, as compilers align them.
      while (code_.size() % 16 != 0) code_.push_back(static_cast<char>(0xcc));
    }
    return Finish();
  }

 private:
  struct Fixup {
    size_t disp_at;
    int size;
    int label;
    size_t insn_end;
    size_t insn;
  };

  int NewLabel() {
    labels_.push_back(-1);
    return static_cast<int>(labels_.size() - 1);
  }
  void Bind(int label) {
    labels_[static_cast<size_t>(label)] = static_cast<int64_t>(code_.size());
  }

  size_t Add(const std::vector<uint8_t>& bytes, SyntheticSite site) {
    SyntheticProgram::Insn insn;
    insn.ip = opt_.base + code_.size();
    insn.length = static_cast<uint8_t>(bytes.size());
    insn.site = site;
    insn.function = function_;
    code_.append(bytes.begin(), bytes.end());
    insns_.push_back(insn);
    return insns_.size() - 1;
  }

  // An instruction ending in a rel8/rel32 displacement to `label`.
  size_t AddRel(std::vector<uint8_t> opcode, int rel_size, int label,
                SyntheticSite site) {
    const size_t disp_at = code_.size() + opcode.size();
    opcode.resize(opcode.size() + static_cast<size_t>(rel_size), 0);
    const size_t index = Add(opcode, site);
    fixups_.push_back({disp_at, rel_size, label, code_.size(), index});
    return index;
  }

  void AddOther() {
    const auto& templates = OtherTemplates();
    std::vector<uint8_t> bytes = templates[rng_.Below(templates.size())];
    for (uint8_t& b : bytes) {
      if (b == 0xaa) b = static_cast<uint8_t>(rng_.Next());
    }
    Add(bytes, SyntheticSite::kNone);
  }

  void AddStraight(int max) {
    const int n = 1 + static_cast<int>(rng_.Below(static_cast<uint64_t>(max)));
    for (int i = 0; i < n; ++i) AddOther();
  }

  uint8_t Cc() { return static_cast<uint8_t>(rng_.Below(16)); }
  uint16_t Probability() {
    return static_cast<uint16_t>(6000 + rng_.Below(54000));
  }

  void GenerateMain() {
    Bind(function_labels_[0]);
    program_.entry_ = opt_.base + code_.size();
    Add({0xf3, 0x0f, 0x1e, 0xfa}, SyntheticSite::kNone);  // endbr64
    const int top = NewLabel();
    Bind(top);
    GenerateBlock(0, /*epilogue=*/-1);
    // Every iteration may call into the rest of the program, recursive
    // functions included, whatever the random block above contains.
    const int total = program_.function_count_;
    for (int f = 1; f < total; ++f) {
      if (program_.recursive_[static_cast<size_t>(f)] || f == 1) {
        const int skip = NewLabel();
        AddRel({static_cast<uint8_t>(0x70 | Cc())}, 1, skip,
               SyntheticSite::kCallGuard);
        AddRel({0xe8}, 4, function_labels_[static_cast<size_t>(f)],
               SyntheticSite::kCall);
        Bind(skip);
      }
    }
    if (total > 1) GenerateCall(/*indirect=*/true);
    // Main's back edge: rel32 unless it fits rel8.
    const int64_t back = labels_[static_cast<size_t>(top)] -
                         static_cast<int64_t>(code_.size() + 2);
    if (back >= -128) {
      AddRel({static_cast<uint8_t>(0x70 | Cc())}, 1, top,
             SyntheticSite::kMainLoop);
    } else {
      AddRel({0x0f, static_cast<uint8_t>(0x80 | Cc())}, 4, top,
             SyntheticSite::kMainLoop);
    }
    Add({0xb8, 0x3c, 0x00, 0x00, 0x00}, SyntheticSite::kNone);  // mov eax, 60
    Add({0x31, 0xff}, SyntheticSite::kNone);                    // xor edi, edi
    Add({0x0f, 0x05}, SyntheticSite::kExit);                    // syscall
    Add({0x0f, 0x0b}, SyntheticSite::kNone);                    // ud2
  }

  void GenerateFunction(int f) {
    Bind(function_labels_[static_cast<size_t>(f)]);
    Add({0x55}, SyntheticSite::kNone);              // push rbp
    Add({0x48, 0x89, 0xe5}, SyntheticSite::kNone);  // mov rbp, rsp
    const int epilogue = NewLabel();
    GenerateBlock(0, epilogue);
    Bind(epilogue);
    Add({0x5d}, SyntheticSite::kNone);  // pop rbp
    const int last = program_.function_count_ - 1;
    if (f < last && rng_.Percent(15)) {
      // Tail call: the callee returns to our caller.
      const int callee =
          f + 1 + static_cast<int>(rng_.Below(static_cast<uint64_t>(last - f)));
      AddRel({0xe9}, 4, function_labels_[static_cast<size_t>(callee)],
             SyntheticSite::kJump);
    } else if (rng_.Percent(20)) {
      Add({0xc2, 0x08, 0x00}, SyntheticSite::kReturn);  // ret 8
    } else {
      Add({0xc3}, SyntheticSite::kReturn);
    }
  }

  // Straight code around a self call guarded by the recursion depth.
  void GenerateRecursive(int f) {
    Bind(function_labels_[static_cast<size_t>(f)]);
    Add({0x55}, SyntheticSite::kNone);
    AddStraight(3);
    const int skip = NewLabel();
    AddRel({static_cast<uint8_t>(0x70 | Cc())}, 1, skip,
           SyntheticSite::kRecurseSkip);
    AddRel({0xe8}, 4, function_labels_[static_cast<size_t>(f)],
           SyntheticSite::kCall);
    Bind(skip);
    AddStraight(3);
    if (rng_.Percent(50)) {
      const int over = NewLabel();
      const size_t i = AddRel({0x0f, static_cast<uint8_t>(0x80 | Cc())}, 4,
                              over, SyntheticSite::kCond);
      insns_[i].probability = Probability();
      AddStraight(2);
      Bind(over);
    }
    Add({0x5d}, SyntheticSite::kNone);
    Add({0xc3}, SyntheticSite::kReturn);
  }

  void GenerateBlock(int depth, int epilogue) {
    const int n = 1 + static_cast<int>(rng_.Below(static_cast<uint64_t>(
                          std::max(1, opt_.max_statements))));
    for (int i = 0; i < n; ++i) GenerateStatement(depth, epilogue);
  }

  void GenerateStatement(int depth, int epilogue) {
    const bool nest = depth < opt_.max_nesting;
    const bool can_call = function_ < program_.function_count_ - 1;
    switch (rng_.Below(12)) {
      case 0:
      case 1:
        AddStraight(4);
        return;
      case 2:
        if (nest) return GenerateIf(depth, epilogue);
        break;
      case 3:
        return GenerateShortIf();
      case 4:
        if (nest) return GenerateLoop(depth, epilogue);
        break;
      case 5:
        if (nest) return GenerateSwitch(depth, epilogue);
        break;
      case 6:
      case 7:
        if (can_call) return GenerateCall(/*indirect=*/false);
        break;
      case 8:
        if (can_call) return GenerateCall(/*indirect=*/true);
        break;
      case 9:
        if (opt_.syscalls && rng_.Percent(50)) return GenerateSyscall();
        break;
      case 10:
        if (rng_.Percent(50)) return GenerateCallNext();
        return GenerateShortJump();
      case 11:
        if (epilogue >= 0) {
          const size_t i = AddRel({0x0f, static_cast<uint8_t>(0x80 | Cc())}, 4,
                                  epilogue, SyntheticSite::kCond);
          insns_[i].probability =
              static_cast<uint16_t>(2000 + rng_.Below(8000));
          return;
        }
        break;
    }
    AddStraight(3);
  }

  void GenerateIf(int depth, int epilogue) {
    const int other = NewLabel();
    const size_t i = AddRel({0x0f, static_cast<uint8_t>(0x80 | Cc())}, 4, other,
                            SyntheticSite::kCond);
    insns_[i].probability = Probability();
    GenerateBlock(depth + 1, epilogue);
    if (rng_.Percent(50)) {
      const int end = NewLabel();
      AddRel({0xe9}, 4, end, SyntheticSite::kJump);
      Bind(other);
      GenerateBlock(depth + 1, epilogue);
      Bind(end);
    } else {
      Bind(other);
    }
  }

  // jcc rel8 or jrcxz over a little straight code.
  void GenerateShortIf() {
    const int end = NewLabel();
    const std::vector<uint8_t> opcode =
        rng_.Percent(25)
            ? std::vector<uint8_t>{0xe3}
            : std::vector<uint8_t>{static_cast<uint8_t>(0x70 | Cc())};
    const size_t i = AddRel(opcode, 1, end, SyntheticSite::kCond);
    insns_[i].probability = Probability();
    AddStraight(4);
    Bind(end);
  }

  void GenerateLoop(int depth, int epilogue) {
    Add({0xb9, 0x10, 0x00, 0x00, 0x00}, SyntheticSite::kNone);  // mov ecx, 16
    const int top = NewLabel();
    Bind(top);
    GenerateBlock(depth + 1, epilogue);
    const int64_t back8 = labels_[static_cast<size_t>(top)] -
                          static_cast<int64_t>(code_.size() + 2);
    if (back8 >= -128 && rng_.Percent(50)) {
      AddRel({0xe2}, 1, top, SyntheticSite::kLoopBack);  // loop
    } else if (back8 >= -128) {
      AddRel({static_cast<uint8_t>(0x70 | Cc())}, 1, top,
             SyntheticSite::kLoopBack);
    } else {
      AddRel({0x0f, static_cast<uint8_t>(0x80 | Cc())}, 4, top,
             SyntheticSite::kLoopBack);
    }
  }

  void GenerateSwitch(int depth, int epilogue) {
    const int cases = 2 + static_cast<int>(rng_.Below(4));
    std::vector<int> case_labels;
    for (int c = 0; c < cases; ++c) case_labels.push_back(NewLabel());
    const int end = NewLabel();
    size_t i;
    switch (rng_.Below(3)) {
      case 0:
        i = Add({0xff, 0xe0}, SyntheticSite::kSwitch);  // jmp rax
        break;
      case 1:
        i = Add({0xff, 0x24, 0xc5, static_cast<uint8_t>(rng_.Next()), 0x10,
                 0x00, 0x00},
                SyntheticSite::kSwitch);  // jmp [rax*8+disp32]
        break;
      default:
        i = Add({0xff, 0x25, 0x00, 0x01, 0x00, 0x00},
                SyntheticSite::kSwitch);  // jmp [rip+d]
        break;
    }
    insns_[i].targets = static_cast<uint32_t>(target_labels_.size());
    target_labels_.push_back(case_labels);
    for (int c = 0; c < cases; ++c) {
      Bind(case_labels[static_cast<size_t>(c)]);
      GenerateBlock(depth + 1, epilogue);
      if (c + 1 < cases) AddRel({0xe9}, 4, end, SyntheticSite::kJump);
    }
    Bind(end);
  }

  void GenerateCall(bool indirect) {
    const int last = program_.function_count_ - 1;
    const int skip = NewLabel();
    AddRel({static_cast<uint8_t>(0x70 | Cc())}, 1, skip,
           SyntheticSite::kCallGuard);
    auto random_callee = [&] {
      return function_ + 1 +
             static_cast<int>(
                 rng_.Below(static_cast<uint64_t>(last - function_)));
    };
    if (!indirect) {
      AddRel({0xe8}, 4, function_labels_[static_cast<size_t>(random_callee())],
             SyntheticSite::kCall);
    } else {
      size_t i;
      switch (rng_.Below(3)) {
        case 0:
          i = Add({0xff, 0xd0}, SyntheticSite::kCallIndirect);  // call rax
          break;
        case 1:
          i = Add({0x41, 0xff, 0xd3},
                  SyntheticSite::kCallIndirect);  // call r11
          break;
        default:
          i = Add({0xff, 0x15, 0x00, 0x02, 0x00, 0x00},
                  SyntheticSite::kCallIndirect);  // call [rip+d]
          break;
      }
      std::vector<int> callees;
      const int n = 1 + static_cast<int>(rng_.Below(3));
      for (int c = 0; c < n; ++c) {
        callees.push_back(
            function_labels_[static_cast<size_t>(random_callee())]);
      }
      insns_[i].targets = static_cast<uint32_t>(target_labels_.size());
      target_labels_.push_back(callees);
    }
    Bind(skip);
  }

  void GenerateSyscall() {
    Add({0xb8, 0x27, 0x00, 0x00, 0x00}, SyntheticSite::kNone);  // mov eax, 39
    if (rng_.Percent(80)) {
      Add({0x0f, 0x05}, SyntheticSite::kSyscall);  // syscall
    } else {
      Add({0xcd, 0x80}, SyntheticSite::kSyscall);  // int 0x80
    }
  }

  void GenerateCallNext() {
    Add({0xe8, 0x00, 0x00, 0x00, 0x00}, SyntheticSite::kCallNext);
    Add({0x58}, SyntheticSite::kNone);  // pop rax
  }

  void GenerateShortJump() {
    const int over = NewLabel();
    AddRel({0xeb}, 1, over, SyntheticSite::kJump);
    Add({0x0f, 0x0b}, SyntheticSite::kNone);  // ud2, never executed
    Bind(over);
  }

  SyntheticProgram Finish() {
    for (const Fixup& f : fixups_) {
      const int64_t target = labels_[static_cast<size_t>(f.label)];
      const int64_t disp = target - static_cast<int64_t>(f.insn_end);
      if (f.size == 1) {
        // rel8 forms are only used where the distance is known to fit.
        code_[f.disp_at] = static_cast<char>(static_cast<int8_t>(disp));
      } else {
        const uint32_t d = static_cast<uint32_t>(static_cast<int32_t>(disp));
        for (int b = 0; b < 4; ++b) {
          code_[f.disp_at + static_cast<size_t>(b)] =
              static_cast<char>(d >> (8 * b));
        }
      }
      insns_[f.insn].target = opt_.base + static_cast<uint64_t>(target);
    }
    // Calls to the next instruction have their fall-through as target.
    for (auto& insn : insns_) {
      if (insn.site == SyntheticSite::kCallNext)
        insn.target = insn.ip + insn.length;
    }
    for (const auto& list : target_labels_) {
      std::vector<uint64_t> targets;
      for (int label : list) {
        targets.push_back(opt_.base + static_cast<uint64_t>(
                                          labels_[static_cast<size_t>(label)]));
      }
      program_.target_lists_.push_back(std::move(targets));
    }
    program_.base_ = opt_.base;
    program_.insn_index_.assign(code_.size(), -1);
    for (size_t i = 0; i < insns_.size(); ++i) {
      program_.insn_index_[insns_[i].ip - opt_.base] = static_cast<int32_t>(i);
    }
    program_.code_ = std::move(code_);
    program_.insns_ = std::move(insns_);
    return std::move(program_);
  }

  SyntheticProgramOptions opt_;
  Rng rng_;
  SyntheticProgram program_;
  std::string code_;
  std::vector<SyntheticProgram::Insn> insns_;
  std::vector<int64_t> labels_;
  std::vector<Fixup> fixups_;
  std::vector<int> function_labels_;
  std::vector<std::vector<int>> target_labels_;
  int function_ = 0;
};

SyntheticProgram SyntheticProgram::Generate(
    const SyntheticProgramOptions& options) {
  return SyntheticAssembler(options).Build();
}

const SyntheticProgram::Insn* SyntheticProgram::InsnAt(uint64_t ip) const {
  if (ip < base_ || ip - base_ >= insn_index_.size()) return nullptr;
  const int32_t index = insn_index_[ip - base_];
  return index < 0 ? nullptr : &insns_[static_cast<size_t>(index)];
}

absl::Status SyntheticProgram::WriteCode(const std::string& path) const {
  return WriteFileAtomically(path, code_);
}

namespace {

class ProgramInsnSource : public InsnSource {
 public:
  explicit ProgramInsnSource(const SyntheticProgram& program)
      : program_(program), decoder_(x86::InsnDecoder::Create()) {}

  std::optional<x86::Insn> InsnAt(uint64_t ip) override {
    const std::string& code = program_.code();
    if (ip < program_.base() || ip - program_.base() >= code.size()) {
      return std::nullopt;
    }
    const size_t offset = ip - program_.base();
    const size_t size = std::min<size_t>(15, code.size() - offset);
    return decoder_->Decode(
        absl::MakeConstSpan(
            reinterpret_cast<const uint8_t*>(code.data()) + offset, size),
        ip);
  }

 private:
  const SyntheticProgram& program_;
  std::unique_ptr<x86::InsnDecoder> decoder_;
};

// The walker's call frame.
struct Frame {
  uint64_t return_ip = 0;
  int32_t recursion_depth = 0;
  int32_t recursion_target = 0;
  size_t loops_begin = 0;  // this frame's entries in the loop-counter stack
};

struct LoopCounter {
  uint64_t site = 0;
  uint32_t remaining = 0;
};

// The execution's start: its info and the program's mapping.
void StartExecution(const SyntheticProgram& program,
                    const SyntheticExecutionOptions& options,
                    ExecutionSink* sink) {
  ExecutionInfo info;
  info.command = "synthetic";
  info.recorder = "synthetic";
  info.cpu.arch = "x86_64";
  info.cpu.vendor = "GenuineIntel";
  sink->OnStart(info);
  MappingEvent mapping;
  mapping.type = capture::RecordType::kMmap;
  mapping.path = options.code_path;
  mapping.addr = program.base();
  sink->OnMapping(mapping);
}

// A kLoopBack branch at `ip`: taken until its trip count (drawn at the
// first execution) runs out, or not at all once the run winds down.
bool LoopBackTaken(uint64_t ip, const Frame& frame, uint64_t max_trips,
                   bool winding_down, Rng& rng,
                   std::vector<LoopCounter>& loops) {
  auto it = std::find_if(
      loops.begin() + static_cast<std::ptrdiff_t>(frame.loops_begin),
      loops.end(), [&](const LoopCounter& c) { return c.site == ip; });
  if (it == loops.end()) {
    const uint32_t trips = 1 + static_cast<uint32_t>(rng.Below(max_trips));
    const bool taken = trips > 1 && !winding_down;
    if (taken) loops.push_back({ip, trips - 2});
    return taken;
  }
  if (it->remaining > 0 && !winding_down) {
    --it->remaining;
    return true;
  }
  loops.erase(it);
  return false;
}

// The frame a call from `caller` to `target` pushes (a recursive function
// gets a recursion depth to reach).
Frame CalleeFrame(const SyntheticProgram& program,
                  const SyntheticProgram::Insn& insn, uint64_t target,
                  uint64_t fall, const Frame& caller, size_t loops_size,
                  Rng& rng) {
  Frame callee;
  callee.return_ip = fall;
  callee.loops_begin = loops_size;
  const SyntheticProgram::Insn* entry = program.InsnAt(target);
  const int32_t callee_function = entry ? entry->function : -1;
  if (callee_function >= 0 && program.is_recursive(callee_function)) {
    if (callee_function == insn.function) {
      callee.recursion_depth = caller.recursion_depth + 1;
      callee.recursion_target = caller.recursion_target;
    } else {
      callee.recursion_depth = 0;
      callee.recursion_target =
          1 + static_cast<int32_t>(rng.Below(
                  static_cast<uint64_t>(program.max_recursion_depth())));
    }
  }
  return callee;
}

}  // namespace

std::unique_ptr<InsnSource> SyntheticProgram::NewInsnSource() const {
  return std::make_unique<ProgramInsnSource>(*this);
}

SyntheticExecutionStats RunSyntheticExecution(
    const SyntheticProgram& program, const SyntheticExecutionOptions& options,
    ExecutionSink* sink) {
  SyntheticExecutionStats stats;
  Rng rng(options.seed ^ 0x5e5e5e5e5e5e5e5eull);
  StartExecution(program, options, sink);

  std::vector<uint64_t> batch;
  const size_t batch_size = std::max<size_t>(1, options.batch);
  batch.reserve(batch_size);
  std::vector<Frame> frames(1);  // main's frame
  std::vector<LoopCounter> loops;
  const uint64_t max_trips = static_cast<uint64_t>(program.max_loop_trips());
  uint64_t ip = program.entry();
  bool winding_down = false;

  while (true) {
    const SyntheticProgram::Insn* insn = program.InsnAt(ip);
    if (insn == nullptr) break;  // cannot happen for generated programs
    batch.push_back(ip);
    ++stats.instructions;
    if (batch.size() == batch_size) {
      sink->OnInstructions(batch);
      batch.clear();
    }
    if (stats.instructions >= options.instructions) {
      if (!options.end_with_exit) break;
      winding_down = true;
    }
    const uint64_t fall = ip + insn->length;
    Frame& frame = frames.back();
    switch (insn->site) {
      case SyntheticSite::kNone:
        ip = fall;
        break;
      case SyntheticSite::kCond:
        ++stats.cond_branches;
        ip = rng.Chance16(insn->probability) ? insn->target : fall;
        break;
      case SyntheticSite::kLoopBack:
        ++stats.cond_branches;
        ip = LoopBackTaken(ip, frame, max_trips, winding_down, rng, loops)
                 ? insn->target
                 : fall;
        break;
      case SyntheticSite::kCallGuard: {
        ++stats.cond_branches;
        const uint64_t depth = frames.size();
        const bool skip = winding_down || depth >= 9 ||
                          rng.Percent(25 + 8 * static_cast<uint32_t>(depth));
        ip = skip ? insn->target : fall;
        break;
      }
      case SyntheticSite::kRecurseSkip:
        ++stats.cond_branches;
        ip = (winding_down || frame.recursion_depth >= frame.recursion_target)
                 ? insn->target
                 : fall;
        break;
      case SyntheticSite::kMainLoop:
        ++stats.cond_branches;
        ip = winding_down ? fall : insn->target;
        break;
      case SyntheticSite::kJump:
        ip = insn->target;
        break;
      case SyntheticSite::kSwitch: {
        const auto& targets = program.target_list(insn->targets);
        ip = targets[rng.Below(targets.size())];
        break;
      }
      case SyntheticSite::kCallNext:
        ip = fall;
        break;
      case SyntheticSite::kCall:
      case SyntheticSite::kCallIndirect: {
        uint64_t target = insn->target;
        if (insn->site == SyntheticSite::kCallIndirect) {
          const auto& targets = program.target_list(insn->targets);
          target = targets[rng.Below(targets.size())];
        }
        Frame callee =
            CalleeFrame(program, *insn, target, fall, frame, loops.size(), rng);
        frames.push_back(callee);
        ++stats.calls;
        stats.max_call_depth =
            std::max<uint64_t>(stats.max_call_depth, frames.size() - 1);
        ip = target;
        break;
      }
      case SyntheticSite::kReturn:
        ++stats.returns;
        if (frames.size() <= 1) {
          ip = 0;  // main never returns
          break;
        }
        loops.resize(frame.loops_begin);
        ip = frame.return_ip;
        frames.pop_back();
        break;
      case SyntheticSite::kSyscall:
        ++stats.syscalls;
        ip = fall;
        break;
      case SyntheticSite::kExit:
        ++stats.syscalls;
        ip = 0;
        break;
    }
    if (ip == 0) break;
  }
  if (!batch.empty()) sink->OnInstructions(batch);
  sink->OnExit(0);
  return stats;
}

}  // namespace hwt::recorder
