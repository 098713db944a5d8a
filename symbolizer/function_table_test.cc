// FunctionTable: each clause of the docs/call-stacks.md rule on hand-made
// symbol sets with hand-checked answers, then random symbol sets against a
// brute-force reading of the rule.
#include "symbolizer/function_table.h"

#include <limits>
#include <random>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace hwt::symbolizer {
namespace {

FunctionCandidate Sym(const std::string& name, uint64_t start, uint64_t size,
                      uint64_t section_start = 0x1000,
                      uint64_t section_end = 0x2000) {
  FunctionCandidate c;
  c.symbol.name = name;
  c.symbol.raw_name = name;
  c.symbol.start = start;
  c.symbol.size = size;
  c.in_section = true;
  c.section_start = section_start;
  c.section_end = section_end;
  return c;
}

std::string NameAt(const FunctionTable& table, uint64_t a) {
  const FunctionSymbol* f = table.Find(a);
  return f == nullptr ? "-" : f->raw_name;
}

TEST(FunctionTableTest, EmptyTableHasNoFunctions) {
  FunctionTable table(std::vector<FunctionCandidate>{});
  EXPECT_EQ(table.Find(0), nullptr);
  EXPECT_EQ(table.Find(0x1234), nullptr);
  EXPECT_TRUE(table.functions().empty());
}

TEST(FunctionTableTest, RangesAreHalfOpen) {
  FunctionTable table({Sym("f", 0x1100, 0x10)});
  EXPECT_EQ(NameAt(table, 0x10ff), "-");
  EXPECT_EQ(NameAt(table, 0x1100), "f");
  EXPECT_EQ(NameAt(table, 0x110f), "f");
  EXPECT_EQ(NameAt(table, 0x1110), "-");
}

TEST(FunctionTableTest, AliasesResolveToTheNameSortingFirst) {
  FunctionTable table({Sym("memmove_avx", 0x1100, 0x40),
                       Sym("memcpy_avx", 0x1100, 0x40),
                       Sym("__memcpy_avx", 0x1100, 0x40)});
  EXPECT_EQ(NameAt(table, 0x1100), "__memcpy_avx");
  EXPECT_EQ(NameAt(table, 0x113f), "__memcpy_avx");
  EXPECT_EQ(table.functions().size(), 3u);  // all kept for lookups by name
}

TEST(FunctionTableTest, SameStartLargerSizeWinsThenSmallerCovers) {
  FunctionTable table({Sym("small", 0x1100, 0x8), Sym("big", 0x1100, 0x20)});
  EXPECT_EQ(NameAt(table, 0x1100), "big");
  EXPECT_EQ(NameAt(table, 0x1107), "big");
  EXPECT_EQ(NameAt(table, 0x111f), "big");
  EXPECT_EQ(NameAt(table, 0x1120), "-");
}

TEST(FunctionTableTest, HighestStartWinsInsideAnother) {
  FunctionTable table(
      {Sym("outer", 0x1100, 0x100), Sym("inner", 0x1140, 0x10)});
  EXPECT_EQ(NameAt(table, 0x113f), "outer");
  EXPECT_EQ(NameAt(table, 0x1140), "inner");
  EXPECT_EQ(NameAt(table, 0x114f), "inner");
  EXPECT_EQ(NameAt(table, 0x1150), "outer");
  EXPECT_EQ(NameAt(table, 0x11ff), "outer");
  // The function reports its own whole extent.
  EXPECT_EQ(table.Find(0x1150)->start, 0x1100u);
  EXPECT_EQ(table.Find(0x1150)->size, 0x100u);
}

TEST(FunctionTableTest, SizeZeroCoversUpToTheNextSymbolOfItsSection) {
  FunctionTable table({Sym("zero", 0x1100, 0), Sym("next", 0x1180, 0x10),
                       // Another section: does not end "zero".
                       Sym("elsewhere", 0x1120, 0x4, 0x3000, 0x4000)});
  EXPECT_EQ(NameAt(table, 0x1100), "zero");
  EXPECT_EQ(NameAt(table, 0x111f), "zero");
  EXPECT_EQ(NameAt(table, 0x1120), "elsewhere");  // higher start wins
  EXPECT_EQ(NameAt(table, 0x1124), "zero");
  EXPECT_EQ(NameAt(table, 0x117f), "zero");
  EXPECT_EQ(NameAt(table, 0x1180), "next");
  EXPECT_EQ(table.Find(0x1100)->size, 0x80u);
}

TEST(FunctionTableTest, LastSizeZeroSymbolCoversToTheSectionEnd) {
  FunctionTable table({Sym("a", 0x1100, 0x10), Sym("tail", 0x1800, 0)});
  EXPECT_EQ(NameAt(table, 0x1800), "tail");
  EXPECT_EQ(NameAt(table, 0x1fff), "tail");
  EXPECT_EQ(NameAt(table, 0x2000), "-");
}

TEST(FunctionTableTest, SizeZeroOutsideAnySectionCoversOneByte) {
  FunctionCandidate abs = Sym("abs", 0x5000, 0);
  abs.in_section = false;
  FunctionTable table({abs});
  EXPECT_EQ(NameAt(table, 0x5000), "abs");
  EXPECT_EQ(NameAt(table, 0x5001), "-");
}

TEST(FunctionTableTest, SizeZeroAtTheStartOfASizedSymbol) {
  // The size-0 symbol extends to the next *higher* start (0x1200), so its
  // extent (0x100) beats the sized one's (0x10) at the shared start.
  FunctionTable table({Sym("zero", 0x1100, 0), Sym("sized", 0x1100, 0x10),
                       Sym("after", 0x1200, 0x10)});
  EXPECT_EQ(NameAt(table, 0x1100), "zero");
  EXPECT_EQ(NameAt(table, 0x1150), "zero");
  EXPECT_EQ(NameAt(table, 0x1200), "after");
}

TEST(FunctionTableTest, HugeSizesSaturate) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  FunctionTable table({Sym("top", max - 0x10, 0x100, 0, max)});
  EXPECT_EQ(NameAt(table, max - 0x10), "top");
  EXPECT_EQ(NameAt(table, max - 1), "top");
  EXPECT_EQ(table.Find(max - 1)->size, 0x10u);
}

