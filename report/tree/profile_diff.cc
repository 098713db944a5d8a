// Differences between two profiles; see profile_diff.h.
#include "report/tree/profile_diff.h"

#include <regex.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/tree_functions.h"
#include "report/common/text_util.h"
#include "report/naming/saved_symbols.h"
#include "report/tree/profile_filter.h"

namespace hwt::report {
namespace {

using Key = std::pair<std::string, std::string>;  // (name, image)

struct Side {
  uint64_t total = 0;
  std::map<Key, std::pair<uint64_t, uint64_t>> functions;  // self, total
};

Side SideOf(const analysis::SavedProfile& p) {
  SavedProfileSymbols symbols(p);
  ProfileNames names(symbols);
  Side side;
  const analysis::CallTree& tree = p.profile.merged;
  side.total = tree.nodes.empty() ? 0 : tree.nodes[0].total_insns;
  for (const analysis::FunctionStats& f :
       analysis::FunctionsOfTree(tree).functions) {
    if (f.frame.kind == analysis::FrameKind::kGap) continue;
    const NamedFrame& frame = names.frames()[names.Frame(f.frame)];
    auto& counts = side.functions[{frame.name, frame.image}];
    counts.first += f.self_insns;
    counts.second += f.total_insns;
  }
  return side;
}

double Share(uint64_t part, uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / total;
}

// A signed number with `decimals` digits after the point ("+3", "-0.25").
std::string Signed(double v, int decimals) {
  return absl::StrCat(v > 0 ? "+" : "", absl::StrFormat("%.*f", decimals, v));
}

// Stack of frame names ("name\x1fimage\x1finl") from the root to each node.
std::vector<std::string> StackKeys(const NamedTree& tree,
                                   const FrameTable& frames) {
  std::vector<std::string> keys(tree.nodes.size());
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const NamedTree::Node& n = tree.nodes[i];
    const NamedFrame& f = frames[n.frame];
    keys[i] = absl::StrCat(keys[n.parent], ";", f.name, "\x1f", f.image,
                           f.inlined ? "\x1fi" : "");
  }
  return keys;
}

}  // namespace

ProfileDiff DiffProfiles(const analysis::SavedProfile& base,
                         const analysis::SavedProfile& now,
                         const DiffOptions& options) {
  const Side b = SideOf(base);
  const Side n = SideOf(now);
  ProfileDiff diff;
  diff.base_total = b.total;
  diff.new_total = n.total;
  diff.absolute = options.absolute;
  std::map<Key, FunctionDiff> rows;
  for (const auto& [key, counts] : b.functions) {
    FunctionDiff& row = rows[key];
    row.base_self = counts.first;
    row.base_total = counts.second;
  }
  for (const auto& [key, counts] : n.functions) {
    FunctionDiff& row = rows[key];
    row.new_self = counts.first;
    row.new_total = counts.second;
  }
  for (auto& [key, row] : rows) {
    row.name = key.first;
    row.image = key.second;
    row.base_share = Share(row.base_self, b.total);
    row.new_share = Share(row.new_self, n.total);
    row.change = options.absolute ? static_cast<double>(row.new_self) -
                                        static_cast<double>(row.base_self)
                                  : row.new_share - row.base_share;
    diff.functions.push_back(row);
  }
  std::sort(diff.functions.begin(), diff.functions.end(),
            [](const FunctionDiff& x, const FunctionDiff& y) {
              const double ax = std::fabs(x.change), ay = std::fabs(y.change);
              if (ax != ay) return ax > ay;
              return std::tie(x.name, x.image) < std::tie(y.name, y.image);
            });
  return diff;
}

