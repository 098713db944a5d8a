// Flame graph SVG rendering; see flame_svg.h.
#include "report/profile/flame_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/common/text_util.h"
#include "report/profile/flame_svg_assets.h"

namespace hwt::report {
namespace {

// Average glyph width of the font in ems (DejaVu Sans / Verdana).
constexpr double kFontWidth = 0.59;

// FNV-1a of the name, as three independent fractions in [0, 1).
void NameHash(const std::string& name, double* a, double* b, double* c) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : name) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  *a = static_cast<double>(h & 0xffff) / 65536.0;
  *b = static_cast<double>((h >> 16) & 0xffff) / 65536.0;
  *c = static_cast<double>((h >> 32) & 0xffff) / 65536.0;
}

std::string Hsl(double h, double s, double l) {
  // HSL -> RGB.
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = std::fmod(h, 360.0) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1) {
    r = c, g = x;
  } else if (hp < 2) {
    r = x, g = c;
  } else if (hp < 3) {
    g = c, b = x;
  } else if (hp < 4) {
    g = x, b = c;
  } else if (hp < 5) {
    r = x, b = c;
  } else {
    r = c, b = x;
  }
  const double m = l - c / 2;
  auto byte = [&](double v) {
    return std::clamp(static_cast<int>(std::lround((v + m) * 255)), 0, 255);
  };
  return absl::StrFormat("rgb(%d,%d,%d)", byte(r), byte(g), byte(b));
}

struct Palette {
  double hue;     // base hue
  double spread;  // hue range from the base
  double sat;
  double light;
};

Palette PaletteOf(FrameCategory category) {
  switch (category) {
    case FrameCategory::kUser:
      return {2, 38, 0.78, 0.60};  // red to orange: the classic flame
    case FrameCategory::kLibc:
      return {78, 40, 0.55, 0.55};  // yellow-green to green
    case FrameCategory::kLoader:
      return {262, 30, 0.45, 0.70};  // lavender
    case FrameCategory::kLibrary:
      return {168, 22, 0.50, 0.55};  // teal
    case FrameCategory::kKernel:
      return {205, 25, 0.60, 0.66};  // blue
    case FrameCategory::kUnknown:
      return {0, 0, 0.0, 0.72};  // grey
    case FrameCategory::kGap:
      return {0, 0, 0.0, 0.55};
  }
  return {0, 0, 0, 0.7};
}

std::string Label(const std::string& name, double width, int font_size) {
  const int chars =
      static_cast<int>(std::floor((width - 6) / (font_size * kFontWidth)));
  if (chars < 3) return "";
  if (static_cast<int>(name.size()) <= chars) return name;
  return name.substr(0, chars - 2) + "..";
}

}  // namespace

std::string FrameColor(const NamedFrame& frame) {
  const Palette p = PaletteOf(frame.category);
  double a, b, c;
  NameHash(frame.name, &a, &b, &c);
  double light = p.light + (b - 0.5) * 0.12;
  double sat = p.sat == 0 ? 0 : std::clamp(p.sat + (c - 0.5) * 0.2, 0.0, 1.0);
  if (frame.inlined) light = std::min(0.86, light + 0.12);
  return Hsl(p.hue + a * p.spread, sat, light);
}

std::string DiffColor(int64_t delta, int64_t max) {
  if (delta == 0 || max <= 0) return "rgb(255,255,255)";
  const double strength =
      std::min(1.0, static_cast<double>(delta > 0 ? delta : -delta) / max);
  const int fade = static_cast<int>(std::lround(210 * (1.0 - strength)));
  return delta > 0 ? absl::StrFormat("rgb(255,%d,%d)", fade, fade)
                   : absl::StrFormat("rgb(%d,%d,255)", fade, fade);
}

