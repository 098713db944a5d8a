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
// std::nullopt when absent. Tests use HWT_REQUIRE_CORPUS below, not this.
std::optional<std::string> CorpusDir();

// --- What tests need, and CI ------------------------------------------------
//
// Outside CI a test whose corpus or tool is missing skips, saying so. In CI
// (the CI environment variable set to anything but "" "0" "false", as CI
// services and .ci/run set it) the same test fails: a green CI run must mean
// every check ran. docs/reliability.md ("No silent skips") has the rules.

// True when running in CI.
bool InCi();

// What a test may do about something it needs.
struct Requirement {
  enum Outcome { kMet, kSkip, kFail };
  Outcome outcome = kMet;
  std::string message;  // why not met
};

// The shared corpus, checked against testdata/corpus.sha256: absent ->
// kSkip (kFail in CI); present but a listed file missing -> kFail, naming
// the first one. (File contents are checked by the `corpus_checksums` test,
// once per run, rather than by every test process.) `dir` receives the
// corpus directory when met.
Requirement CheckCorpus(std::string* dir);

// A program on PATH (or an absolute path). It must be listed in
// .ci/required-tools (the list CI checks before building, with the package
// that installs it); an unlisted tool is kFail everywhere, so a new test
// cannot need a tool CI does not know of.
Requirement CheckTool(const std::string& tool);

// Something else a test needs (a tool built in this tree, a cross build that
// worked): kSkip with `message`, kFail in CI.
Requirement SkipOutsideCi(const std::string& message);

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal (see `signal`).
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs argv (no shell) with a timeout in seconds, capturing stdout/stderr.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         int timeout_seconds = 300);

// Runs the hwt tool `tool` (ToolPath) with `args`, as RunCommand does.
CommandResult RunTool(const std::string& tool, std::vector<std::string> args,
                      int timeout_seconds = 300);

// The text of the file at `path`; a failed expectation naming the problem
// (and "") when it cannot be read.
std::string ReadTextOrFail(const std::string& path);

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
// the diff is reviewed. In CI, HWT_UPDATE_GOLDEN fails the test instead.
void ExpectMatchesGolden(const std::string& actual, const std::string& path);

}  // namespace hwt::testing

// Acts on a Requirement in a test body (or SetUp): returns from it with a
// skip or a failure when the requirement is not met.
#define HWT_ACT_ON_REQUIREMENT(requirement)                              \
  do {                                                                   \
    const ::hwt::testing::Requirement hwt_requirement = (requirement);   \
    if (hwt_requirement.outcome == ::hwt::testing::Requirement::kFail) { \
      FAIL() << hwt_requirement.message;                                 \
    }                                                                    \
    if (hwt_requirement.outcome == ::hwt::testing::Requirement::kSkip) { \
      GTEST_SKIP() << hwt_requirement.message;                           \
    }                                                                    \
  } while (0)

// Declares `const std::string var`, the corpus directory; skips the test
// when the corpus is absent (fails in CI), fails when it is incomplete.
#define HWT_REQUIRE_CORPUS(var) \
  std::string var;              \
  HWT_ACT_ON_REQUIREMENT(::hwt::testing::CheckCorpus(&var))

// Skips (fails in CI) unless `tool` is installed; see CheckTool.
#define HWT_REQUIRE_TOOL(tool) \
  HWT_ACT_ON_REQUIREMENT(::hwt::testing::CheckTool(tool))

// Skips with `message` outside CI, fails in CI.
#define HWT_SKIP_OUTSIDE_CI(message) \
  HWT_ACT_ON_REQUIREMENT(::hwt::testing::SkipOutsideCi(message))

#endif  // HWT_BASE_TESTING_TEST_ENV_H_
