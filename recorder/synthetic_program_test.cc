// Checks that synthetic programs are real, decodable x86-64 code whose
// bookkeeping matches an independent decoder (LLVM MC), and that executions
// are valid control flow through that code, reproducible and streamed.
#include "recorder/synthetic_program.h"

#include <map>

#include "base/file_util.h"
#include "decoders/x86/x86_insn.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hwt::recorder {
namespace {

using x86::InsnClass;

// The x86 class each walker site must decode to.
InsnClass ExpectedClass(SyntheticSite site) {
  switch (site) {
    case SyntheticSite::kNone:
      return InsnClass::kOther;
    case SyntheticSite::kCond:
    case SyntheticSite::kLoopBack:
    case SyntheticSite::kCallGuard:
    case SyntheticSite::kRecurseSkip:
    case SyntheticSite::kMainLoop:
      return InsnClass::kCondJump;
    case SyntheticSite::kJump:
      return InsnClass::kJump;
    case SyntheticSite::kSwitch:
      return InsnClass::kJumpIndirect;
    case SyntheticSite::kCall:
    case SyntheticSite::kCallNext:
      return InsnClass::kCall;
    case SyntheticSite::kCallIndirect:
      return InsnClass::kCallIndirect;
    case SyntheticSite::kReturn:
      return InsnClass::kReturn;
    case SyntheticSite::kSyscall:
    case SyntheticSite::kExit:
      return InsnClass::kFarCall;
  }
  return InsnClass::kOther;
}

TEST(SyntheticProgramTest, EveryInstructionDecodesAsTheGeneratorSays) {
  auto decoder = x86::InsnDecoder::Create();
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SyntheticProgramOptions options;
    options.seed = seed;
    options.recursive_functions = static_cast<int>(seed % 3);
    SyntheticProgram program = SyntheticProgram::Generate(options);
    ASSERT_FALSE(program.instructions().empty());
    ASSERT_EQ(program.entry(), program.base());
    uint64_t previous_end = program.base();
    std::map<SyntheticSite, int> sites;
    for (const auto& insn : program.instructions()) {
      ASSERT_GE(insn.ip, previous_end)
          << "overlapping instructions, seed " << seed;
      previous_end = insn.ip + insn.length;
      const size_t offset = insn.ip - program.base();
      const auto* bytes =
          reinterpret_cast<const uint8_t*>(program.code().data());
      auto decoded = decoder->Decode(
          absl::MakeConstSpan(
              bytes + offset,
              std::min<size_t>(15, program.code().size() - offset)),
          insn.ip);
      ASSERT_TRUE(decoded.has_value())
          << "seed " << seed << " ip 0x" << std::hex << insn.ip;
      EXPECT_EQ(decoded->length, insn.length)
          << "seed " << seed << " ip 0x" << std::hex << insn.ip;
      EXPECT_EQ(decoded->cls, ExpectedClass(insn.site))
          << "seed " << seed << " ip 0x" << std::hex << insn.ip << " "
          << decoder->Disassemble(
                 absl::MakeConstSpan(bytes + offset, insn.length), insn.ip);
      if (decoded->cls == InsnClass::kCondJump ||
          decoded->cls == InsnClass::kJump ||
          decoded->cls == InsnClass::kCall) {
        EXPECT_EQ(decoded->target, insn.target)
            << "seed " << seed << " ip 0x" << std::hex << insn.ip;
        EXPECT_NE(program.InsnAt(insn.target), nullptr)
            << "branch into the middle of an instruction at 0x" << std::hex
            << insn.ip;
      }
      if (insn.site == SyntheticSite::kSyscall ||
          insn.site == SyntheticSite::kExit) {
        EXPECT_TRUE(decoded->is_syscall);
      }
      if (insn.site == SyntheticSite::kSwitch ||
          insn.site == SyntheticSite::kCallIndirect) {
        for (uint64_t target : program.target_list(insn.targets)) {
          EXPECT_NE(program.InsnAt(target), nullptr);
        }
      }
      ++sites[insn.site];
    }
    EXPECT_LE(previous_end, program.base() + program.code().size());
    EXPECT_GT(sites[SyntheticSite::kCond], 0) << "seed " << seed;
    EXPECT_GT(sites[SyntheticSite::kReturn], 0) << "seed " << seed;
    EXPECT_EQ(sites[SyntheticSite::kExit], 1);
  }
}

