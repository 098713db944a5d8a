// What changed between two profiles (hwt-batch diff, hwt-report --diff):
// functions matched by name and image (build-ids differ between two
// versions of a program, names do not), each with its weight on both sides
// as a share of that side's total (the default) or as raw counts; the
// regression gate over them; and for the differential flame graph the
// change of every stack of the new profile (FlameGraph's difffolded model:
// the new profile's shape, coloured by growth). Counts are exact, so a
// difference is never noise.
#ifndef HWT_REPORT_TREE_PROFILE_DIFF_H_
#define HWT_REPORT_TREE_PROFILE_DIFF_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/saved/saved_profile.h"
#include "nlohmann/json.hpp"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {

struct DiffOptions {
  bool absolute = false;  // raw counts instead of shares of each total
  size_t rows = 20;       // rows printed (0 = all)
};

struct FunctionDiff {
  std::string name;
  std::string image;  // base name
  uint64_t base_self = 0, new_self = 0;
  uint64_t base_total = 0, new_total = 0;
  double base_share = 0, new_share = 0;  // self, percent of each side's total
  // Shares: new_share - base_share (percentage points). Absolute: new_self -
  // base_self.
  double change = 0;
};

struct ProfileDiff {
  uint64_t base_total = 0;  // instructions of each side
  uint64_t new_total = 0;
  bool absolute = false;
  // By |change| (largest first), then name and image.
  std::vector<FunctionDiff> functions;
};

// Functions of both profiles' merged trees, by instructions executed.
ProfileDiff DiffProfiles(const analysis::SavedProfile& base,
                         const analysis::SavedProfile& now,
                         const DiffOptions& options);

std::string RenderDiffText(const ProfileDiff& diff, const DiffOptions& options);
nlohmann::json DiffJson(const ProfileDiff& diff, const DiffOptions& options);

// The regression gate: functions (whose name matches `function_regex`, all
// when empty) that grew by more than `percent`: shares by more than that
// many percentage points; absolute counts by more than that percent of
// their base count (any growth from zero counts). Errors: a bad regex.
absl::StatusOr<std::vector<FunctionDiff>> Regressions(
    const ProfileDiff& diff, double percent, const std::string& function_regex);

// Per node of `now` (a named tree of the new profile), its total minus the
// total of the same stack in `base` (frames matched by name, image and
// inlining); shares are rescaled to the new total unless `absolute`. What
// the differential flame graph colours by.
std::vector<int64_t> StackDeltas(const NamedTree& now,
                                 const FrameTable& now_frames,
                                 const NamedTree& base,
                                 const FrameTable& base_frames, bool absolute);

// flamegraph.pl's difffolded input: "STACK BASE NEW" per stack of either
// tree (self weights), sorted by stack.
std::string DiffFolded(const NamedTree& base, const FrameTable& base_frames,
                       const NamedTree& now, const FrameTable& now_frames);

}  // namespace hwt::report

#endif  // HWT_REPORT_TREE_PROFILE_DIFF_H_
