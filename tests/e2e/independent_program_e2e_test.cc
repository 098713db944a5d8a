// A program that is not in the repository, recorded by the independent
// recorder: the test writes a new C program (word counting in a hash table,
// qsort, an insertion sort, a recursive checksum) into a temporary
// directory, builds it static with gcc, records it with the VALGRIND
// recorder (not the ptrace one the other e2e tests use) through
// RecordCapture, and writes the raw PT stream as hwt(8) saves it. Then the
// tools run as a user runs them:
//   hwt-decode --stats --format json --cpu 6/85/4 --image PROG trace.pt
//   hwt-decode --stats --format json CAPTURE
//   hwt-report --folded --no-inline --cpu 6/85/4 --image PROG trace.pt
// and their results must equal the valgrind recording: instruction count,
// no errors, no lost bytes, the folded stacks of truth/ byte for byte. The
// libraries are checked on the bundle too (instruction sequence, profile).
#include <sys/stat.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "recorder/emulate.h"
#include "recorder/testing/test_programs.h"
#include "tests/e2e/testing/e2e_pipeline.h"

namespace hwt::e2e {
namespace {

// Written for this test only; deterministic (no clock, no addresses).
constexpr char kProgram[] = R"(#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  char key[16];
  int count;
  struct entry *next;
};

static struct entry *buckets[32];
static struct entry pool[64];
static int used;

static unsigned hash_word(const char *s) {
  unsigned h = 2166136261u;
  while (*s) {
    h ^= (unsigned char)*s++;
    h *= 16777619u;
  }
  return h;
}

static struct entry *find_or_add(const char *word) {
  unsigned b = hash_word(word) % 32;
  for (struct entry *e = buckets[b]; e != NULL; e = e->next) {
    if (strcmp(e->key, word) == 0) return e;
  }
  struct entry *e = &pool[used++];
  strncpy(e->key, word, sizeof e->key - 1);
  e->next = buckets[b];
  buckets[b] = e;
  return e;
}

static int by_count_then_key(const void *a, const void *b) {
  const struct entry *x = *(const struct entry *const *)a;
  const struct entry *y = *(const struct entry *const *)b;
  if (x->count != y->count) return y->count - x->count;
  return strcmp(x->key, y->key);
}

static void insertion_sort(int *v, int n) {
  for (int i = 1; i < n; ++i) {
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = x;
  }
}

static unsigned checksum(const int *v, int n) {
  if (n == 1) return (unsigned)v[0];
  int half = n / 2;
  return checksum(v, half) * 31u + checksum(v + half, n - half);
}

int main(void) {
  static const char *words[] = {"alpha", "beta", "gamma", "delta",
                                "epsilon", "zeta", "eta", "theta",
                                "iota", "kappa", "lambda", "mu"};
  unsigned seed = 12345;
  for (int i = 0; i < 300; ++i) {
    seed = seed * 1103515245u + 12345u;
    find_or_add(words[(seed >> 16) % 12])->count++;
  }
  struct entry *sorted[64];
  int n = 0;
  for (int b = 0; b < 32; ++b) {
    for (struct entry *e = buckets[b]; e != NULL; e = e->next) sorted[n++] = e;
  }
  qsort(sorted, n, sizeof sorted[0], by_count_then_key);
  int values[64];
  for (int i = 0; i < 64; ++i) values[i] = (i * 37 + 11) % 101;
  insertion_sort(values, 64);
  printf("%s %d %u\n", sorted[0]->key, sorted[0]->count,
         checksum(values, 64));
  return 0;
}
)";

bool ToolBuilt(const std::string& tool) {
  struct stat st;
  return stat(hwt::testing::ToolPath(tool).c_str(), &st) == 0;
}

class IndependentProgramTest : public ::testing::Test {
 protected:
  // A tool the test runs: without it the test is skipped before recording.
  explicit IndependentProgramTest(std::string tool = "")
      : tool_(std::move(tool)) {}

