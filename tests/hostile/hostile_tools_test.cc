// The real tools on hostile inputs and under interruption: bad usage and
// unreadable inputs give a clear message and a non-zero exit within a time
// limit; a tool interrupted by SIGINT or SIGTERM while it writes leaves no
// partial output and no temporary file (outputs are written to a temporary
// name and renamed; temporary directories are removed at the signal).
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "capture/capture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile/testing/hostile_inputs.h"

#ifndef HWT_TEST_PROGRAMS_DIR
#error "HWT_TEST_PROGRAMS_DIR must point at the built testdata/programs"
#endif

namespace hwt::hostile {
namespace {

using ::hwt::testing::RunCommand;
using ::hwt::testing::ToolPath;
using ::testing::HasSubstr;

constexpr int kTimeout = 60;

std::string Program(const std::string& name) {
  return std::string(HWT_TEST_PROGRAMS_DIR) + "/" + name;
}

class ToolsHostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("hwt-hostile-tools");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    out_ = dir_->path() + "/out";
    tmp_ = dir_->path() + "/tmp";
    std::filesystem::create_directories(out_);
    std::filesystem::create_directories(tmp_);
  }

  std::unique_ptr<TempDir> dir_;
  std::string out_;  // where outputs go
  std::string tmp_;  // the tools' $TMPDIR
};

// A raw Intel PT file in which no byte decodes (no PSB anywhere, so every
// byte is lost) is a failure for every tool, never a clean exit 0: 1 from
// hwt-decode (its statistics say so) and hwt-report (a message), and a
// `decode-errors` row (exit 1) from hwt-batch.
TEST_F(ToolsHostileTest, RawTraceWithoutASyncPointIsNotClean) {
  std::string bytes;
  for (int i = 0; i < 8192; ++i) {
    bytes.push_back(static_cast<char>(0x20 + (i * 37) % 0x50));  // no 0x02
  }
  const std::string raw = dir_->path() + "/nosync.raw";
  ASSERT_TRUE(WriteFileAtomically(raw, bytes).ok());
  const std::string cpu = "6/158/9";
  auto decode = RunCommand(
      {ToolPath("hwt-decode"), "--backend", "pt", "--cpu", cpu, raw}, kTimeout);
  EXPECT_EQ(decode.exit_code, 1) << decode.err;
  EXPECT_THAT(decode.out, HasSubstr("decoded 0, lost 8192")) << decode.out;
  auto report = RunCommand({ToolPath("hwt-report"), "--top=10", "--backend",
                            "pt", "--cpu", cpu, raw},
                           kTimeout);
  EXPECT_EQ(report.exit_code, 1) << report.err;
  EXPECT_THAT(report.err, HasSubstr("could be decoded")) << report.err;

  const std::string list = dir_->path() + "/inputs.list";
  ASSERT_TRUE(WriteFileAtomically(list, raw + " --cpu " + cpu + "\n").ok());
  auto batch = RunCommand({ToolPath("hwt-batch"), "run", "-q", "--backend",
                           "pt", "-o", out_ + "/batch", "@" + list},
                          kTimeout);
  EXPECT_EQ(batch.exit_code, 1) << batch.out << batch.err;
  auto summary = ReadFileToString(out_ + "/batch/summary.json");
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_THAT(*summary, HasSubstr("\"decode-errors\""));
  EXPECT_THAT(*summary, HasSubstr("could be decoded"));
}

