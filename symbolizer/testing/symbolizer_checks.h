// Helpers of the symbolizer tests that compare with binutils: building the
// test programs, a symbolizer kept away from the machine's debug files, the
// brute-force function rule over readelf/objdump output and the check of
// FunctionFor() against it at every probe address.
#ifndef HWT_SYMBOLIZER_TESTING_SYMBOLIZER_CHECKS_H_
#define HWT_SYMBOLIZER_TESTING_SYMBOLIZER_CHECKS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symbolizer/symbolizer.h"
#include "symbolizer/testing/binutils_truth.h"

namespace hwt::symbolizer::testing {

// BuildProgram, with a test failure (and "") when the compiler fails.
std::string MustBuild(const std::string& output, const std::string& source,
                      const std::vector<std::string>& flags,
                      const std::string& compiler = "gcc");

// A symbolizer whose sysroot keeps the machine's /usr/lib/debug out unless
// `options` names one.
std::unique_ptr<Symbolizer> MakeSymbolizer(SymbolizerOptions options = {});

// The rule applied by brute force to `table` of `symbols_file` plus the PLT
// labels objdump prints for `image_file`.
NaiveFunctionRule NaiveRule(const std::string& symbols_file,
                            const std::string& table,
                            const std::string& image_file,
                            const std::string& objdump = "objdump");

// Every byte of the executable sections, plus the rule's own probes.
std::vector<uint64_t> ProbesFor(const std::string& file,
                                const NaiveFunctionRule& rule);

// FunctionFor() agrees with the brute-force rule at every probe (test
// failures for the first 20 that do not).
void ExpectMatchesRule(const Symbolizer& symbolizer, uint32_t image,
                       const NaiveFunctionRule& rule,
                       const std::vector<uint64_t>& probes);

// The .symtab value of function `name` in `file` (a test failure and 0 when
// it is not there).
uint64_t SymbolValue(const std::string& file, const std::string& name);

// inline_prog.c built with -g -O2, and the instruction addresses of its
// functions compute, hash_args and main.
std::string InlineProgram();
std::vector<uint64_t> InlineProgramAddresses(const std::string& prog);

}  // namespace hwt::symbolizer::testing

#endif  // HWT_SYMBOLIZER_TESTING_SYMBOLIZER_CHECKS_H_
