// hwt-batch as a user runs it over a directory of captures: two copies of
// testdata/decode/counted.hwt (79 instructions, counted by hand in
// testdata/programs/counted.S; its folded stacks are the golden
// testdata/decode/counted.report.folded), testdata/demo.hwt and a broken
// bundle. Checked: the summary rows (the broken one `failed` with its
// message, the others `ok` with the hand-counted figures), the exit status,
// that the merged profile's folded stacks are the sum of the per-capture
// ones, resuming, --timeout, merge and diff with the regression gate, and
// that bad usage or an unwritable OUTDIR leave nothing half-written.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

extern char** environ;

namespace hwt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadTextOrFail;
using testing::RunTool;
using testing::SourceDir;

std::string Testdata(const std::string& name) {
  return SourceDir() + "/testdata/" + name;
}

// "stack count" lines as stack -> count, summed over the texts.
std::map<std::string, int64_t> Folded(const std::vector<std::string>& texts) {
  std::map<std::string, int64_t> out;
  for (const std::string& text : texts) {
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (line.empty()) continue;
      const size_t space = line.rfind(' ');
      int64_t count = 0;
      EXPECT_TRUE(absl::SimpleAtoi(line.substr(space + 1), &count)) << line;
      out[std::string(line.substr(0, space))] += count;
    }
  }
  return out;
}

std::string FoldedOf(const std::string& profile) {
  auto result = RunTool("hwt-report", {"--folded", profile});
  EXPECT_EQ(result.exit_code, 0) << profile << ": " << result.err;
  return result.out;
}

class HwtBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto temp = TempDir::Create("hwt_batch_test");
    ASSERT_TRUE(temp.ok()) << temp.status();
    temp_.emplace(std::move(*temp));
    dir_ = temp_->path();
    caps_ = dir_ / "caps";
    fs::create_directories(caps_ / "x");
    fs::create_directories(caps_ / "y");
    fs::copy(Testdata("decode/counted.hwt"), caps_ / "x/counted.hwt",
             fs::copy_options::recursive);
    fs::copy(Testdata("decode/counted.hwt"), caps_ / "y/counted.hwt",
             fs::copy_options::recursive);
    fs::copy(Testdata("demo.hwt"), caps_ / "demo.hwt",
             fs::copy_options::recursive);
    fs::create_directories(caps_ / "broken.hwt");
    ASSERT_TRUE(WriteFileAtomically((caps_ / "broken.hwt/manifest.json"),
                                    "{\"format\": \"hwt-capture\",\n")
                    .ok());
  }

  // The rows of OUT/summary.json by name.
  std::map<std::string, nlohmann::json> Rows(const fs::path& out) {
    std::map<std::string, nlohmann::json> rows;
    auto json = nlohmann::json::parse(ReadTextOrFail(out / "summary.json"));
    for (const auto& row : json["rows"]) {
      rows[row["name"].get<std::string>()] = row;
    }
    return rows;
  }

  std::optional<TempDir> temp_;
  fs::path dir_, caps_;
};

