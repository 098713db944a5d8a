// hwt-emulate's automatic recorder choice, run as a user runs it
// (`hwt-emulate -o x.hwt -- PROG`): valgrind with the hwttrace tool for
// static and dynamically linked programs, said on stderr and in the
// manifest, and the same recording as an explicit `--recorder valgrind`.
// A program that runs generated code is one valgrind cannot record exactly:
// its error is the kind the automatic choice answers by recording again
// with ptrace; other errors (a missing program) are not.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "recorder/testing/test_programs.h"
#include "recorder/valgrind_recorder.h"
#include "tests/e2e/testing/e2e_pipeline.h"

namespace hwt::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ManifestRecorder(const std::string& bundle) {
  auto text = ReadFileToString(bundle + "/manifest.json");
  if (!text.ok()) return "unreadable: " + std::string(text.status().message());
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("recorder")) return "no recorder";
  return j["recorder"].get<std::string>();
}

class RecorderChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(hwt::testing::ToolPath("hwt-emulate").c_str(), X_OK) != 0) {
      GTEST_SKIP() << "hwt-emulate is not built in this tree";
    }
    HWT_REQUIRE_VALGRIND();
    auto dir = TempDir::Create("hwt-e2e-choice");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }

  hwt::testing::CommandResult Emulate(const std::vector<std::string>& flags,
                                      const std::string& bundle,
                                      const std::vector<std::string>& argv) {
    std::vector<std::string> command = {hwt::testing::ToolPath("hwt-emulate")};
    command.insert(command.end(), flags.begin(), flags.end());
    command.insert(command.end(), {"-o", bundle, "--"});
    command.insert(command.end(), argv.begin(), argv.end());
    return hwt::testing::RunCommand(command, 300);
  }

  std::unique_ptr<TempDir> dir_;
};

TEST_F(RecorderChoiceTest, PicksValgrindForStaticAndDynamicPrograms) {
  for (const char* name : {"fib_static", "fib_dynamic"}) {
    SCOPED_TRACE(name);
    const std::vector<std::string> argv = {TestProgram(name), "10"};
    const std::string chosen = dir_->path() + "/" + name + "-auto.hwt";
    auto run = Emulate({}, chosen, argv);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_THAT(run.err, HasSubstr("recording with valgrind"));
    EXPECT_THAT(run.err, Not(HasSubstr("ptrace")));
    EXPECT_EQ(ManifestRecorder(chosen), "hwt-emulate (valgrind-hwttrace)");

    const std::string named = dir_->path() + "/" + name + "-valgrind.hwt";
    auto explicit_run = Emulate({"--recorder", "valgrind"}, named, argv);
    ASSERT_EQ(explicit_run.exit_code, 0) << explicit_run.err;
    EXPECT_THAT(explicit_run.err, Not(HasSubstr("recording with")));
    absl::StatusOr<Truth> a = ReadTruth(chosen);
    absl::StatusOr<Truth> b = ReadTruth(named);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(a->instructions, 10000u);
    EXPECT_EQ(a->instructions, b->instructions);
    EXPECT_EQ(a->digest, b->digest);
    EXPECT_EQ(a->folded, b->folded);
  }
}

TEST_F(RecorderChoiceTest, PtraceIsNamedWhenAskedFor) {
  const std::string bundle = dir_->path() + "/counted.hwt";
  auto run = Emulate({"--recorder", "ptrace"}, bundle,
                     {TestProgram("counted_static")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ManifestRecorder(bundle), "hwt-emulate (ptrace-singlestep)");
}

// Calls code it wrote into an anonymous executable mapping.
constexpr char kGeneratedCode[] = R"(#include <string.h>
#include <sys/mman.h>
int main(void) {
  static const unsigned char code[] = {0xb8, 0x2a, 0, 0, 0, 0xc3};
  void* p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  memcpy(p, code, sizeof code);
  return ((int (*)(void))p)() == 42 ? 0 : 2;
}
)";

TEST_F(RecorderChoiceTest, GeneratedCodeIsLeftToPtrace) {
  const std::string source = dir_->path() + "/jit.c";
  const std::string program = dir_->path() + "/jit";
  ASSERT_TRUE(WriteFileAtomically(source, kGeneratedCode).ok());
  auto gcc = hwt::testing::RunCommand(
      {"gcc", "-O1", "-static", "-o", program, source}, 120);
  ASSERT_EQ(gcc.exit_code, 0) << gcc.err;

  recorder::ValgrindRecorderOptions options;
  options.argv = {program};
  options.stdout_path = "/dev/null";
  recorder::testing::CollectingSink sink;
  auto stats = recorder::RecordWithValgrind(options, sink);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("generated code"));
  EXPECT_TRUE(recorder::PtraceCanRecordInstead(stats.status()));

  options.argv = {dir_->path() + "/no-such-program"};
  stats = recorder::RecordWithValgrind(options, sink);
  ASSERT_FALSE(stats.ok());
  EXPECT_FALSE(recorder::PtraceCanRecordInstead(stats.status()));
}

}  // namespace
}  // namespace hwt::e2e