  void SetUp() override {
    if (!tool_.empty() && !ToolBuilt(tool_)) {
      HWT_SKIP_OUTSIDE_CI(hwt::testing::ToolPath(tool_) +
                          " is not built in this tree");
    }
    HWT_REQUIRE_VALGRIND();
    auto dir = TempDir::Create("hwt-e2e-independent");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    const std::string source = dir_->path() + "/wordsort.c";
    program_ = dir_->path() + "/wordsort";
    ASSERT_TRUE(WriteFileAtomically(source, kProgram).ok());
    auto gcc = hwt::testing::RunCommand(
        {"gcc", "-O2", "-static", "-o", program_, source}, 120);
    ASSERT_EQ(gcc.exit_code, 0) << gcc.err;

    recorder::EmulateOptions options;
    options.argv = {program_};
    options.recorder = recorder::RecorderKind::kValgrind;
    options.cpu = recorder::DefaultEmulatedCpu();
    options.bundle = dir_->path() + "/wordsort.hwt";
    options.raw_trace = dir_->path() + "/trace.pt";
    options.stdout_path = dir_->path() + "/stdout.txt";
    options.log = &log_;
    auto result = recorder::RecordCapture(options);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->recording.exit_status, 0);
    // lackey's own count of guest instructions (rep iterations each) backs
    // the reconstruction; the sequence is what the trace must reproduce.
    ASSERT_GT(result->recording.guest_instructions, 0u);
    instructions_ = result->truth_instructions;
    ASSERT_EQ(instructions_, log_.instructions().size());
    bundle_ = options.bundle;
    raw_ = options.raw_trace;
    auto truth = ReadTruth(bundle_);
    ASSERT_TRUE(truth.ok()) << truth.status();
    truth_ = *truth;
  }

  // Runs a tool; its stdout parsed as JSON.
  nlohmann::json RunJson(const std::vector<std::string>& argv) {
    auto run = hwt::testing::RunCommand(argv, 300);
    EXPECT_EQ(run.exit_code, 0) << absl::StrJoin(argv, " ") << "\n" << run.err;
    nlohmann::json j = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << run.out;
    return j;
  }

  // Checks hwt-decode's --stats JSON against the recording.
  void ExpectStats(const nlohmann::json& j) {
    ASSERT_TRUE(j.is_object()) << j.dump();
    ASSERT_TRUE(j.contains("total") && j.contains("streams")) << j.dump(2);
    EXPECT_EQ(j["total"]["instructions"].get<uint64_t>(), instructions_);
    EXPECT_EQ(j["total"]["errors"].get<uint64_t>(), 0u);
    EXPECT_EQ(j["total"]["bytes_lost"].get<uint64_t>(), 0u);
    ASSERT_EQ(j["streams"].size(), 1u);
    EXPECT_EQ(j["streams"][0]["instructions"].get<uint64_t>(), instructions_);
  }

  std::string tool_;
  std::unique_ptr<TempDir> dir_;
  std::string program_;
  std::string bundle_;
  std::string raw_;
  recorder::ExecutionLog log_;
  uint64_t instructions_ = 0;
  Truth truth_;
};

TEST_F(IndependentProgramTest, LibrariesReproduceTheValgrindRecording) {
  absl::StatusOr<Decoded> decoded = DecodeInstructions(bundle_);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->total_errors(), 0u);
  EXPECT_EQ(SequenceDifference(decoded->instructions, log_.instructions()), "");
  // The raw trace with the program given as an image decodes the same.
  capture::InputOptions raw;
  raw.cpu = recorder::DefaultEmulatedCpu();
  raw.images.push_back({program_, 0});
  absl::StatusOr<Decoded> from_raw = DecodeInstructions(raw_, raw);
  ASSERT_TRUE(from_raw.ok()) << from_raw.status();
  EXPECT_EQ(SequenceDifference(from_raw->instructions, log_.instructions()),
            "");

  absl::StatusOr<Profiled> profiled = ProfileWithSymbols(bundle_);
  ASSERT_TRUE(profiled.ok()) << profiled.status();
  EXPECT_EQ(TextDifference(profiled->folded, truth_.folded), "");
  EXPECT_TRUE(profiled->functions == truth_.functions);
  EXPECT_TRUE(profiled->call_edges == truth_.call_edges);
}

class IndependentProgramHwtDecodeTest : public IndependentProgramTest {
 protected:
  IndependentProgramHwtDecodeTest() : IndependentProgramTest("hwt-decode") {}
};

TEST_F(IndependentProgramHwtDecodeTest, CountsEveryInstruction) {
  const std::string tool = hwt::testing::ToolPath("hwt-decode");
  {
    SCOPED_TRACE("raw trace");
    ExpectStats(RunJson({tool, "--stats", "--format", "json", "--cpu", "6/85/4",
                         "--image", program_, raw_}));
  }
  {
    SCOPED_TRACE("bundle");
    ExpectStats(RunJson({tool, "--stats", "--format", "json", bundle_}));
  }
}

class IndependentProgramHwtReportTest : public IndependentProgramTest {
 protected:
  IndependentProgramHwtReportTest() : IndependentProgramTest("hwt-report") {}
};

TEST_F(IndependentProgramHwtReportTest, FoldsLikeTheTruth) {
  // The program has no DWARF (built without -g): no inline frames either
  // way; --no-inline says so explicitly.
  auto run = hwt::testing::RunCommand(
      {hwt::testing::ToolPath("hwt-report"), "--folded", "--no-inline", "--cpu",
       "6/85/4", "--image", program_, raw_},
      300);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(TextDifference(run.out, truth_.folded), "");
}

}  // namespace
}  // namespace hwt::e2e