TEST_F(HwtBatchTest, SummaryMergedProfileAndExitStatus) {
  const fs::path out = dir_ / "out";
  auto run = RunTool("hwt-batch", {"run", "-q", "-o", out, caps_});
  EXPECT_EQ(run.exit_code, 1) << run.err;  // one capture failed
  EXPECT_THAT(run.out, HasSubstr("4 captures: 3 ok, 0 with decode errors, "
                                 "1 failed"));
  EXPECT_THAT(run.out, HasSubstr("failed: broken: "));

  auto rows = Rows(out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows["broken"]["status"], "failed");
  EXPECT_THAT(rows["broken"]["error"].get<std::string>(),
              HasSubstr("broken.hwt/manifest.json: not valid JSON"));
  for (const char* name : {"x/counted", "y/counted"}) {
    const auto& row = rows[name];
    EXPECT_EQ(row["status"], "ok") << name;
    EXPECT_EQ(row["backend"], "pt");
    EXPECT_EQ(row["instructions"], 79);  // counted.S, by hand
    EXPECT_EQ(row["errors"], 0);
    EXPECT_EQ(row["bytes_lost"], 0);
    EXPECT_EQ(
        row["trace_bytes"],
        fs::file_size(caps_ / (std::string(name) + ".hwt/buffers/0.bin")));
    EXPECT_EQ(row["top_function"], "_start");  // 24 of 79
  }
  EXPECT_EQ(rows["demo"]["status"], "ok");
  const std::string csv = ReadTextOrFail(out / "summary.csv");
  EXPECT_THAT(csv, HasSubstr("name,path,backend,status,error,trace_bytes,"
                             "bytes_lost,instructions,errors,wall_s,"
                             "top_function"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);

  // Per-capture profiles: each the capture's folded stacks (the golden);
  // the merged one their sum.
  const std::string golden =
      ReadTextOrFail(Testdata("decode/counted.report.folded"));
  EXPECT_EQ(FoldedOf(out / "profiles/x/counted.hwtprof"), golden);
  EXPECT_EQ(FoldedOf(out / "profiles/y/counted.hwtprof"), golden);
  EXPECT_FALSE(fs::exists(out / "profiles/broken.hwtprof"));
  const auto sum = Folded({FoldedOf(out / "profiles/x/counted.hwtprof"),
                           FoldedOf(out / "profiles/y/counted.hwtprof"),
                           FoldedOf(out / "profiles/demo.hwtprof")});
  EXPECT_EQ(Folded({FoldedOf(out / "merged.hwtprof")}), sum);
  EXPECT_EQ(sum,
            Folded({golden, golden, FoldedOf(out / "profiles/demo.hwtprof")}));

  // hwt-batch merge of the per-capture profiles, in either order, reports
  // what the batch's merged profile reports.
  const std::string a = out / "profiles/x/counted.hwtprof";
  const std::string b = out / "profiles/y/counted.hwtprof";
  const std::string c = out / "profiles/demo.hwtprof";
  const std::string m1 = dir_ / "m1.hwtprof", m2 = dir_ / "m2.hwtprof";
  ASSERT_EQ(RunTool("hwt-batch", {"merge", "-o", m1, a, b, c}).exit_code, 0);
  ASSERT_EQ(RunTool("hwt-batch", {"merge", "-o", m2, c, b, a}).exit_code, 0);
  EXPECT_EQ(FoldedOf(m1), FoldedOf(out / "merged.hwtprof"));
  EXPECT_EQ(FoldedOf(m2), FoldedOf(m1));
  auto top1 = RunTool("hwt-report", {"--top", "10", m1});
  auto top2 = RunTool("hwt-report", {"--top", "10", out / "merged.hwtprof"});
  EXPECT_EQ(top1.out, top2.out);
}

TEST_F(HwtBatchTest, ResumesAndRetriesWhatFailed) {
  const fs::path out = dir_ / "out";
  fs::remove_all(caps_ / "broken.hwt");
  // 1 ms cannot hold a worker's start (it maps libLLVM) and the demo's
  // 142,742 instructions: the capture times out, nothing of it is kept.
  auto timed = RunTool("hwt-batch", {"run", "-q", "-j", "1", "-o", out,
                                     "--timeout", "0.001", caps_ / "demo.hwt"});
  EXPECT_EQ(timed.exit_code, 1);
  auto rows = Rows(out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows["demo"]["status"], "failed");
  EXPECT_THAT(rows["demo"]["error"].get<std::string>(), HasSubstr("timed out"));
  EXPECT_FALSE(fs::exists(out / "profiles/demo.hwtprof"));

  // Again without the limit: the failed ones are run, all ok.
  auto again = RunTool("hwt-batch", {"run", "-q", "-o", out, caps_});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  rows = Rows(out);
  for (auto& [name, row] : rows) {
    EXPECT_EQ(row["status"], "ok") << name;
    EXPECT_EQ(row["resumed"], false) << name;
  }
  const auto before = fs::last_write_time(out / "profiles/demo.hwtprof");

  // A third time: nothing to do, the profiles are kept as they are.
  auto third = RunTool("hwt-batch", {"run", "-q", "-o", out, caps_});
  EXPECT_EQ(third.exit_code, 0) << third.err;
  for (auto& [name, row] : Rows(out)) EXPECT_EQ(row["resumed"], true) << name;
  EXPECT_EQ(fs::last_write_time(out / "profiles/demo.hwtprof"), before);
}

// The shard contract a scheduler relies on: shards 0/2 and 1/2 into one
// OUTDIR, then --merge-only, give the unsharded run's merged profile byte
// for byte and its rows (apart from timings).
// --group-by on a manifest label: one merged profile per value, each the
// merge of exactly the captures carrying it (their summed folded stacks).
// Ctrl-C at a terminal signals the whole foreground process group: the
// batch and its workers. The batch stops its workers itself, so no capture
// under way is recorded as failed ("crashed (signal 2)"), nothing half
// written stays, it exits 130, and running it again finishes the rest.
TEST_F(HwtBatchTest, CtrlCToTheProcessGroupStopsCleanly) {
  const fs::path many = dir_ / "many";
  fs::create_directories(many);
  constexpr int kCaptures = 80;
  for (int i = 0; i < kCaptures; ++i) {
    fs::copy(Testdata("demo.hwt"), many / absl::StrCat("d", i, ".hwt"),
             fs::copy_options::recursive);
  }
  const fs::path out = dir_ / "out";
  const std::string tool = testing::ToolPath("hwt-batch");
  const std::string out_s = out.string(), many_s = many.string();
  const char* argv[] = {tool.c_str(), "run", "-q",          "--jobs",
                        "2",          "-o",  out_s.c_str(), many_s.c_str(),
                        nullptr};
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group, as a shell job
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, tool.c_str(), &files, &attr,
                        const_cast<char* const*>(argv), environ),
            0);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  // Once a few captures are done, Ctrl-C.
  auto done = [&] {
    std::error_code ec;
    int n = 0;
    for (const auto& e : fs::directory_iterator(out / "rows", ec)) {
      n += e.path().extension() == ".json";
    }
    return n;
  };
  for (int i = 0; i < 3000 && done() < 4; ++i) usleep(2000);
  ASSERT_GE(done(), 4) << "the batch did not start";
  ASSERT_EQ(kill(-pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  const int finished = done();
  if (finished < kCaptures) {
    EXPECT_EQ(WEXITSTATUS(status), 130);
  }
  for (const auto& e : fs::directory_iterator(out / "rows")) {
    const std::string row = ReadTextOrFail(e.path());
    EXPECT_THAT(row, HasSubstr("\"status\": \"ok\"")) << e.path();
  }
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << e.path();
  }
  auto again = RunTool("hwt-batch", {"run", "-q", "-o", out_s, many_s});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  const auto rows = Rows(out);
  EXPECT_EQ(rows.size(), static_cast<size_t>(kCaptures));
  for (const auto& [name, row] : rows) EXPECT_EQ(row["status"], "ok") << name;
}

