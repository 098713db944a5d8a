// The frame matchers behind the tree filters of --function (a regex over
// frame names) and --only-image (an image's base name or path), answered
// once per frame or image and cached, for SubtreesAt and StacksThrough
// (profile_filter.h).
#ifndef HWT_REPORT_TREE_FRAME_MATCHERS_H_
#define HWT_REPORT_TREE_FRAME_MATCHERS_H_

#include <string>

#include "absl/status/statusor.h"
#include "report/naming/symbolized_profile.h"
#include "report/tree/profile_filter.h"

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

}  // namespace hwt::report

#endif  // HWT_REPORT_TREE_FRAME_MATCHERS_H_