TEST(FunctionTableTest, ExactDuplicatesAreMerged) {
  FunctionTable table(
      {Sym("f", 0x1100, 0x10), Sym("f", 0x1100, 0x10), Sym("f", 0x1200, 0x10)});
  EXPECT_EQ(table.functions().size(), 2u);
}

// The rule read literally, one candidate at a time.
std::string BruteForce(const std::vector<FunctionCandidate>& c, uint64_t a) {
  const FunctionCandidate* best = nullptr;
  uint64_t best_size = 0;
  for (const FunctionCandidate& x : c) {
    uint64_t size = x.symbol.size;
    if (size == 0) {
      uint64_t next =
          x.section_end > x.symbol.start ? x.section_end : x.symbol.start + 1;
      for (const FunctionCandidate& y : c) {
        if (y.section_start == x.section_start &&
            y.section_end == x.section_end && y.symbol.start > x.symbol.start &&
            y.symbol.start < next) {
          next = y.symbol.start;
        }
      }
      size = next - x.symbol.start;
    }
    if (a < x.symbol.start || a - x.symbol.start >= size) continue;
    if (best == nullptr || x.symbol.start > best->symbol.start ||
        (x.symbol.start == best->symbol.start &&
         (size > best_size ||
          (size == best_size && x.symbol.raw_name < best->symbol.raw_name)))) {
      best = &x;
      best_size = size;
    }
  }
  return best == nullptr ? "-" : best->symbol.raw_name;
}

TEST(FunctionTableTest, RandomSymbolSetsMatchBruteForce) {
  std::mt19937 rng(4242);
  for (int round = 0; round < 200; ++round) {
    std::vector<FunctionCandidate> candidates;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      const bool second_section = rng() % 4 == 0;
      const uint64_t base = second_section ? 0x1200 : 0x1000;
      const uint64_t start = base + rng() % 0x200;
      const uint64_t size = rng() % 3 == 0 ? 0 : rng() % 0x80;
      candidates.push_back(Sym(absl::StrFormat("s%d", rng() % 30), start, size,
                               base, base + 0x200));
    }
    FunctionTable table(candidates);
    for (uint64_t a = 0xff0; a < 0x1410; ++a) {
      ASSERT_EQ(NameAt(table, a), BruteForce(candidates, a))
          << "round " << round << absl::StrFormat(" at 0x%x", a);
    }
  }
}

}  // namespace
}  // namespace hwt::symbolizer