namespace {

// A frame wide enough to draw, with its first count (x offset).
struct Drawn {
  uint32_t node;
  uint64_t start;
};

// What RenderFlameSvg draws and where, worked out before any output.
struct FlameLayout {
  bool diff = false;  // a differential flame graph (FlameOptions::node_delta)
  double xpad = 10;
  double width = 0;  // of the graph, without the padding
  uint64_t total = 0;
  std::vector<Drawn> drawn;
  // The kinds of code drawn, for the legend (none in a differential graph:
  // its legend is growth and shrinkage instead).
  std::set<FrameCategory> categories;
  uint32_t max_depth = 0;
  // Stacks cut by gaps below each node (its [gap] leaves).
  std::vector<uint64_t> cut;
  int64_t max_delta = 0;  // the largest change of a drawn frame
  double title_h = 0;     // title, subtitle, buttons, legend
  double graph_bottom = 0;
  double height = 0;
};

// Fills in the frames wide enough to draw, in tree order, with the kinds of
// code among them and the deepest one.
void ChooseDrawnFrames(const NamedTree& tree, const FrameTable& frames,
                       const FlameOptions& options, FlameLayout& layout) {
  const uint64_t total = layout.total;
  std::vector<uint64_t> next(tree.nodes.size(), 0);  // next child's start
  std::vector<uint64_t> start(tree.nodes.size(), 0);
  for (uint32_t i = 0; i < tree.nodes.size(); ++i) {
    const NamedTree::Node& n = tree.nodes[i];
    if (i != 0) {
      start[i] = next[n.parent];
      next[n.parent] += n.total;
    }
    next[i] = start[i];
    const double w = static_cast<double>(n.total) / total * layout.width;
    if (n.total == 0 || w < options.min_width) continue;
    if (i != 0) {
      const NamedFrame& f = frames[n.frame];
      if (f.category == FrameCategory::kGap) continue;
      layout.categories.insert(f.category);
    }
    layout.drawn.push_back({i, start[i]});
    layout.max_depth = std::max(layout.max_depth, n.depth);
  }
}

FlameLayout LayOutFlame(const NamedTree& tree, const FrameTable& frames,
                        const FlameOptions& options) {
  FlameLayout layout;
  layout.diff = options.node_delta.size() == tree.nodes.size();
  layout.width = options.width - 2 * layout.xpad;
  layout.total = tree.total();
  layout.cut.assign(tree.nodes.size(), 0);
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    layout.cut[tree.nodes[i].parent] += tree.nodes[i].gaps;
  }
  if (layout.total > 0) ChooseDrawnFrames(tree, frames, options, layout);
  if (layout.diff) {
    for (const Drawn& d : layout.drawn) {
      if (d.node == 0) continue;
      const int64_t v = options.node_delta[d.node];
      layout.max_delta = std::max(layout.max_delta, v < 0 ? -v : v);
    }
    layout.categories.clear();
  }
  const int fh = options.frame_height;
  const int fs = options.font_size;
  layout.title_h = fs * 5.0;
  const double bottom_h = fs * 2.0 + 10 + (options.notes.empty() ? 0 : fs + 6);
  layout.height = layout.title_h + (layout.max_depth + 1) * fh + bottom_h;
  layout.graph_bottom = layout.title_h + (layout.max_depth + 1) * fh;
  return layout;
}

