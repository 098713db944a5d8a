// Builds the test programs of testdata/symbolizer with the system gcc/g++ or
// clang, once: they are cached under the build tree. BuildDir() is a scratch
// directory per test process, removed at exit.
#ifndef HWT_SYMBOLIZER_TESTING_TEST_PROGRAMS_H_
#define HWT_SYMBOLIZER_TESTING_TEST_PROGRAMS_H_

#include <string>
#include <vector>

namespace hwt::symbolizer::testing {

// The directory holding built programs (created on first use).
const std::string& BuildDir();

// Compiles testdata/symbolizer/`source` with `compiler` and `flags` (once:
// later calls, also from other processes, return the cached file, whose name
// starts with `output`). Returns "" and sets *error when the compiler fails.
std::string BuildProgram(const std::string& output, const std::string& source,
                         const std::vector<std::string>& flags,
                         std::string* error,
                         const std::string& compiler = "gcc");

}  // namespace hwt::symbolizer::testing

#endif  // HWT_SYMBOLIZER_TESTING_TEST_PROGRAMS_H_
