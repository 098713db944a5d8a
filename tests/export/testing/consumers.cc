// Helpers of the export round-trip tests.
#include "tests/export/testing/consumers.h"

#include <unistd.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hwt::export_test {

testing::Requirement JsPackage(const std::string& path) {
  if (access(path.c_str(), R_OK) == 0) return {};
  return testing::SkipOutsideCi(path +
                                " is missing: npm ci in tests/js has not run "
                                "(scripts/setup.sh --test)");
}

testing::CommandResult RunTool(const std::vector<std::string>& argv,
                               int timeout_seconds) {
  testing::CommandResult r = testing::RunCommand(argv, timeout_seconds);
  if (r.exit_code != 0) {
    r.err = absl::StrJoin(argv, " ") + " exited " +
            std::to_string(r.exit_code) + ":\n" + r.err;
  }
  return r;
}

std::map<std::string, std::vector<std::string>> ReadSampleProfileText(
    const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  std::vector<std::string>* current = nullptr;
  size_t skip_deeper_than = std::string::npos;  // inside a zero call site
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent > skip_deeper_than) continue;
    skip_deeper_than = std::string::npos;
    if (indent == 0) {
      const std::string name(line.substr(0, line.find(':')));
      current = &out[name];
      current->emplace_back(line);
      continue;
    }
    if (current == nullptr) continue;
    // "OFF: COUNT [targets]" or "OFF: NAME:TOTAL" (an inlined call site).
    const absl::string_view rest = line.substr(line.find(": ") + 2);
    const bool call_site = !rest.empty() && !absl::ascii_isdigit(rest[0]);
    if (!call_site && (rest == "0" || absl::StartsWith(rest, "0 "))) continue;
    if (call_site && rest.substr(rest.rfind(':') + 1) == "0") {
      skip_deeper_than = indent;
      continue;
    }
    current->emplace_back(line);
  }
  return out;
}

}  // namespace hwt::export_test