// The SVG up to the legend: the root element with the data the script
// needs, style, background, title, subtitle and the buttons.
void AppendSvgHead(const FlameLayout& layout, const FlameOptions& options,
                   std::string* out) {
  const int fs = options.font_size;
  const double xpad = layout.xpad;
  absl::StrAppendFormat(
      out,
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"%d\" height=\"%.0f\" "
      "viewBox=\"0 0 %d %.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
      "xmlns:xlink=\"http://www.w3.org/1999/xlink\" data-xpad=\"%.0f\" "
      "data-w=\"%.0f\" data-total=\"%d\" data-scale=\"%g\" data-unit=\"%s\" "
      "data-minw=\"%g\" data-font=\"%d\" data-fw=\"%g\">\n",
      options.width, layout.height, options.width, layout.height, xpad,
      layout.width, layout.total, options.scale, XmlEscape(options.count_name),
      options.min_width, fs, kFontWidth);
  absl::StrAppend(out,
                  "<!-- Flame graph by hwt-report. Click a frame to zoom, "
                  "Ctrl-F to search (regular expressions), Ctrl-I to toggle "
                  "case; ?f=FRAME&s=REGEX&i=1 in the URL restores a view. "
                  "-->\n");
  absl::StrAppend(out,
                  "<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" "
                  "x1=\"0\" x2=\"0\"><stop stop-color=\"#fbfbfb\" "
                  "offset=\"5%\"/><stop stop-color=\"#ececf0\" "
                  "offset=\"95%\"/></linearGradient></defs>\n");
  absl::StrAppend(out, "<style type=\"text/css\"><![CDATA[", kFlameSvgStyle,
                  "]]></style>\n");
  absl::StrAppendFormat(out,
                        "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" "
                        "fill=\"url(#bg)\"/>\n",
                        options.width, layout.height);
  absl::StrAppendFormat(
      out, "<text id=\"title\" x=\"%.1f\" y=\"%d\">%s</text>\n",
      options.width / 2.0, fs * 2 - 2, XmlEscape(options.title));
  absl::StrAppendFormat(
      out, "<text id=\"subtitle\" x=\"%.1f\" y=\"%d\">%s</text>\n",
      options.width / 2.0, fs * 3 + 2, XmlEscape(options.subtitle));
  const double buttons_y = fs * 3 + 2;
  absl::StrAppendFormat(out,
                        "<text id=\"unzoom\" class=\"btn hide\" x=\"%.0f\" "
                        "y=\"%.0f\">Reset Zoom</text>\n",
                        xpad, buttons_y);
  absl::StrAppendFormat(out,
                        "<text id=\"search\" class=\"btn\" x=\"%.0f\" "
                        "y=\"%.0f\" text-anchor=\"end\">Search</text>\n",
                        options.width - xpad - 28, buttons_y);
  absl::StrAppendFormat(out,
                        "<text id=\"case\" class=\"btn\" x=\"%.0f\" y=\"%.0f\" "
                        "text-anchor=\"end\">ic</text>\n",
                        options.width - xpad, buttons_y);
}

