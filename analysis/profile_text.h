// A complete, canonical text form of a Profile: every tree node, counter,
// block, edge and path. Golden tests compare it with expected files, and the
// segment-merge tests compare the text of a merged profile with the text of
// a sequential one byte for byte.
#ifndef HWT_ANALYSIS_PROFILE_TEXT_H_
#define HWT_ANALYSIS_PROFILE_TEXT_H_

#include <functional>
#include <string>

#include "analysis/frame.h"
#include "analysis/profile.h"

namespace hwt::analysis {

using FrameNameFn = std::function<std::string(const FrameKey&)>;

// `name` names frames (default: DescribeFrameKey).
std::string ProfileToText(const Profile& profile,
                          const FrameNameFn& name = nullptr);

// One line per node, indented by depth: "name calls=.. self=.. total=..".
std::string CallTreeToText(const CallTree& tree, const FrameNameFn& name);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_PROFILE_TEXT_H_
