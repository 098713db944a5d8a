// Top functions tables; see top_table.h.
#include "report/profile/top_table.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

struct Row {
  const analysis::FunctionStats* f;
  uint64_t self;
  uint64_t total;
  std::string name;
  std::string image;
};

std::vector<Row> Rows(const analysis::TreeFunctions& functions,
                      ProfileNames& names, const TopOptions& options,
                      uint64_t* grand) {
  const bool by_time = options.weight == Weight::kTime;
  std::vector<Row> rows;
  *grand = 0;
  for (const analysis::FunctionStats& f : functions.functions) {
    const NamedFrame& frame = names.frames()[names.Frame(f.frame)];
    Row row{&f, by_time ? f.self_time : f.self_insns,
            by_time ? f.total_time : f.total_insns, frame.name, frame.image};
    *grand += row.self;
    if (row.total != 0) rows.push_back(std::move(row));
  }
  return rows;
}

// Heaviest first by `key`, then by name for a stable order.
template <typename Key>
std::vector<const Row*> Ranked(const std::vector<Row>& rows, Key key,
                               size_t limit) {
  std::vector<const Row*> out;
  for (const Row& r : rows) {
    if (key(r) != 0) out.push_back(&r);
  }
  std::sort(out.begin(), out.end(), [&](const Row* a, const Row* b) {
    if (key(*a) != key(*b)) return key(*a) > key(*b);
    return std::tie(a->name, a->image) < std::tie(b->name, b->image);
  });
  if (limit != 0 && out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace

std::string RenderTopTable(const analysis::TreeFunctions& functions,
                           ProfileNames& names, const TopOptions& options) {
  uint64_t grand = 0;
  const std::vector<Row> rows = Rows(functions, names, options, &grand);
  auto value = [&](uint64_t w) {
    return Thousands(static_cast<uint64_t>(std::llround(w * options.scale)));
  };
  std::string out;
  for (int pass = 0; pass < 2; ++pass) {
    const bool by_self = pass == 0;
    const auto ranked = Ranked(
        rows, [&](const Row& r) { return by_self ? r.self : r.total; },
        options.rows);
    absl::StrAppendFormat(&out, "%sFunctions by %s %s (%s in total):\n\n",
                          pass == 0 ? "" : "\n", by_self ? "self" : "total",
                          options.count_name, value(grand));
    TextTable table({TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kRight,
                     TextTable::Align::kRight, TextTable::Align::kLeft,
                     TextTable::Align::kLeft});
    if (by_self) {
      table.AddRow(
          {"self", "self%", "total", "total%", "calls", "function", "image"});
    } else {
      table.AddRow(
          {"total", "total%", "self", "self%", "calls", "function", "image"});
    }
    for (const Row* r : ranked) {
      const std::string self = value(r->self),
                        self_pct = Percent(r->self, grand);
      const std::string total = value(r->total),
                        total_pct = Percent(r->total, grand);
      const std::string calls = Thousands(r->f->calls);
      if (by_self) {
        table.AddRow(
            {self, self_pct, total, total_pct, calls, r->name, r->image});
      } else {
        table.AddRow(
            {total, total_pct, self, self_pct, calls, r->name, r->image});
      }
    }
    out += table.Render();
  }
  return out;
}

nlohmann::json TopTableJson(const analysis::TreeFunctions& functions,
                            ProfileNames& names, const TopOptions& options) {
  uint64_t grand = 0;
  const std::vector<Row> rows = Rows(functions, names, options, &grand);
  nlohmann::json out;
  out["unit"] = options.count_name;
  out["total"] = static_cast<uint64_t>(std::llround(grand * options.scale));
  for (int pass = 0; pass < 2; ++pass) {
    const bool by_self = pass == 0;
    nlohmann::json list = nlohmann::json::array();
    for (const Row* r : Ranked(
             rows, [&](const Row& x) { return by_self ? x.self : x.total; },
             options.rows)) {
      list.push_back(
          {{"function", r->name},
           {"image", r->image},
           {"self",
            static_cast<uint64_t>(std::llround(r->self * options.scale))},
           {"total",
            static_cast<uint64_t>(std::llround(r->total * options.scale))},
           {"calls", r->f->calls}});
    }
    out[by_self ? "by_self" : "by_total"] = std::move(list);
  }
  return out;
}

}  // namespace hwt::report
