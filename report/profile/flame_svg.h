// The interactive SVG flame graph, in flamegraph.pl's model: one
// self-contained SVG (CSS and an inline script, no external resources);
// each frame a <g> with a <title> tooltip "NAME (N instructions, P%)", a
// <rect> and its truncated <text>. Click zooms into a frame (its parents
// dimmed, "Reset Zoom" undoes), Ctrl-F / F3 or the Search button searches
// frame names by regular expression and shows the matched share, Ctrl-I or
// the "ic" button toggles case; zoom and search are kept in the URL
// (?f=FRAME&s=REGEX&i=1), so a link reopens the same view. Colours are
// stable per name (a hash) with a distinct hue per kind of code: the
// program, libc, ld.so, other libraries, the kernel, [unknown]/[gap].
#ifndef HWT_REPORT_PROFILE_FLAME_SVG_H_
#define HWT_REPORT_PROFILE_FLAME_SVG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "report/naming/symbolized_profile.h"

namespace hwt::report {

struct FlameOptions {
  std::string title = "Flame Graph";
  std::string subtitle;  // e.g. what was traced and the totals
  std::string count_name = "instructions";  // "samples", "ns", ...
  // Displayed counts are weights times this (e.g. timestamp ticks -> ns).
  double scale = 1.0;
  bool inverted = false;   // icicle: the root at the top
  double min_width = 0.1;  // pixels: narrower frames are left out
  int width = 1200;
  int frame_height = 17;
  int font_size = 12;
  // A line under the graph (e.g. "3 decode gaps cut stacks: ...").
  std::string notes;
  // A differential flame graph (hwt-report --diff): per node of the tree,
  // how much its weight changed from the base profile. Given, frames are
  // coloured by it as FlameGraph's difffolded does (red grew, blue shrank,
  // the deeper the more, white unchanged) and tooltips show it.
  std::vector<int64_t> node_delta;
};

// Renders `tree` (frames named in `frames`); the root is drawn as "all".
// [gap] leaves have no weight and are not drawn: a frame whose stacks were
// cut by gaps says so in its tooltip.
std::string RenderFlameSvg(const NamedTree& tree, const FrameTable& frames,
                           const FlameOptions& options);

// Colour of a frame (an "rgb(r,g,b)" string): the hue from its category,
// the shade from a hash of its name, lighter for inline frames.
std::string FrameColor(const NamedFrame& frame);

// Colour of a change in a differential flame graph, `max` the largest
// change in either direction: red for growth, blue for shrinkage, from
// white (no change) to full colour (the largest).
std::string DiffColor(int64_t delta, int64_t max);

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_FLAME_SVG_H_
