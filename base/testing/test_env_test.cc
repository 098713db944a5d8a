// Tests of what tests need (base/testing/test_env.h): a missing corpus or
// tool skips outside CI and fails in CI, an incomplete corpus and a tool not
// on .ci/required-tools fail everywhere, and HWT_UPDATE_GOLDEN fails in CI.
// Each case runs in a child, because the corpus check is made once per
// process and the environment is changed.
#include "base/testing/test_env.h"

#include <cstdlib>
#include <string>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt::testing {
namespace {

// Runs `check` in a child with CI set to `ci`; true when it returned true.
bool InChild(const char* ci, const std::function<bool()>& check) {
  return RunsInChild(
      [&] {
        if (ci == nullptr) {
          unsetenv("CI");
        } else {
          setenv("CI", ci, 1);
        }
        return check() ? 0 : 1;
      },
      60);
}

TEST(TestEnvTest, CiIsTheCiVariable) {
  EXPECT_TRUE(InChild("true", [] { return InCi(); }));
  EXPECT_TRUE(InChild("1", [] { return InCi(); }));
  EXPECT_TRUE(InChild(nullptr, [] { return !InCi(); }));
  EXPECT_TRUE(InChild("", [] { return !InCi(); }));
  EXPECT_TRUE(InChild("false", [] { return !InCi(); }));
  EXPECT_TRUE(InChild("0", [] { return !InCi(); }));
}

TEST(TestEnvTest, AbsentCorpusSkipsOutsideCiAndFailsInCi) {
  auto absent = [](Requirement::Outcome want) {
    return [want] {
      setenv("HWT_CORPUS_DIR", "/nonexistent/hwt-corpus", 1);
      std::string dir;
      const Requirement r = CheckCorpus(&dir);
      return r.outcome == want && dir.empty() &&
             r.message.find("shared corpus") != std::string::npos;
    };
  };
  EXPECT_TRUE(InChild(nullptr, absent(Requirement::kSkip)));
  EXPECT_TRUE(InChild("true", absent(Requirement::kFail)));
}

TEST(TestEnvTest, IncompleteCorpusFailsNamingTheFirstMissingFile) {
  auto dir = TempDir::Create("hwt-test-env");
  ASSERT_TRUE(dir.ok());
  const std::string corpus = dir->path();
  // An empty folder: every file of testdata/corpus.sha256 is missing.
  EXPECT_TRUE(InChild(nullptr, [&] {
    setenv("HWT_CORPUS_DIR", corpus.c_str(), 1);
    std::string found;
    const Requirement r = CheckCorpus(&found);
    return r.outcome == Requirement::kFail &&
           r.message.find("is incomplete: ") != std::string::npos &&
           r.message.find("is missing") != std::string::npos;
  }));
}

TEST(TestEnvTest, ToolsMustBeListedAndInstalled) {
  // Listed and installed.
  EXPECT_TRUE(InChild("true", [] {
    return CheckTool("python3").outcome == Requirement::kMet;
  }));
  // Not listed: fails everywhere, saying where to add it.
  for (const char* ci : {static_cast<const char*>(nullptr), "true"}) {
    EXPECT_TRUE(InChild(ci, [] {
      const Requirement r = CheckTool("cat");
      return r.outcome == Requirement::kFail &&
             r.message.find(".ci/required-tools") != std::string::npos;
    }));
  }
  // Listed but not on PATH: skip outside CI, fail in CI, naming the package.
  auto hidden = [](Requirement::Outcome want) {
    return [want] {
      setenv("PATH", "/nonexistent/hwt-bin", 1);
      const Requirement r = CheckTool("dot");
      return r.outcome == want &&
             r.message.find("package graphviz") != std::string::npos;
    };
  };
  EXPECT_TRUE(InChild(nullptr, hidden(Requirement::kSkip)));
  EXPECT_TRUE(InChild("true", hidden(Requirement::kFail)));
}

TEST(TestEnvTest, SkipOutsideCi) {
  EXPECT_TRUE(InChild(nullptr, [] {
    return SkipOutsideCi("x").outcome == Requirement::kSkip;
  }));
  EXPECT_TRUE(InChild(
      "true", [] { return SkipOutsideCi("x").outcome == Requirement::kFail; }));
}

TEST(TestEnvTest, UpdatingGoldensInCiFailsAndWritesNothing) {
  auto dir = TempDir::Create("hwt-test-env");
  ASSERT_TRUE(dir.ok());
  const std::string golden = dir->path() + "/g.txt";
  ASSERT_TRUE(WriteFileAtomically(golden, "reviewed\n").ok());
  // Leaves the test failed; the child reports it through its exit status.
  EXPECT_FALSE(InChild("true", [&] {
    setenv("HWT_UPDATE_GOLDEN", "1", 1);
    ExpectMatchesGolden("new\n", golden);
    return !::testing::Test::HasFailure();
  }));
  auto kept = ReadFileToString(golden);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, "reviewed\n");
}

}  // namespace
}  // namespace hwt::testing
