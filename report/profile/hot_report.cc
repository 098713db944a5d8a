// Hot blocks, branches, paths and loops; see hot_report.h.
#include "report/profile/hot_report.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/branches.h"
#include "analysis/hot_paths.h"
#include "analysis/loops.h"
#include "base/file_util.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

using analysis::BlockStats;
using analysis::FunctionId;
using nlohmann::json;

double Share(uint64_t part, uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * part / total;
}

size_t Limit(size_t rows, size_t size) {
  return rows == 0 ? size : std::min(rows, size);
}

}  // namespace

json HotReportJson(const analysis::Profile& profile,
                   const analysis::BlockExpansion& expansion,
                   const analysis::CallTree& tree, ProfileNames& names,
                   const HotOptions& options) {
  const uint64_t total = profile.stats.instructions;
  auto keep = [&](const FunctionId& fn) {
    return !options.keep_function || options.keep_function(fn);
  };
  // The function of every expanded instruction (by its block).
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, FunctionId> insn_function;
  for (uint32_t b = 0; b < profile.blocks.size(); ++b) {
    if (b + 1 >= expansion.block_begin.size()) break;
    for (uint64_t vaddr : expansion.BlockInstructions(b)) {
      insn_function.try_emplace({profile.blocks[b].image, vaddr},
                                profile.blocks[b].function);
    }
  }
  auto function_of = [&](uint32_t image, uint64_t vaddr) {
    auto it = insn_function.find({image, vaddr});
    return it == insn_function.end() ? FunctionId{} : it->second;
  };

  json out;
  out["unit"] = "instructions";
  out["total"] = total;

  // Blocks.
  std::vector<uint32_t> blocks;
  for (uint32_t b = 0; b < profile.blocks.size(); ++b) {
    if (keep(profile.blocks[b].function)) blocks.push_back(b);
  }
  auto weight = [&](uint32_t b) {
    return profile.blocks[b].count * profile.blocks[b].ninsn;
  };
  std::stable_sort(blocks.begin(), blocks.end(), [&](uint32_t a, uint32_t b) {
    return weight(a) > weight(b);
  });
  json rows = json::array();
  for (size_t i = 0; i < Limit(options.rows, blocks.size()); ++i) {
    const BlockStats& b = profile.blocks[blocks[i]];
    rows.push_back(
        {{"address", Hex(b.vaddr)},
         {"image", names.ImageName(b.image)},
         {"name", names.AddressName(b.image, b.vaddr, b.function)},
         {"last", names.AddressName(b.image, b.last_vaddr, b.last_function)},
         {"end", std::string(BranchKindName(b.end))},
         {"instructions_per_execution", b.ninsn},
         {"executions", b.count},
         {"instructions", weight(blocks[i])},
         {"share", Share(weight(blocks[i]), total)},
         {"source", names.SourceLine(b.image, b.vaddr)}});
  }
  out["blocks"] = std::move(rows);

  // Conditional branches.
  std::vector<const analysis::InstructionStats*> conditionals;
  for (const analysis::InstructionStats& s : expansion.instructions) {
    if (s.conditional && s.taken + s.not_taken != 0 &&
        keep(function_of(s.image, s.vaddr))) {
      conditionals.push_back(&s);
    }
  }
  std::stable_sort(conditionals.begin(), conditionals.end(),
                   [](const auto* a, const auto* b) {
                     return a->taken + a->not_taken > b->taken + b->not_taken;
                   });
  rows = json::array();
  for (size_t i = 0; i < Limit(options.rows, conditionals.size()); ++i) {
    const analysis::InstructionStats& s = *conditionals[i];
    rows.push_back({{"address", Hex(s.vaddr)},
                    {"image", names.ImageName(s.image)},
                    {"name", names.AddressName(s.image, s.vaddr,
                                               function_of(s.image, s.vaddr))},
                    {"executions", s.taken + s.not_taken},
                    {"taken", s.taken},
                    {"not_taken", s.not_taken},
                    {"taken_share", Share(s.taken, s.taken + s.not_taken)},
                    {"source", names.SourceLine(s.image, s.vaddr)}});
  }
  out["conditional_branches"] = std::move(rows);

  // Taken branch edges (the branch's block ends there: its last function).
  std::vector<analysis::BranchEdge> edges = analysis::TakenBranches(profile);
  edges.erase(std::remove_if(edges.begin(), edges.end(),
                             [&](const analysis::BranchEdge& e) {
                               return !keep(function_of(e.from_image, e.from));
                             }),
              edges.end());
  std::stable_sort(
      edges.begin(), edges.end(),
      [](const auto& a, const auto& b) { return a.count > b.count; });
  rows = json::array();
  for (size_t i = 0; i < Limit(options.rows, edges.size()); ++i) {
    const analysis::BranchEdge& e = edges[i];
    // The target's function: of the block that starts there, if any.
    FunctionId to_fn = function_of(e.to_image, e.to);
    rows.push_back(
        {{"from", Hex(e.from)},
         {"from_name", names.AddressName(e.from_image, e.from,
                                         function_of(e.from_image, e.from))},
         {"to", Hex(e.to)},
         {"to_name", names.AddressName(e.to_image, e.to, to_fn)},
         {"kind", std::string(BranchKindName(e.kind))},
         {"count", e.count}});
  }
  out["taken_branches"] = std::move(rows);

  // Call paths.
  rows = json::array();
  for (const analysis::HotCallPath& p : analysis::HotCallPaths(
           tree, options.rows == 0 ? tree.nodes.size() : options.rows)) {
    json stack = json::array();
    for (const analysis::FrameKey& key : analysis::StackOf(tree, p.node)) {
      stack.push_back(names.Name(key));
    }
    rows.push_back({{"stack", std::move(stack)},
                    {"instructions", p.insns},
                    {"share", Share(p.insns, total)}});
  }
  out["call_paths"] = std::move(rows);

  // Intra-procedural paths.
  rows = json::array();
  for (const analysis::PathStats& p : profile.paths) {
    if (options.rows != 0 && rows.size() >= options.rows) break;
    if (p.blocks.empty() || p.weight() == 0) continue;
    const BlockStats& first = profile.blocks[p.blocks.front()];
    if (!keep(first.function)) continue;
    json steps = json::array();
    for (uint32_t b : p.blocks) {
      const BlockStats& block = profile.blocks[b];
      steps.push_back(
          names.AddressName(block.image, block.vaddr, block.function));
    }
    rows.push_back(
        {{"function",
          names.AddressName(first.image, first.function.start, first.function)},
         {"executions", p.count},
         {"instructions_per_execution", p.insns},
         {"instructions", p.weight()},
         {"share", Share(p.weight(), total)},
         {"blocks", std::move(steps)}});
  }
  out["paths"] = std::move(rows);

  // Loops.
  rows = json::array();
  for (const analysis::Loop& loop : analysis::FindLoops(profile, expansion)) {
    if (options.rows != 0 && rows.size() >= options.rows) break;
    if (!keep(loop.function)) continue;
    json latches = json::array();
    for (uint64_t l : loop.latches) latches.push_back(Hex(l));
    rows.push_back(
        {{"header", Hex(loop.header)},
         {"name", names.AddressName(loop.image, loop.header, loop.function)},
         {"end", Hex(loop.end)},
         {"latches", std::move(latches)},
         {"entries", loop.entries},
         {"back_edges", loop.back_edges},
         {"trip_count", loop.trip_count()},
         {"instructions", loop.instructions},
         {"share", Share(loop.instructions, total)},
         {"source", names.SourceLine(loop.image, loop.header)}});
  }
  out["loops"] = std::move(rows);
  return out;
}