TEST_F(HwtBatchTest, GroupByLabelMergesEachValue) {
  fs::create_directories(caps_ / "z");
  fs::copy(Testdata("decode/counted.hwt"), caps_ / "z/counted.hwt",
           fs::copy_options::recursive);
  const std::map<std::string, std::string> suite = {
      {"x/counted.hwt", "a"}, {"y/counted.hwt", "b"}, {"z/counted.hwt", "a"}};
  for (const auto& [capture, value] : suite) {
    const fs::path manifest = caps_ / capture / "manifest.json";
    auto json = nlohmann::json::parse(ReadTextOrFail(manifest));
    json["version"] = "1.1";
    json["labels"] = {{"suite", value}};
    ASSERT_TRUE(WriteFileAtomically(manifest, json.dump(2)).ok());
  }
  fs::remove_all(caps_ / "broken.hwt");
  fs::remove(caps_ / "demo.hwt");
  const fs::path out = dir_ / "out";
  auto run = RunTool("hwt-batch",
                     {"run", "-q", "-o", out, "--group-by", "suite", caps_});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Folded({FoldedOf(out / "groups/a.hwtprof")}),
            Folded({FoldedOf(out / "profiles/x/counted.hwtprof"),
                    FoldedOf(out / "profiles/z/counted.hwtprof")}));
  EXPECT_EQ(Folded({FoldedOf(out / "groups/b.hwtprof")}),
            Folded({FoldedOf(out / "profiles/y/counted.hwtprof")}));
  EXPECT_NE(Folded({FoldedOf(out / "groups/a.hwtprof")}),
            Folded({FoldedOf(out / "groups/b.hwtprof")}));
}

