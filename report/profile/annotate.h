// --annotate: a function's disassembly with the exact number of times each
// instruction ran, taken / not-taken counts for every conditional branch,
// direct branch targets by name, and the source file:line (from DWARF, with
// the inlined function when there is one) wherever it changes.
#ifndef HWT_REPORT_PROFILE_ANNOTATE_H_
#define HWT_REPORT_PROFILE_ANNOTATE_H_

#include <string>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "report/profile/symbolized_profile.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

struct AnnotateOptions {
  // Matches beyond this many (by instructions executed) are listed by name
  // only.
  size_t max_functions = 10;
};

// Annotates the functions named `pattern`: an exact name (or raw symbol
// name) if any function has it, else a POSIX extended regex. Errors:
// NotFound when nothing matches, InvalidArgument for a bad regex.
absl::StatusOr<std::string> AnnotateFunctions(
    const std::string& pattern, symbolizer::Symbolizer& symbolizer,
    const analysis::Profile& profile, const analysis::BlockExpansion& expansion,
    ProfileNames& names, const AnnotateOptions& options = {});

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_ANNOTATE_H_
