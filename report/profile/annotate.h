// --annotate: a function's disassembly with the exact number of times each
// instruction ran, taken / not-taken counts for every conditional branch,
// direct branch targets by name, and the source file:line (from DWARF, with
// the inlined function when there is one) wherever it changes.
#ifndef HWT_REPORT_PROFILE_ANNOTATE_H_
#define HWT_REPORT_PROFILE_ANNOTATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "report/naming/symbolized_profile.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

struct AnnotateOptions {
  // Matches beyond this many (by instructions executed) are listed by name
  // only.
  size_t max_functions = 10;
};

// One instruction of an annotated function, with its exact counts.
struct AnnotatedInstruction {
  uint64_t address = 0;
  std::string text;    // the disassembly, with " <target+0x..>" when direct
  std::string source;  // "file:line (inlined f)" where it changes, else ""
  uint64_t count = 0;  // times executed
  // A conditional branch that was reached: taken and not-taken counts.
  bool branch_counts = false;
  uint64_t taken = 0, not_taken = 0;
  bool never_reached = false;  // a conditional branch that never ran
};

// A function's annotated disassembly: what --annotate prints (text) and the
// HTML report shows (its rows).
struct AnnotatedFunction {
  std::string name, image;  // image: base name
  uint32_t image_id = 0;
  uint64_t start = 0, end = 0;
  uint64_t executed = 0;          // instructions executed in [start, end)
  uint64_t all_instructions = 0;  // of the whole profile
  bool has_stats = false;         // the profile has the function's frame:
  uint64_t calls = 0, self = 0, total = 0;
  std::string no_code;  // why there is no disassembly ("" when there is)
  std::vector<AnnotatedInstruction> instructions;
};

// Instructions executed in [start, end) of `image`.
uint64_t InstructionsExecuted(const analysis::BlockExpansion& expansion,
                              uint32_t image, uint64_t start, uint64_t end);

// Reads, disassembles and counts one function, reusing the disassemblers
// of earlier calls.
class FunctionAnnotator {
 public:
  FunctionAnnotator(symbolizer::Symbolizer& symbolizer,
                    const analysis::Profile& profile,
                    const analysis::BlockExpansion& expansion,
                    ProfileNames& names);
  ~FunctionAnnotator();
  AnnotatedFunction Annotate(const symbolizer::FunctionMatch& match);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The text --annotate prints for one function.
std::string RenderAnnotatedFunction(const AnnotatedFunction& function);

// Annotates the functions named `pattern`: an exact name (or raw symbol
// name) if any function has it, else a POSIX extended regex. Errors:
// NotFound when nothing matches, InvalidArgument for a bad regex.
absl::StatusOr<std::string> AnnotateFunctions(
    const std::string& pattern, symbolizer::Symbolizer& symbolizer,
    const analysis::Profile& profile, const analysis::BlockExpansion& expansion,
    ProfileNames& names, const AnnotateOptions& options = {});

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_ANNOTATE_H_
