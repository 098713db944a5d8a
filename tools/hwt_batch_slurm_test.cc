// hwt-batch slurm on a real Slurm: a one-node cluster started for the test
// (batch/testing/local_slurm.h) runs the batch of hwt_batch_test (two
// copies of testdata/decode/counted.hwt, testdata/demo.hwt, a broken
// bundle) as a job array, and the result must be what `hwt-batch run` gives
// on this machine: the same merged profile byte for byte, the same reports
// of it, the same summary rows apart from timings. Also checked: the job
// script and every shard's log are kept in OUTDIR, sbatch options pass
// through, and an interrupted hwt-batch slurm cancels its job.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "batch/testing/local_slurm.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hwt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadTextOrFail;
using testing::RunTool;
using testing::SourceDir;
using testing::ToolPath;

// The file's text so far ("" while it does not exist yet).
std::string ReadSoFar(const std::string& path) {
  auto text = ReadFileToString(path);
  return text.ok() ? *text : "";
}

// The rows of OUT/summary.json by name, without their timings.
std::map<std::string, nlohmann::json> Rows(const fs::path& out) {
  std::map<std::string, nlohmann::json> rows;
  auto json =
      nlohmann::json::parse(ReadTextOrFail(out / "summary.json"), nullptr,
                            /*allow_exceptions=*/false);
  EXPECT_FALSE(json.is_discarded()) << out;
  if (json.is_discarded()) return rows;
  for (auto row : json["rows"]) {
    row.erase("wall_s");
    rows[row["name"].get<std::string>()] = row;
  }
  return rows;
}

class HwtBatchSlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string& program : batch::testing::LocalSlurm::Programs()) {
      HWT_REQUIRE_TOOL(program);
    }
    auto temp = TempDir::Create("hwt_batch_slurm_test");
    ASSERT_TRUE(temp.ok()) << temp.status();
    temp_.emplace(std::move(*temp));
    dir_ = temp_->path();
    caps_ = dir_ / "caps";
    fs::create_directories(caps_ / "x");
    fs::create_directories(caps_ / "y");
    const std::string testdata = SourceDir() + "/testdata/";
    for (const char* to : {"x/counted.hwt", "y/counted.hwt"}) {
      fs::copy(testdata + "decode/counted.hwt", caps_ / to,
               fs::copy_options::recursive);
    }
    fs::copy(testdata + "demo.hwt", caps_ / "demo.hwt",
             fs::copy_options::recursive);
    fs::create_directories(caps_ / "broken.hwt");
    ASSERT_TRUE(WriteFileAtomically(caps_ / "broken.hwt/manifest.json",
                                    "{\"format\": \"hwt-capture\",\n")
                    .ok());
    auto slurm = batch::testing::LocalSlurm::Start();
    ASSERT_TRUE(slurm.ok()) << slurm.status();
    slurm_ = std::move(*slurm);
  }

  // The cluster goes first: its destructor cancels what is left.
  void TearDown() override { slurm_.reset(); }

  std::optional<TempDir> temp_;
  fs::path dir_, caps_;
  std::unique_ptr<batch::testing::LocalSlurm> slurm_;
};

