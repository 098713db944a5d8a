// Helpers for tests: where the repository, the build tree and the shared
// corpus are, and a way to run the project's tools as a user would.
#ifndef HWT_BASE_TESTING_TEST_ENV_H_
#define HWT_BASE_TESTING_TEST_ENV_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hwt::testing {

// The repository root (HWT_SOURCE_DIR at build time).
std::string SourceDir();
// The build tree root; tools are in BinaryDir() + "/tools".
std::string BinaryDir();
// Path of a tool built by this tree, e.g. ToolPath("hwt-decode").
std::string ToolPath(const std::string& name);
// ../shared/corpus relative to the repository root, or $HWT_CORPUS_DIR.
// std::nullopt when absent: tests then GTEST_SKIP() saying so.
std::optional<std::string> CorpusDir();

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal (see `signal`).
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs argv (no shell) with a timeout in seconds, capturing stdout/stderr.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         int timeout_seconds = 300);

// --- Running code in a child process ---------------------------------------

// Runs `fn` in a forked child process, so that code which may hang or crash
// fails the test instead of taking it down. Returns true when the child
// exited 0 within `seconds`; false when it failed, crashed, had to be killed,
// or could not be forked at all.
bool RunsInChild(const std::function<int()>& fn, int seconds);

// --- Golden files ----------------------------------------------------------

// Expects `actual` to equal the golden file at `path` (reviewed expected
// output). With HWT_UPDATE_GOLDEN set it rewrites the file instead and skips
// the test: output compared with the file it just wrote proves nothing until
// the diff is reviewed.
void ExpectMatchesGolden(const std::string& actual, const std::string& path);

}  // namespace hwt::testing

// Skips the current test when the shared corpus is not present.
#define HWT_REQUIRE_CORPUS(var)                                         \
  auto var##_opt = ::hwt::testing::CorpusDir();                         \
  if (!var##_opt) {                                                     \
    GTEST_SKIP() << "../shared/corpus not found (set HWT_CORPUS_DIR); " \
                    "skipping corpus test";                             \
  }                                                                     \
  const std::string var = *var##_opt

#endif  // HWT_BASE_TESTING_TEST_ENV_H_
