// Builds the address -> function partition of function_table.h with one
// sweep over range boundaries and a priority queue of the open ranges.
#include "symbolizer/function_table.h"

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <tuple>
#include <utility>

namespace hwt::symbolizer {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return b > kMax - a ? kMax : a + b;
}

// True when a wins over b at an address both contain.
bool Wins(const FunctionSymbol& a, const FunctionSymbol& b) {
  if (a.start != b.start) return a.start > b.start;
  if (a.size != b.size) return a.size > b.size;
  return a.raw_name < b.raw_name;
}

}  // namespace

FunctionTable::FunctionTable(std::vector<FunctionCandidate> candidates) {
  // Starts of all candidates per section, to extend size-0 symbols.
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> starts;
  for (const FunctionCandidate& c : candidates) {
    if (c.in_section) {
      starts[{c.section_start, c.section_end}].push_back(c.symbol.start);
    }
  }
  for (auto& [section, list] : starts) std::sort(list.begin(), list.end());

  functions_.reserve(candidates.size());
  for (FunctionCandidate& c : candidates) {
    FunctionSymbol symbol = std::move(c.symbol);
    if (symbol.size == 0) {
      uint64_t end = SaturatingAdd(symbol.start, 1);
      if (c.in_section) {
        const auto& list = starts[{c.section_start, c.section_end}];
        auto next = std::upper_bound(list.begin(), list.end(), symbol.start);
        if (next != list.end()) {
          end = *next;
        } else if (c.section_end > symbol.start) {
          end = c.section_end;
        }
      }
      symbol.size = end - symbol.start;
    } else {
      symbol.size = SaturatingAdd(symbol.start, symbol.size) - symbol.start;
    }
    if (symbol.size == 0) continue;  // starts at the top of the space
    functions_.push_back(std::move(symbol));
  }
  std::sort(functions_.begin(), functions_.end(),
            [](const FunctionSymbol& a, const FunctionSymbol& b) {
              return std::tie(a.start, a.raw_name, a.size) <
                     std::tie(b.start, b.raw_name, b.size);
            });
  functions_.erase(
      std::unique(functions_.begin(), functions_.end(),
                  [](const FunctionSymbol& a, const FunctionSymbol& b) {
                    return a.start == b.start && a.size == b.size &&
                           a.raw_name == b.raw_name;
                  }),
      functions_.end());
  functions_.shrink_to_fit();

  std::vector<uint64_t> points;
  points.reserve(functions_.size() * 2);
  for (const FunctionSymbol& f : functions_) {
    points.push_back(f.start);
    points.push_back(f.start + f.size);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());

  auto worse = [this](uint32_t a, uint32_t b) {
    return Wins(functions_[b], functions_[a]);
  };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(worse)> open(
      worse);
  size_t next = 0;  // functions_ is sorted by start
  for (size_t k = 0; k + 1 < points.size(); ++k) {
    const uint64_t p = points[k];
    while (next < functions_.size() && functions_[next].start == p) {
      open.push(static_cast<uint32_t>(next++));
    }
    while (!open.empty() &&
           functions_[open.top()].start + functions_[open.top()].size <= p) {
      open.pop();
    }
    if (open.empty()) continue;
    const uint32_t winner = open.top();
    if (!intervals_.empty() && intervals_.back().function == winner &&
        intervals_.back().end == p) {
      intervals_.back().end = points[k + 1];
    } else {
      intervals_.push_back({p, points[k + 1], winner});
    }
  }
  intervals_.shrink_to_fit();
}

const FunctionSymbol* FunctionTable::Find(uint64_t vaddr) const {
  auto it = std::upper_bound(
      intervals_.begin(), intervals_.end(), vaddr,
      [](uint64_t v, const Interval& interval) { return v < interval.start; });
  if (it == intervals_.begin()) return nullptr;
  --it;
  if (vaddr >= it->end) return nullptr;
  return &functions_[it->function];
}

}  // namespace hwt::symbolizer