std::string RenderDiffText(const ProfileDiff& diff,
                           const DiffOptions& options) {
  std::string out = absl::StrFormat(
      "base %s instructions, new %s instructions (%s)\n",
      Thousands(diff.base_total), Thousands(diff.new_total),
      diff.absolute ? "absolute counts" : "shares of each total");
  const size_t rows = options.rows == 0
                          ? diff.functions.size()
                          : std::min(options.rows, diff.functions.size());
  std::vector<std::vector<std::string>> table;
  table.push_back(
      diff.absolute
          ? std::vector<std::string>{"change", "base", "new", "function"}
          : std::vector<std::string>{"change", "base%", "new%", "base", "new",
                                     "function"});
  for (size_t i = 0; i < rows; ++i) {
    const FunctionDiff& f = diff.functions[i];
    if (f.change == 0) break;
    const std::string name =
        f.image.empty() ? f.name : absl::StrCat(f.name, " (", f.image, ")");
    if (diff.absolute) {
      table.push_back({Signed(f.change, 0), Thousands(f.base_self),
                       Thousands(f.new_self), name});
    } else {
      table.push_back({Signed(f.change, 2),
                       absl::StrFormat("%.2f", f.base_share),
                       absl::StrFormat("%.2f", f.new_share),
                       Thousands(f.base_self), Thousands(f.new_self), name});
    }
  }
  if (table.size() == 1) return out + "no function changed\n";
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      line += last ? row[c]
                   : std::string(width[c] - row[c].size(), ' ') + row[c] + "  ";
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

nlohmann::json DiffJson(const ProfileDiff& diff, const DiffOptions& options) {
  nlohmann::json out;
  out["base_instructions"] = diff.base_total;
  out["new_instructions"] = diff.new_total;
  out["measure"] = diff.absolute ? "absolute" : "share";
  nlohmann::json rows = nlohmann::json::array();
  const size_t n = options.rows == 0
                       ? diff.functions.size()
                       : std::min(options.rows, diff.functions.size());
  for (size_t i = 0; i < n; ++i) {
    const FunctionDiff& f = diff.functions[i];
    rows.push_back({{"function", f.name},
                    {"image", f.image},
                    {"base_self", f.base_self},
                    {"new_self", f.new_self},
                    {"base_total", f.base_total},
                    {"new_total", f.new_total},
                    {"base_share", f.base_share},
                    {"new_share", f.new_share},
                    {"change", f.change}});
  }
  out["functions"] = std::move(rows);
  return out;
}

absl::StatusOr<std::vector<FunctionDiff>> Regressions(
    const ProfileDiff& diff, double percent,
    const std::string& function_regex) {
  regex_t re;
  const bool filter = !function_regex.empty();
  if (filter) {
    const int rc =
        regcomp(&re, function_regex.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char message[256];
      regerror(rc, &re, message, sizeof(message));
      return absl::InvalidArgumentError(absl::StrCat(
          "bad regular expression '", function_regex, "': ", message));
    }
  }
  std::vector<FunctionDiff> out;
  for (const FunctionDiff& f : diff.functions) {
    if (filter && regexec(&re, f.name.c_str(), 0, nullptr, 0) != 0) continue;
    const bool grew =
        diff.absolute
            ? f.new_self > f.base_self &&
                  (f.base_self == 0 ||
                   100.0 * (static_cast<double>(f.new_self) - f.base_self) /
                           f.base_self >
                       percent)
            : f.change > percent;
    if (grew) out.push_back(f);
  }
  if (filter) regfree(&re);
  return out;
}

std::vector<int64_t> StackDeltas(const NamedTree& now,
                                 const FrameTable& now_frames,
                                 const NamedTree& base,
                                 const FrameTable& base_frames, bool absolute) {
  std::map<std::string, uint64_t> base_totals;
  const std::vector<std::string> base_keys = StackKeys(base, base_frames);
  for (size_t i = 0; i < base.nodes.size(); ++i) {
    base_totals[base_keys[i]] += base.nodes[i].total;
  }
  const double scale = absolute || base.total() == 0
                           ? 1.0
                           : static_cast<double>(now.total()) /
                                 static_cast<double>(base.total());
  const std::vector<std::string> keys = StackKeys(now, now_frames);
  std::vector<int64_t> deltas(now.nodes.size(), 0);
  for (size_t i = 0; i < now.nodes.size(); ++i) {
    auto it = base_totals.find(keys[i]);
    const double before = it == base_totals.end() ? 0.0 : it->second * scale;
    deltas[i] = static_cast<int64_t>(
        std::llround(static_cast<double>(now.nodes[i].total) - before));
  }
  return deltas;
}

std::string DiffFolded(const NamedTree& base, const FrameTable& base_frames,
                       const NamedTree& now, const FrameTable& now_frames) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> stacks;
  auto add = [&](const NamedTree& tree, const FrameTable& frames, bool second) {
    std::vector<std::string> names(tree.nodes.size());
    for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
      const NamedTree::Node& n = tree.nodes[i];
      // As report/profile/folded.cc names stacks.
      const NamedFrame& frame = frames[n.frame];
      names[i] = n.parent == 0 ? frame.name
                               : absl::StrCat(names[n.parent], ";", frame.name);
      if (n.self == 0 || frame.category == FrameCategory::kGap) continue;
      auto& counts = stacks[names[i]];
      (second ? counts.second : counts.first) += n.self;
    }
  };
  add(base, base_frames, false);
  add(now, now_frames, true);
  std::string out;
  for (const auto& [stack, counts] : stacks) {
    absl::StrAppend(&out, stack, " ", counts.first, " ", counts.second, "\n");
  }
  return out;
}

}  // namespace hwt::report
