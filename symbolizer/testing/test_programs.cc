// Test program builder; see test_programs.h.
#include "symbolizer/testing/test_programs.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/testing/test_env.h"
#include "symbolizer/testing/binutils_truth.h"

namespace hwt::symbolizer::testing {

const std::string& BuildDir() {
  static TempDir dir = [] {
    auto created = TempDir::Create("hwt-symbolizer-test");
    if (!created.ok()) std::abort();
    return std::move(*created);
  }();
  return dir.path();
}

std::string BuildProgram(const std::string& output, const std::string& source,
                         const std::vector<std::string>& flags,
                         std::string* error, const std::string& compiler) {
  // Programs are cached in the build tree, keyed by compiler, flags and
  // source text, so that the many test processes ctest starts compile each
  // program once.
  auto text = ReadFileToString(TestSource(source));
  if (!text.ok()) {
    if (error != nullptr) *error = std::string(text.status().message());
    return "";
  }
  std::string key = compiler + '\0' + *text;
  for (const std::string& flag : flags) key += '\0' + flag;
  const std::string dir =
      hwt::testing::BinaryDir() + "/symbolizer/test_programs";
  std::filesystem::create_directories(dir);
  const std::string path = absl::StrFormat("%s/%s.%016x", dir, output,
                                           std::hash<std::string>()(key));
  if (access(path.c_str(), R_OK) == 0) return path;
  const std::string temp = absl::StrFormat("%s.tmp.%d", path, getpid());
  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(TestSource(source));
  argv.push_back("-o");
  argv.push_back(temp);
  if (!Run(argv, nullptr, error)) {
    std::remove(temp.c_str());
    return "";
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    if (error != nullptr) *error = "cannot rename " + temp;
    return "";
  }
  return path;
}

}  // namespace hwt::symbolizer::testing