// One swatch per kind of code shown, or in a differential graph the colours
// of growth and shrinkage.
void AppendLegend(const FlameLayout& layout, const FlameOptions& options,
                  std::string* out) {
  const int fs = options.font_size;
  const double xpad = layout.xpad;
  if (!layout.categories.empty()) {
    absl::StrAppend(out, "<g class=\"legend\">\n");
    double x = xpad;
    const double y = fs * 4 + 2;
    for (FrameCategory c : layout.categories) {
      const Palette p = PaletteOf(c);
      const std::string color = Hsl(p.hue + p.spread / 2, p.sat, p.light);
      std::string label = std::string(FrameCategoryName(c));
      if (c == FrameCategory::kUser) label = "program";
      absl::StrAppendFormat(out,
                            "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" "
                            "height=\"10\" rx=\"2\" fill=\"%s\"/><text "
                            "x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                            x, y - 9, color, x + 14, y, XmlEscape(label));
      x += 14 + label.size() * 11 * kFontWidth + 16;
    }
    absl::StrAppend(out, "</g>\n");
  }
  if (layout.diff) {
    absl::StrAppendFormat(
        out,
        "<g class=\"legend\"><rect x=\"%.0f\" y=\"%.0f\" width=\"10\" "
        "height=\"10\" rx=\"2\" fill=\"rgb(255,0,0)\"/><text x=\"%.0f\" "
        "y=\"%.0f\">grew</text><rect x=\"%.0f\" y=\"%.0f\" width=\"10\" "
        "height=\"10\" rx=\"2\" fill=\"rgb(0,0,255)\"/><text x=\"%.0f\" "
        "y=\"%.0f\">shrank</text></g>\n",
        xpad, fs * 4 - 7.0, xpad + 14, fs * 4 + 2.0, xpad + 64, fs * 4 - 7.0,
        xpad + 78, fs * 4 + 2.0);
  }
}

// A frame's tooltip: "NAME (N instructions, P%, ...)".
std::string FrameTitle(const FlameLayout& layout, const FlameOptions& options,
                       const Drawn& d, const NamedTree::Node& n,
                       const NamedFrame& f) {
  const uint64_t total = layout.total;
  const double scale = options.scale;
  const double pct = 100.0 * n.total / total;
  std::string title = absl::StrFormat(
      "%s (%s %s, %.2f%%", f.name,
      Thousands(static_cast<uint64_t>(std::llround(n.total * scale))),
      options.count_name, pct);
  if (n.calls != 0)
    absl::StrAppend(&title, ", ", Thousands(n.calls),
                    n.calls == 1 ? " call" : " calls");
  if (f.inlined) absl::StrAppend(&title, ", inlined");
  if (!f.image.empty() && d.node != 0) absl::StrAppend(&title, ", ", f.image);
  if (layout.cut[d.node] != 0) {
    absl::StrAppend(&title, ", ",
                    layout.cut[d.node] == 1
                        ? std::string("a stack")
                        : Thousands(layout.cut[d.node]) + " stacks",
                    " cut here by trace gaps");
  }
  if (layout.diff) {
    const int64_t delta = options.node_delta[d.node];
    absl::StrAppendFormat(
        &title, ", %s%s %s, %+.2f%%",
        delta > 0   ? "+"
        : delta < 0 ? "-"
                    : "",
        Thousands(static_cast<uint64_t>(std::llround(
            (delta < 0 ? -static_cast<double>(delta) : delta) * scale))),
        options.count_name, 100.0 * static_cast<double>(delta) / total);
  }
  title += ")";
  return title;
}

void AppendFrame(const FlameLayout& layout, const NamedTree& tree,
                 const FrameTable& frames, const FlameOptions& options,
                 const Drawn& d, std::string* out) {
  const int fh = options.frame_height;
  const int fs = options.font_size;
  const uint64_t total = layout.total;
  const NamedTree::Node& n = tree.nodes[d.node];
  const double x =
      layout.xpad + static_cast<double>(d.start) / total * layout.width;
  const double w = static_cast<double>(n.total) / total * layout.width;
  const double y = options.inverted ? layout.title_h + n.depth * fh
                                    : layout.graph_bottom - (n.depth + 1) * fh;
  NamedFrame root;
  root.name = "all";
  root.category = FrameCategory::kUnknown;
  const NamedFrame& f = d.node == 0 ? root : frames[n.frame];
  const std::string title = FrameTitle(layout, options, d, n, f);
  const std::string fill =
      layout.diff
          ? (d.node == 0
                 ? std::string("rgb(255,255,255)")
                 : DiffColor(options.node_delta[d.node], layout.max_delta))
      : d.node == 0 ? std::string("rgb(190,190,196)")
                    : FrameColor(f);
  absl::StrAppendFormat(
      out,
      "<g class=\"f%s\" data-s=\"%d\" data-v=\"%d\" data-d=\"%d\">"
      "<title>%s</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
      "height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" "
      "y=\"%.1f\">%s</text></g>\n",
      f.inlined ? " inl" : "", d.start, n.total, n.depth, XmlEscape(title), x,
      y, w, fh - 1, fill, x + 3, y + fh / 2.0 + fs * 0.35,
      XmlEscape(Label(f.name, w, fs)));
}

// Below the graph: the notes, the lines the script fills in (details of the
// frame under the mouse, the search's share), the script itself.
void AppendSvgTail(const FlameLayout& layout, const FlameOptions& options,
                   std::string* out) {
  const int fs = options.font_size;
  const double xpad = layout.xpad;
  double y = layout.graph_bottom + fs + 8;
  if (!options.notes.empty()) {
    absl::StrAppendFormat(
        out, "<text id=\"notes\" x=\"%.0f\" y=\"%.0f\">%s</text>\n", xpad, y,
        XmlEscape(options.notes));
    y += fs + 6;
  }
  absl::StrAppendFormat(
      out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", xpad, y);
  absl::StrAppendFormat(out,
                        "<text id=\"matched\" class=\"hide\" x=\"%.0f\" "
                        "y=\"%.0f\"> </text>\n",
                        options.width - xpad, y);
  absl::StrAppend(out, "<script type=\"text/ecmascript\"><![CDATA[",
                  kFlameSvgScript, "]]></script>\n</svg>\n");
}

}  // namespace

std::string RenderFlameSvg(const NamedTree& tree, const FrameTable& frames,
                           const FlameOptions& options) {
  const FlameLayout layout = LayOutFlame(tree, frames, options);
  std::string out;
  out.reserve(512 + layout.drawn.size() * 220);
  AppendSvgHead(layout, options, &out);
  AppendLegend(layout, options, &out);
  absl::StrAppend(&out, "<g id=\"frames\">\n");
  for (const Drawn& d : layout.drawn) {
    AppendFrame(layout, tree, frames, options, d, &out);
  }
  absl::StrAppend(&out, "</g>\n");
  AppendSvgTail(layout, options, &out);
  return out;
}

}  // namespace hwt::report
