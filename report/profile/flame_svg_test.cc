// The SVG flame graph on trees built from folded lines: frame geometry
// (widths proportional to weight, children inside their parent, the root the
// total), C++ names escaped for XML, narrow frames left out, the icicle
// layout, stable colours, and the named tree's parsing of folded input.
#include "report/profile/flame_svg.h"

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Drawn {
  std::string title;
  double x = 0, y = 0, width = 0;
  int start = 0, value = 0, depth = 0;
};

// The frames of a rendered SVG, in document order.
std::vector<Drawn> Frames(const std::string& svg) {
  static const std::regex frame(
      R"re(<g class="f[^"]*" data-s="(\d+)" data-v="(\d+)" data-d="(\d+)"><title>([^<]*)</title><rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)")re");
  std::vector<Drawn> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), frame);
       it != std::sregex_iterator(); ++it) {
    Drawn d;
    d.start = std::stoi((*it)[1]);
    d.value = std::stoi((*it)[2]);
    d.depth = std::stoi((*it)[3]);
    d.title = (*it)[4];
    d.x = std::stod((*it)[5]);
    d.y = std::stod((*it)[6]);
    d.width = std::stod((*it)[7]);
    out.push_back(d);
  }
  return out;
}

NamedTree Tree(const std::string& folded, FrameTable& frames,
               size_t* bad = nullptr) {
  return NamedTreeFromFolded(
      folded, frames, [](std::string_view) { return FrameCategory::kUser; },
      bad);
}

TEST(FlameSvgTest, WidthsFollowWeightsAndChildrenNest) {
  FrameTable frames;
  const NamedTree tree = Tree("main;a 30\nmain;b;c 10\nmain 60\n", frames);
  EXPECT_EQ(tree.total(), 100u);
  FlameOptions options;
  const std::vector<Drawn> drawn =
      Frames(RenderFlameSvg(tree, frames, options));
  ASSERT_EQ(drawn.size(), 5u);  // all, main, a, b, c
  const double scale = (options.width - 20) / 100.0;
  std::map<std::string, Drawn> by_name;
  for (const Drawn& d : drawn) {
    by_name[d.title.substr(0, d.title.find(' '))] = d;
    EXPECT_NEAR(d.width, d.value * scale, 0.01) << d.title;
  }
  EXPECT_EQ(by_name["all"].value, 100);
  EXPECT_EQ(by_name["main"].value, 100);
  EXPECT_EQ(by_name["a"].value, 30);
  EXPECT_EQ(by_name["c"].value, 10);
  // Children sit above their parent (flame: smaller y) and inside it.
  EXPECT_LT(by_name["a"].y, by_name["main"].y);
  EXPECT_GE(by_name["c"].x, by_name["b"].x);
  EXPECT_LE(by_name["c"].x + by_name["c"].width,
            by_name["b"].x + by_name["b"].width + 0.01);
  EXPECT_THAT(by_name["a"].title, HasSubstr("(30 instructions, 30.00%"));
}

TEST(FlameSvgTest, IcicleHasTheRootOnTop) {
  FrameTable frames;
  const NamedTree tree = Tree("main;a 30\nmain 70\n", frames);
  FlameOptions options;
  options.inverted = true;
  std::map<std::string, Drawn> by_name;
  for (const Drawn& d : Frames(RenderFlameSvg(tree, frames, options))) {
    by_name[d.title.substr(0, d.title.find(' '))] = d;
  }
  EXPECT_LT(by_name["all"].y, by_name["main"].y);
  EXPECT_LT(by_name["main"].y, by_name["a"].y);
}

TEST(FlameSvgTest, NamesAreEscapedForXml) {
  FrameTable frames;
  const NamedTree tree =
      Tree("std::vector<int>::push_back(int&&) 5\na\"b'c 5\n", frames);
  FlameOptions options;
  options.title = "<T> & \"q\"";
  const std::string svg = RenderFlameSvg(tree, frames, options);
  EXPECT_THAT(svg,
              HasSubstr("std::vector&lt;int&gt;::push_back(int&amp;&amp;)"));
  EXPECT_THAT(svg, HasSubstr("&lt;T&gt; &amp; &quot;q&quot;"));
  EXPECT_THAT(svg, Not(HasSubstr("<int>")));
}

TEST(FlameSvgTest, NarrowFramesAreLeftOut) {
  FrameTable frames;
  // 1 of 100000 is 0.0118 px of 1180: below the 0.1 px default.
  const NamedTree tree = Tree("big 99999\ntiny 1\n", frames);
  const std::string svg = RenderFlameSvg(tree, frames, FlameOptions{});
  EXPECT_THAT(svg, HasSubstr("<title>big ("));
  EXPECT_THAT(svg, Not(HasSubstr("<title>tiny (")));
  FlameOptions all;
  all.min_width = 0;
  EXPECT_THAT(RenderFlameSvg(tree, frames, all), HasSubstr("<title>tiny ("));
}

TEST(FlameSvgTest, ColoursAreStablePerNameAndKind) {
  // The colour depends on the name and the kind only: the same function of
  // another libc image (another run, another path) keeps its colour.
  NamedFrame a{"memcpy", "libc.so.6", FrameCategory::kLibc};
  NamedFrame other_image{"memcpy", "libc.so.7", FrameCategory::kLibc};
  EXPECT_EQ(FrameColor(a), FrameColor(other_image));
  NamedFrame other_name{"memmove", "libc.so.6", FrameCategory::kLibc};
  EXPECT_NE(FrameColor(a), FrameColor(other_name));
  NamedFrame user{"memcpy", "prog", FrameCategory::kUser};
  EXPECT_NE(FrameColor(a), FrameColor(user));
}

TEST(FlameSvgTest, FoldedLinesThatDoNotParseAreCounted) {
  FrameTable frames;
  size_t bad = 0;
  const NamedTree tree = Tree("a;b 2\nno-count\na 3\n\nx y\n", frames, &bad);
  EXPECT_EQ(bad, 2u);
  EXPECT_EQ(tree.total(), 5u);
  EXPECT_EQ(CategoryOfImage("/lib/x86_64-linux-gnu/libc.so.6", false),
            FrameCategory::kLibc);
  EXPECT_EQ(CategoryOfImage("/lib64/ld-linux-x86-64.so.2", false),
            FrameCategory::kLoader);
  EXPECT_EQ(CategoryOfImage("/usr/lib/libm.so.6", false),
            FrameCategory::kLibrary);
  EXPECT_EQ(CategoryOfImage("/usr/bin/prog", false), FrameCategory::kUser);
  EXPECT_EQ(CategoryOfImage("/boot/kernel/kernel", true),
            FrameCategory::kKernel);
}

}  // namespace
}  // namespace hwt::report