TEST_F(ToolsHostileTest, EmulateBadUsageAndInputs) {
  const std::string emulate = ToolPath("hwt-emulate");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    const char* message;
  };
  const std::string bundle = out_ + "/x.hwt";
  const std::vector<Case> cases = {
      {{"-o", bundle}, 2, "program"},
      {{"-o", bundle, "--cpu", "banana", "--", "/bin/true"}, 2, "banana"},
      {{"-o", bundle, "--timing", "sundial", "--", "/bin/true"}, 2, "sundial"},
      {{"-o", bundle, "--overflow", "0", "--", "/bin/true"}, 2, "--overflow"},
      {{"-o", bundle, "--", dir_->path() + "/no-such-program"},
       2,
       "no-such-program"},
      {{"-o", "/proc/no/such/dir/x.hwt", "--", Program("counted_static")},
       2,
       "/proc/no/such/dir"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {emulate};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const auto result = RunCommand(argv, kTimeout);
    const std::string what = absl::StrJoin(c.args, " ");
    EXPECT_NE(result.exit_code, 0) << what;
    EXPECT_EQ(result.signal, 0) << what;
    EXPECT_GE(result.exit_code, 1) << what << "\n" << result.err;
    EXPECT_THAT(result.err, HasSubstr(c.message)) << what;
    EXPECT_FALSE(std::filesystem::exists(bundle)) << what;
  }
}

// Starts `argv` with $TMPDIR = tmp; returns its pid.
pid_t Start(const std::vector<std::string>& argv, const std::string& tmp) {
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TMPDIR", tmp.c_str(), 1);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Waits for `pid` (at most kTimeout seconds, then kills it).
int Wait(pid_t pid) {
  int status = 0;
  for (int ms = 0; ms < kTimeout * 1000; ms += 5) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  ADD_FAILURE() << "process " << pid << " did not end";
  return status;
}

// What an interrupted run may leave: nothing, or a complete bundle.
void ExpectNothingBroken(const std::string& out, const std::string& tmp,
                         const std::string& bundle, const std::string& what) {
  for (const std::string& path : ListTree(out)) {
    EXPECT_TRUE(path == "x.hwt" || absl::StartsWith(path, "x.hwt/"))
        << what << ": left " << path;
  }
  if (std::filesystem::exists(bundle)) {
    auto capture = capture::OpenCapture(bundle, {});
    EXPECT_TRUE(capture.ok()) << what << ": " << capture.status();
  }
  const auto left = ListTree(tmp);
  EXPECT_TRUE(left.empty()) << what << ": left in $TMPDIR: " << *left.begin();
}

// Interrupts hwt-emulate at several moments: while it records, and the
// moment its temporary bundle directory appears (it is writing the bundle).
TEST_F(ToolsHostileTest, InterruptedEmulateLeavesNothingBroken) {
  const std::string bundle = out_ + "/x.hwt";
  const std::vector<std::string> argv = {
      ToolPath("hwt-emulate"), "-o", bundle, "--", Program("fib_static"), "12"};
  // Uninterrupted, for reference.
  {
    const int status = Wait(Start(argv, tmp_));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ExpectNothingBroken(out_, tmp_, bundle, "complete run");
    ASSERT_TRUE(std::filesystem::exists(bundle));
    std::filesystem::remove_all(bundle);
  }
  int interrupted_while_writing = 0;
  for (int sig : {SIGINT, SIGTERM}) {
    for (int delay_ms : {1, 20, 100, -1}) {
      const std::string what =
          absl::StrFormat("signal %d after %s", sig,
                          delay_ms < 0 ? std::string("the bundle write began")
                                       : absl::StrFormat("%d ms", delay_ms));
      int watch = inotify_init1(IN_CLOEXEC);
      ASSERT_GE(watch, 0);
      ASSERT_GE(inotify_add_watch(watch, out_.c_str(), IN_CREATE), 0)
          << what << ": " << strerror(errno) << "; " << out_ << " exists "
          << std::filesystem::exists(out_);
      const pid_t pid = Start(argv, tmp_);
      if (delay_ms >= 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      } else {
        // Block until the writer creates its temporary directory.
        char buf[4096];
        const ssize_t n = read(watch, buf, sizeof(buf));
        ASSERT_GT(n, 0);
        ++interrupted_while_writing;
      }
      kill(pid, sig);
      close(watch);
      const int status = Wait(pid);
      EXPECT_TRUE(WIFSIGNALED(status) || WIFEXITED(status)) << what;
      ExpectNothingBroken(out_, tmp_, bundle, what);
      std::filesystem::remove_all(bundle);
    }
  }
  EXPECT_EQ(interrupted_while_writing, 2);
}

}  // namespace
}  // namespace hwt::hostile
