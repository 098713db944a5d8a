// Builds the test programs of testdata/symbolizer once per test binary into a
// temporary directory (removed at exit), with the system gcc/g++ or clang.
#ifndef HWT_SYMBOLIZER_TEST_PROGRAMS_H_
#define HWT_SYMBOLIZER_TEST_PROGRAMS_H_

#include <string>
#include <vector>

namespace hwt::symbolizer::testing {

// The directory holding built programs (created on first use).
const std::string& BuildDir();

// Compiles testdata/symbolizer/`source` with `compiler` and `flags` into
// BuildDir()/`output` (once; later calls return the cached path). Returns ""
// and sets *error when the compiler fails.
std::string BuildProgram(const std::string& output, const std::string& source,
                         const std::vector<std::string>& flags,
                         std::string* error,
                         const std::string& compiler = "gcc");

}  // namespace hwt::symbolizer::testing

#endif  // HWT_SYMBOLIZER_TEST_PROGRAMS_H_