namespace {

std::string Count(const json& v) { return Thousands(v.get<uint64_t>()); }
std::string Pct(const json& v, int decimals = 2) {
  return absl::StrFormat("%.*f%%", decimals, v.get<double>());
}
// The file name and line of "DIR/FILE:LINE".
std::string ShortSource(const json& v) {
  return BaseName(v.get<std::string>());
}

}  // namespace

std::string RenderHotReportText(const json& report) {
  using Align = TextTable::Align;
  std::string out = absl::StrFormat("Hot spots: %s instructions in total\n",
                                    Thousands(report["total"].get<uint64_t>()));

  TextTable blocks({Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                    Align::kLeft, Align::kLeft, Align::kLeft});
  blocks.AddRow(
      {"insns", "share", "execs", "size", "block", "ends with", "source"});
  for (const json& b : report["blocks"]) {
    blocks.AddRow({Count(b["instructions"]), Pct(b["share"]),
                   Count(b["executions"]),
                   Count(b["instructions_per_execution"]),
                   absl::StrCat(b["name"].get<std::string>(), " (",
                                b["address"].get<std::string>(), ")"),
                   b["end"].get<std::string>(), ShortSource(b["source"])});
  }
  absl::StrAppend(&out, "\nHot blocks:\n", blocks.Render());

  TextTable cond({Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                  Align::kLeft, Align::kLeft});
  cond.AddRow({"execs", "taken", "not taken", "taken%", "branch", "source"});
  for (const json& c : report["conditional_branches"]) {
    cond.AddRow({Count(c["executions"]), Count(c["taken"]),
                 Count(c["not_taken"]), Pct(c["taken_share"], 1),
                 absl::StrCat(c["name"].get<std::string>(), " (",
                              c["address"].get<std::string>(), ")"),
                 ShortSource(c["source"])});
  }
  absl::StrAppend(&out, "\nConditional branches:\n", cond.Render());

  TextTable taken({Align::kRight, Align::kLeft, Align::kLeft});
  taken.AddRow({"count", "kind", "from -> to"});
  for (const json& e : report["taken_branches"]) {
    taken.AddRow({Count(e["count"]), e["kind"].get<std::string>(),
                  absl::StrCat(e["from_name"].get<std::string>(), " -> ",
                               e["to_name"].get<std::string>())});
  }
  absl::StrAppend(&out, "\nTaken branches:\n", taken.Render());

  TextTable calls({Align::kRight, Align::kRight, Align::kLeft});
  calls.AddRow({"insns", "share", "call path (root first)"});
  for (const json& p : report["call_paths"]) {
    std::vector<std::string> frames;
    for (const json& f : p["stack"]) frames.push_back(f.get<std::string>());
    calls.AddRow({Count(p["instructions"]), Pct(p["share"]),
                  absl::StrJoin(frames, " > ")});
  }
  absl::StrAppend(&out, "\nHot call paths:\n", calls.Render());

  TextTable paths({Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                   Align::kLeft});
  paths.AddRow({"insns", "share", "execs", "length", "path (blocks in order)"});
  for (const json& p : report["paths"]) {
    std::vector<std::string> steps;
    for (const json& s : p["blocks"]) steps.push_back(s.get<std::string>());
    paths.AddRow(
        {Count(p["instructions"]), Pct(p["share"]), Count(p["executions"]),
         Count(p["instructions_per_execution"]), absl::StrJoin(steps, " ")});
  }
  absl::StrAppend(&out, "\nHot intra-procedural paths:\n", paths.Render());

  TextTable loops({Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kLeft, Align::kLeft});
  loops.AddRow({"insns", "share", "entries", "iterations", "trips/entry",
                "loop header", "source"});
  for (const json& l : report["loops"]) {
    loops.AddRow({Count(l["instructions"]), Pct(l["share"]),
                  Count(l["entries"]), Count(l["back_edges"]),
                  absl::StrFormat("%.1f", l["trip_count"].get<double>()),
                  absl::StrCat(l["name"].get<std::string>(), " (",
                               l["header"].get<std::string>(), "-",
                               l["end"].get<std::string>(), ")"),
                  ShortSource(l["source"])});
  }
  absl::StrAppend(&out, "\nLoops:\n", loops.Render());
  return out;
}

}  // namespace hwt::report
