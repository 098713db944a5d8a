// Helpers of the export round-trip tests: finding the consumer tools
// (missing: the test says so and skips, or fails under CI=true), running
// them, and reading what they print.
#ifndef HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_
#define HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/testing/test_env.h"

namespace hwt::export_test {

// The tool's path on PATH, or nullopt.
std::optional<std::string> FindTool(const std::string& name);
// Whether CI=true (a missing consumer then fails instead of skipping).
bool InCi();

// Runs argv; on a non-zero exit the result's `err` says so with the
// command line.
testing::CommandResult RunTool(const std::vector<std::string>& argv,
                               int timeout_seconds = 600);

// A text sample profile (llvm-profdata merge --text), per top-level
// function: its header and lines, without zero-count lines and without
// inlined call sites whose total is 0 (with their bodies).
std::map<std::string, std::vector<std::string>> ReadSampleProfileText(
    const std::string& text);

}  // namespace hwt::export_test

// Skips (or fails under CI=true) the current test when `name` is not on
// PATH; else declares `var` as its path.
#define HWT_REQUIRE_TOOL(var, name)                                        \
  auto var##_opt = ::hwt::export_test::FindTool(name);                     \
  if (!var##_opt) {                                                        \
    if (::hwt::export_test::InCi()) {                                      \
      FAIL() << name << " is not installed (scripts/setup.sh --test)";     \
    }                                                                      \
    GTEST_SKIP() << name << " is not installed (scripts/setup.sh --test)"; \
  }                                                                        \
  const std::string var = *var##_opt

#endif  // HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_