TEST(SyntheticProgramTest, ProgramsAreReproducibleFromTheirSeed) {
  SyntheticProgramOptions options;
  options.seed = 7;
  SyntheticProgram a = SyntheticProgram::Generate(options);
  SyntheticProgram b = SyntheticProgram::Generate(options);
  EXPECT_EQ(a.code(), b.code());
  options.seed = 8;
  SyntheticProgram c = SyntheticProgram::Generate(options);
  EXPECT_NE(a.code(), c.code());
  options.seed = 7;
  options.base = 0x7f0000001000;
  SyntheticProgram d = SyntheticProgram::Generate(options);
  EXPECT_EQ(d.base(), 0x7f0000001000u);
  EXPECT_EQ(d.entry(), d.base());
}

// Checks every transition of an execution against the LLVM decoding of the
// code: the walk must be a possible execution of the bytes.
class CheckingSink : public ExecutionSink {
 public:
  explicit CheckingSink(const SyntheticProgram& program)
      : program_(program), source_(program.NewInsnSource()) {}

  void OnMapping(const MappingEvent& event) override {
    ++mappings_;
    EXPECT_EQ(event.addr, program_.base());
    EXPECT_EQ(instructions_, 0u) << "mapping after the first instruction";
  }
  void OnInstructions(absl::Span<const uint64_t> ips) override {
    EXPECT_FALSE(exited_);
    ++batches_;
    for (uint64_t ip : ips) Step(ip);
  }
  void OnExit(int status) override { exited_ = true; }

  void Step(uint64_t ip) {
    hash_ = (hash_ ^ ip) * 0x100000001b3ull;
    if (instructions_ == 0) {
      EXPECT_EQ(ip, program_.entry());
    }
    ++instructions_;
    if (have_previous_) CheckTransition(ip);
    auto insn = source_->InsnAt(ip);
    ASSERT_TRUE(insn.has_value()) << "no instruction at 0x" << std::hex << ip;
    previous_ = *insn;
    previous_ip_ = ip;
    have_previous_ = true;
    last_ = ip;
  }

  void CheckTransition(uint64_t ip) {
    const uint64_t fall = previous_ip_ + previous_.length;
    switch (previous_.cls) {
      case InsnClass::kOther:
      case InsnClass::kFarCall:
        EXPECT_EQ(ip, fall);
        break;
      case InsnClass::kCondJump:
        EXPECT_TRUE(ip == fall || ip == previous_.target)
            << "0x" << std::hex << previous_ip_ << " -> 0x" << ip;
        break;
      case InsnClass::kJump:
        EXPECT_EQ(ip, previous_.target);
        break;
      case InsnClass::kCall:
        EXPECT_EQ(ip, previous_.target);
        if (previous_.target != fall) stack_.push_back(fall);
        break;
      case InsnClass::kCallIndirect:
        stack_.push_back(fall);
        EXPECT_NE(program_.InsnAt(ip), nullptr);
        break;
      case InsnClass::kJumpIndirect:
        EXPECT_NE(program_.InsnAt(ip), nullptr);
        break;
      case InsnClass::kReturn:
        ASSERT_FALSE(stack_.empty()) << "return with an empty stack";
        EXPECT_EQ(ip, stack_.back()) << "return to the wrong place";
        stack_.pop_back();
        break;
      default:
        ADD_FAILURE() << "unexpected class at 0x" << std::hex << previous_ip_;
    }
    max_depth_ = std::max(max_depth_, stack_.size());
  }

