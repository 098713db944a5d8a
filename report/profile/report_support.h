// Glue the report front ends share, kept out of the tools: frame matchers
// for --function (a regex over frame names) and --image (an image's base
// name), the weight unit of a profile (instructions, or time in ns or
// timestamp ticks), and the default output file name next to the input.
#ifndef HWT_REPORT_PROFILE_REPORT_SUPPORT_H_
#define HWT_REPORT_PROFILE_REPORT_SUPPORT_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/manifest.h"
#include "decoders/decoder.h"
#include "report/profile/call_timeline.h"
#include "report/profile/profile_filter.h"
#include "report/profile/symbolized_profile.h"

namespace hwt::report {

// Matches frames whose name contains a match of `regex` (POSIX extended,
// as --annotate and the symbolizer's FindFunctions). Errors: a bad regex.
absl::StatusOr<FrameMatcher> FunctionNameMatcher(const std::string& regex,
                                                 ProfileNames& names);
// Whether an image's `path` is what --image/--only-image named: the full
// path or its base name.
bool ImagePathMatches(const std::string& path, const std::string& image);
// Matches frames of the image whose base name (or full path) is `image`.
FrameMatcher ImageMatcher(const std::string& image, ProfileNames& names);

// --min-width: "0.1" pixels, or "0.5%" of a flame graph `width` pixels wide
// (less its margins). std::nullopt when the text is neither.
std::optional<double> ParseMinWidth(const std::string& text, int width);

// Speedscope's thread names: the stream's name ("buffer 0 (thread 0)"), in
// CPU mode with the context ID the thread ran under.
std::vector<std::string> SpeedscopeThreadNames(
    const CallTimeline& timeline, const std::vector<StreamInfo>& streams,
    bool cpu_mode);

// What a profile's weights count and how to show them.
struct WeightUnit {
  Weight weight = Weight::kInstructions;
  std::string name = "instructions";  // "ns", "ticks"
  double scale = 1.0;                 // weights -> displayed values
  std::string speedscope_unit = "none";
};
// Time when `use_time` and the profile has timing: in ns when the capture
// knows its timestamp frequency (PT TSC: nominal frequency), else in
// timestamp ticks.
WeightUnit ChooseWeightUnit(bool use_time, bool has_time,
                            const capture::Manifest& manifest);

// NAME.SUFFIX in the current directory for input .../NAME.hwt (or NAME.tar,
// NAME.tar.zst, NAME/, NAME.raw): where SVG/JSON goes when stdout is a
// terminal.
std::string DefaultOutputName(const std::string& input,
                              const std::string& suffix);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_REPORT_SUPPORT_H_
