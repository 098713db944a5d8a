// Test program builder; see test_programs.h.
#include "symbolizer/test_programs.h"

#include <cstdlib>
#include <map>
#include <optional>

#include "base/file_util.h"
#include "symbolizer/test_util.h"

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
  static std::map<std::string, std::string> built;
  auto it = built.find(output);
  if (it != built.end()) return it->second;
  const std::string path = BuildDir() + "/" + output;
  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(TestSource(source));
  argv.push_back("-o");
  argv.push_back(path);
  if (!Run(argv, nullptr, error)) return "";
  built[output] = path;
  return path;
}

}  // namespace hwt::symbolizer::testing
