// Helpers of the export round-trip tests: requiring the consumer tools
// (base/testing/test_env.h: missing, the test skips, or fails in CI),
// running them, and reading what they print.
#ifndef HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_
#define HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_

#include <map>
#include <string>
#include <vector>

#include "base/testing/test_env.h"

namespace hwt::export_test {

// Met when the npm package directory `path` is there; else the outcome of
// testing::SkipOutsideCi.
testing::Requirement JsPackage(const std::string& path);

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

// Requires `tool` (HWT_REQUIRE_TOOL: listed in .ci/required-tools; missing,
// the test skips, or fails in CI), then declares `var` as its name.
#define HWT_REQUIRE_CONSUMER(var, tool) \
  HWT_REQUIRE_TOOL(tool);               \
  const std::string var = tool

// Requires the pinned JavaScript package at `path` (under
// tests/js/node_modules, installed by scripts/setup.sh --test with npm ci):
// skips without it, fails in CI.
#define HWT_REQUIRE_JS_PACKAGE(path) \
  HWT_ACT_ON_REQUIREMENT(::hwt::export_test::JsPackage(path))

#endif  // HWT_TESTS_EXPORT_TESTING_CONSUMERS_H_
