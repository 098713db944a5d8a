// Report filters. Over events, before profiling (EventFilter: one stream, a
// range of trace positions, a range of time): the profile then holds only
// that part of the execution, with stacks rebuilt from where it starts. Over
// a finished call tree (the post-passes behind --function and --image):
// the subtrees rooted at matching frames, or the stacks that pass through a
// matching frame (analysis/tree_functions.h gives any tree's functions, so
// that tables and call graphs follow the filtered tree).
#ifndef HWT_REPORT_TREE_PROFILE_FILTER_H_
#define HWT_REPORT_TREE_PROFILE_FILTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/frame.h"
#include "analysis/profile.h"
#include "decoders/event.h"

namespace hwt::report {

struct EventFilter {
  std::optional<uint32_t> stream;  // --thread N
  // [first, last) trace byte offsets in each buffer's raw file (--range).
  std::optional<std::pair<uint64_t, uint64_t>> offsets;
  // [first, last) timestamps (--time), in the trace's own time unit.
  std::optional<std::pair<uint64_t, uint64_t>> times;

  bool empty() const { return !stream && !offsets && !times; }
  bool Keep(uint32_t stream_id, const Event& event) const {
    if (stream && stream_id != *stream) return false;
    if (offsets &&
        (event.offset < offsets->first || event.offset >= offsets->second)) {
      return false;
    }
    if (times && (event.time < times->first || event.time >= times->second)) {
      return false;
    }
    return true;
  }
};

// "START:END" with decimal or 0x-hex numbers; either may be empty (open).
absl::StatusOr<std::pair<uint64_t, uint64_t>> ParseRange(
    const std::string& text);

using FrameMatcher = std::function<bool(const analysis::FrameKey&)>;

// The subtrees rooted at the outermost frames that match (matching frames
// nested inside them stay in place), merged by frame under a new root.
// Block counts (node_blocks) follow their nodes.
analysis::CallTree SubtreesAt(const analysis::CallTree& tree,
                              const FrameMatcher& match);

// The stacks that contain a matching frame: nodes on paths to a matching
// frame stay (with no weight of their own unless a matching frame is at or
// above them), everything else goes.
analysis::CallTree StacksThrough(const analysis::CallTree& tree,
                                 const FrameMatcher& match);

}  // namespace hwt::report

#endif  // HWT_REPORT_TREE_PROFILE_FILTER_H_