TEST_F(HwtBatchTest, ShardsThenMergeOnlyEqualOneRun) {
  const fs::path whole = dir_ / "whole", sharded = dir_ / "sharded";
  EXPECT_EQ(RunTool("hwt-batch", {"run", "-q", "-o", whole, caps_}).exit_code,
            1);
  for (const char* shard : {"0/2", "1/2"}) {
    auto run = RunTool("hwt-batch",
                       {"run", "-q", "-o", sharded, "--shard", shard, caps_});
    EXPECT_LE(run.exit_code, 1) << shard << ": " << run.err;
  }
  auto rest =
      RunTool("hwt-batch", {"run", "-q", "-o", sharded, "--merge-only", caps_});
  EXPECT_EQ(rest.exit_code, 1) << rest.err;  // the broken capture
  EXPECT_EQ(ReadTextOrFail(sharded / "merged.hwtprof"),
            ReadTextOrFail(whole / "merged.hwtprof"));
  auto a = Rows(whole), b = Rows(sharded);
  ASSERT_EQ(a.size(), b.size());
  for (auto& [name, row] : a) {
    for (const char* key : {"status", "error", "instructions", "trace_bytes",
                            "top_function", "fingerprint"}) {
      EXPECT_EQ(row[key], b[name][key]) << name << " " << key;
    }
  }
  auto bad =
      RunTool("hwt-batch", {"run", "-o", dir_ / "x", "--shard", "2/2", caps_});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST_F(HwtBatchTest, DiffAndTheRegressionGate) {
  const fs::path one = dir_ / "one", two = dir_ / "two";
  ASSERT_EQ(
      RunTool("hwt-batch", {"run", "-q", "-o", one, caps_ / "x"}).exit_code, 0);
  ASSERT_EQ(
      RunTool("hwt-batch", {"run", "-q", "-o", two, caps_ / "x", caps_ / "y"})
          .exit_code,
      0);
  // The same program twice: no share changed, every count doubled.
  auto shares = RunTool("hwt-batch", {"diff", one, two, "--fail-above", "0.1"});
  EXPECT_EQ(shares.exit_code, 0) << shares.out << shares.err;
  auto absolute =
      RunTool("hwt-batch", {"diff", "--absolute", "--format", "json", one, two,
                            "--fail-above", "50", "--function", "^leaf$"});
  EXPECT_EQ(absolute.exit_code, 1) << absolute.out << absolute.err;
  auto json = nlohmann::json::parse(absolute.out, nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << absolute.out;
  EXPECT_THAT(absolute.out, HasSubstr("leaf"));
  auto gate = RunTool("hwt-batch",
                      {"diff", "--absolute", one, two, "--fail-above", "101"});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;  // +100%, not more
}

TEST_F(HwtBatchTest, BadUsageAndUnwritableOutputs) {
  auto none = RunTool("hwt-batch", {"run", "-o", dir_ / "out"});
  EXPECT_EQ(none.exit_code, 2);
  auto missing =
      RunTool("hwt-batch", {"run", "-o", dir_ / "out", dir_ / "no-such-dir"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("no-such-dir"));
  EXPECT_FALSE(fs::exists(dir_ / "out/merged.hwtprof"));

  // OUTDIR is a file: exit 3, the file untouched.
  ASSERT_TRUE(WriteFileAtomically(dir_ / "file", "keep\n").ok());
  auto blocked =
      RunTool("hwt-batch", {"run", "-o", dir_ / "file", caps_ / "x"});
  EXPECT_EQ(blocked.exit_code, 3) << blocked.err;
  EXPECT_EQ(ReadTextOrFail(dir_ / "file"), "keep\n");

  // A profile that is not one: merge refuses it, writes nothing.
  ASSERT_TRUE(WriteFileAtomically(dir_ / "bad.hwtprof", "junk").ok());
  auto merge = RunTool(
      "hwt-batch", {"merge", "-o", dir_ / "m.hwtprof", dir_ / "bad.hwtprof"});
  EXPECT_EQ(merge.exit_code, 2);
  EXPECT_THAT(merge.err, HasSubstr("bad.hwtprof"));
  EXPECT_FALSE(fs::exists(dir_ / "m.hwtprof"));
}

}  // namespace
}  // namespace hwt
