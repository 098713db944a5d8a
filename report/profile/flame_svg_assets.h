// The CSS and the script embedded in every flame graph SVG (flame_svg.h),
// kept apart from the C++ that lays out the frames.
#ifndef HWT_REPORT_PROFILE_FLAME_SVG_ASSETS_H_
#define HWT_REPORT_PROFILE_FLAME_SVG_ASSETS_H_

namespace hwt::report {

extern const char kFlameSvgStyle[];
// Reads the layout from attributes of the <svg> element (data-xpad, data-w,
// data-total, data-scale, data-unit, data-minw, data-font, data-fw) and of
// each frame <g class="f"> (data-s: first count, data-v: count, data-d:
// depth).
extern const char kFlameSvgScript[];

}  // namespace hwt::report

#endif  // HWT_REPORT_PROFILE_FLAME_SVG_ASSETS_H_