TEST_F(HwtBatchSlurmTest, JobArrayGivesWhatALocalRunGives) {
  const fs::path local = dir_ / "local", remote = dir_ / "remote";
  auto run = RunTool("hwt-batch", {"run", "-q", "-o", local, caps_});
  ASSERT_EQ(run.exit_code, 1) << run.err;  // the broken capture

  auto slurm = RunTool("hwt-batch",
                       {"slurm", "-q", "-o", remote, "--shards", "3",
                        "--partition", slurm_->partition(), "--time=10", caps_},
                       240);
  ASSERT_EQ(slurm.exit_code, 1) << slurm.out << slurm.err << slurm_->Logs();
  EXPECT_THAT(slurm.out, HasSubstr("4 captures: 3 ok, 0 with decode errors, "
                                   "1 failed"));
  EXPECT_THAT(slurm.out, HasSubstr("failed: broken: "));

  EXPECT_EQ(ReadTextOrFail(remote / "merged.hwtprof"),
            ReadTextOrFail(local / "merged.hwtprof"));
  for (const char* report : {"--folded", "--top=20", "--callgraph"}) {
    auto a = RunTool("hwt-report", {report, local / "merged.hwtprof"});
    auto b = RunTool("hwt-report", {report, remote / "merged.hwtprof"});
    EXPECT_EQ(a.exit_code, 0) << a.err;
    EXPECT_FALSE(a.out.empty()) << report;
    EXPECT_EQ(a.out, b.out) << report;
  }
  const auto local_rows = Rows(local), remote_rows = Rows(remote);
  EXPECT_EQ(local_rows.size(), 4u);
  EXPECT_EQ(local_rows, remote_rows);
  for (const char* name : {"x/counted", "y/counted", "demo"}) {
    EXPECT_EQ(
        ReadTextOrFail(remote / "profiles" / (std::string(name) + ".hwtprof")),
        ReadTextOrFail(local / "profiles" / (std::string(name) + ".hwtprof")))
        << name;
  }

  // What the job ran is kept: its script, the input list, each shard's log
  // and exit status (0 or 1: the broken capture's shard has an error row).
  struct stat st;
  ASSERT_EQ(stat((remote / "slurm/job.sh").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  EXPECT_THAT(ReadTextOrFail(remote / "slurm/job.sh"),
              HasSubstr("--shard \"$shard/3\""));
  EXPECT_TRUE(fs::exists(remote / "slurm/inputs.list"));
  int failing_shards = 0;
  for (int i = 0; i < 3; ++i) {
    const fs::path shard = remote / "slurm";
    EXPECT_TRUE(fs::exists(shard / ("shard-" + std::to_string(i) + ".log")))
        << i;
    const std::string exit_status =
        ReadTextOrFail(shard / ("shard-" + std::to_string(i) + ".exit"));
    EXPECT_THAT(exit_status, ::testing::AnyOf("0\n", "1\n")) << i;
    failing_shards += exit_status == "1\n";
  }
  EXPECT_EQ(failing_shards, 1);

  // Run again: every capture is in OUTDIR, the shards skip them all.
  auto again = RunTool(
      "hwt-batch", {"slurm", "-q", "-o", remote, "--shards", "3", caps_}, 240);
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(ReadTextOrFail(remote / "merged.hwtprof"),
            ReadTextOrFail(local / "merged.hwtprof"));
}

// Starts argv with stderr into `err_path`; returns its pid.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& err_path) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    std::vector<char*> args;
    for (const std::string& a : argv) {
      args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

TEST_F(HwtBatchSlurmTest, InterruptCancelsTheJob) {
  const fs::path out = dir_ / "out";
  const std::string err_path = dir_ / "slurm.err";
  // --begin keeps the array pending: only the cancel can end it.
  const pid_t pid = Spawn({ToolPath("hwt-batch"), "slurm", "-o", out,
                           "--shards", "2", "--sbatch=--begin=now+3600", caps_},
                          err_path);
  ASSERT_GT(pid, 0);
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until &&
         ReadSoFar(err_path).find("submitted job") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto queued = slurm_->Queue();
  ASSERT_TRUE(queued.ok()) << queued.status();
  EXPECT_FALSE(queued->empty()) << ReadTextOrFail(err_path);
  // While the job waits, OUTDIR belongs to it: another batch or submission
  // is refused (exit 3, naming the submitter), one of its shards is not.
  auto batch = RunTool("hwt-batch", {"run", "-q", "-o", out, caps_});
  EXPECT_EQ(batch.exit_code, 3) << batch.err;
  EXPECT_THAT(batch.err, HasSubstr(absl::StrCat("in use by hwt-batch slurm "
                                                "(pid ",
                                                pid, ")")));
  auto second = RunTool("hwt-batch", {"slurm", "-q", "-o", out, caps_});
  EXPECT_EQ(second.exit_code, 3) << second.err;
  EXPECT_THAT(second.err, HasSubstr("(a Slurm submission) is in use"));
  auto shard =
      RunTool("hwt-batch", {"run", "-q", "-o", out, "--shard", "0/2", caps_});
  EXPECT_NE(shard.exit_code, 3) << shard.err;
  kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << ReadTextOrFail(err_path);
  EXPECT_THAT(ReadTextOrFail(err_path), HasSubstr("cancelled job"));
  bool empty = false;
  for (int i = 0; i < 100 && !empty; ++i) {
    auto q = slurm_->Queue();
    empty = q.ok() && q->empty();
    if (!empty) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(empty) << "job still queued after the interrupt";
  EXPECT_FALSE(fs::exists(out / "merged.hwtprof"));
}

}  // namespace
}  // namespace hwt