  const SyntheticProgram& program_;
  std::unique_ptr<InsnSource> source_;
  int mappings_ = 0;
  int batches_ = 0;
  bool exited_ = false;
  uint64_t instructions_ = 0;
  uint64_t hash_ = 0xcbf29ce484222325ull;
  bool have_previous_ = false;
  x86::Insn previous_;
  uint64_t previous_ip_ = 0;
  uint64_t last_ = 0;
  std::vector<uint64_t> stack_;
  size_t max_depth_ = 0;
};

TEST(SyntheticExecutionTest, ExecutionsAreValidFlowAndEndWithExit) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SyntheticProgramOptions options;
    options.seed = seed;
    SyntheticProgram program = SyntheticProgram::Generate(options);
    CheckingSink sink(program);
    SyntheticExecutionOptions run;
    run.seed = seed * 31;
    run.instructions = 20000;
    run.batch = 1000;
    SyntheticExecutionStats stats = RunSyntheticExecution(program, run, &sink);
    ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
    EXPECT_TRUE(sink.exited_);
    EXPECT_EQ(sink.mappings_, 1);
    EXPECT_EQ(sink.instructions_, stats.instructions);
    EXPECT_GE(stats.instructions, run.instructions);
    const auto* last = program.InsnAt(sink.last_);
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->site, SyntheticSite::kExit);
    EXPECT_TRUE(sink.stack_.empty()) << "exit below main";
    EXPECT_GT(stats.calls, 0u);
    EXPECT_EQ(stats.calls, stats.returns);
  }
}

TEST(SyntheticExecutionTest, StopsExactlyAtTheBudgetWithoutExit) {
  SyntheticProgram program = SyntheticProgram::Generate({});
  CheckingSink sink(program);
  SyntheticExecutionOptions run;
  run.instructions = 12345;
  run.end_with_exit = false;
  run.batch = 100;
  SyntheticExecutionStats stats = RunSyntheticExecution(program, run, &sink);
  EXPECT_EQ(stats.instructions, 12345u);
  EXPECT_EQ(sink.instructions_, 12345u);
  EXPECT_EQ(sink.batches_, 124);
  EXPECT_TRUE(sink.exited_);
}

TEST(SyntheticExecutionTest, ReproducibleFromTheSeed) {
  SyntheticProgram program = SyntheticProgram::Generate({});
  SyntheticExecutionOptions run;
  run.instructions = 50000;
  CheckingSink a(program), b(program), c(program);
  RunSyntheticExecution(program, run, &a);
  run.batch = 77;  // batching does not change the execution
  RunSyntheticExecution(program, run, &b);
  run.seed = 2;
  RunSyntheticExecution(program, run, &c);
  EXPECT_EQ(a.instructions_, b.instructions_);
  EXPECT_EQ(a.hash_, b.hash_);
  EXPECT_NE(a.hash_, c.hash_);
}

TEST(SyntheticExecutionTest, DeepRecursion) {
  SyntheticProgramOptions options;
  options.seed = 3;
  options.functions = 6;
  options.recursive_functions = 1;
  options.max_recursion_depth = 150;
  SyntheticProgram program = SyntheticProgram::Generate(options);
  CheckingSink sink(program);
  SyntheticExecutionOptions run;
  run.instructions = 200000;
  SyntheticExecutionStats stats = RunSyntheticExecution(program, run, &sink);
  EXPECT_GT(stats.max_call_depth, 64u);
  EXPECT_GT(sink.max_depth_, 64u);
  EXPECT_LE(stats.max_call_depth, 150u + 12u);
}

TEST(SyntheticExecutionTest, NoSyscallsWhenDisabled) {
  SyntheticProgramOptions options;
  options.syscalls = false;
  SyntheticProgram program = SyntheticProgram::Generate(options);
  for (const auto& insn : program.instructions()) {
    EXPECT_NE(insn.site, SyntheticSite::kSyscall);
  }
}

TEST(SyntheticProgramTest, WritesTheCode) {
  SyntheticProgram program = SyntheticProgram::Generate({});
  auto dir = TempDir::Create("synthetic");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path() + "/code.bin";
  ASSERT_TRUE(program.WriteCode(path).ok());
  auto bytes = ReadFileToString(path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, program.code());
}

}  // namespace
}  // namespace hwt::recorder
