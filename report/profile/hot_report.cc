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

// The sections of HotReportJson, one JSON array of rows each. Holds what
// they share: the function filter and every expanded instruction's function.
class HotSections {
 public:
  HotSections(const analysis::Profile& profile,
              const analysis::BlockExpansion& expansion, ProfileNames& names,
              const HotOptions& options)
      : profile_(profile),
        expansion_(expansion),
        names_(names),
        options_(options),
        total_(profile.stats.instructions) {
    // The function of every expanded instruction (by its block).
    for (uint32_t b = 0; b < profile.blocks.size(); ++b) {
      if (b + 1 >= expansion.block_begin.size()) break;
      for (uint64_t vaddr : expansion.BlockInstructions(b)) {
        insn_function_.try_emplace({profile.blocks[b].image, vaddr},
                                   profile.blocks[b].function);
      }
    }
  }

  json Blocks() const;
  json ConditionalBranches() const;
  json TakenBranches() const;
  json CallPaths(const analysis::CallTree& tree) const;
  json Paths() const;
  json Loops() const;

 private:
  bool Keep(const FunctionId& fn) const {
    return !options_.keep_function || options_.keep_function(fn);
  }
  FunctionId FunctionOf(uint32_t image, uint64_t vaddr) const {
    auto it = insn_function_.find({image, vaddr});
    return it == insn_function_.end() ? FunctionId{} : it->second;
  }
  uint64_t BlockWeight(uint32_t b) const {
    return profile_.blocks[b].count * profile_.blocks[b].ninsn;
  }

  const analysis::Profile& profile_;
  const analysis::BlockExpansion& expansion_;
  ProfileNames& names_;
  const HotOptions& options_;
  const uint64_t total_;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, FunctionId> insn_function_;
};

json HotSections::Blocks() const {
  std::vector<uint32_t> blocks;
  for (uint32_t b = 0; b < profile_.blocks.size(); ++b) {
    if (Keep(profile_.blocks[b].function)) blocks.push_back(b);
  }
  std::stable_sort(blocks.begin(), blocks.end(), [&](uint32_t a, uint32_t b) {
    return BlockWeight(a) > BlockWeight(b);
  });
  json rows = json::array();
  for (size_t i = 0; i < Limit(options_.rows, blocks.size()); ++i) {
    const BlockStats& b = profile_.blocks[blocks[i]];
    rows.push_back(
        {{"address", Hex(b.vaddr)},
         {"image", names_.ImageName(b.image)},
         {"name", names_.AddressName(b.image, b.vaddr, b.function)},
         {"last", names_.AddressName(b.image, b.last_vaddr, b.last_function)},
         {"end", std::string(BranchKindName(b.end))},
         {"instructions_per_execution", b.ninsn},
         {"executions", b.count},
         {"instructions", BlockWeight(blocks[i])},
         {"share", Share(BlockWeight(blocks[i]), total_)},
         {"source", names_.SourceLine(b.image, b.vaddr)}});
  }
  return rows;
}

json HotSections::ConditionalBranches() const {
  std::vector<const analysis::InstructionStats*> conditionals;
  for (const analysis::InstructionStats& s : expansion_.instructions) {
    if (s.conditional && s.taken + s.not_taken != 0 &&
        Keep(FunctionOf(s.image, s.vaddr))) {
      conditionals.push_back(&s);
    }
  }
  std::stable_sort(conditionals.begin(), conditionals.end(),
                   [](const auto* a, const auto* b) {
                     return a->taken + a->not_taken > b->taken + b->not_taken;
                   });
  json rows = json::array();
  for (size_t i = 0; i < Limit(options_.rows, conditionals.size()); ++i) {
    const analysis::InstructionStats& s = *conditionals[i];
    rows.push_back({{"address", Hex(s.vaddr)},
                    {"image", names_.ImageName(s.image)},
                    {"name", names_.AddressName(s.image, s.vaddr,
                                                FunctionOf(s.image, s.vaddr))},
                    {"executions", s.taken + s.not_taken},
                    {"taken", s.taken},
                    {"not_taken", s.not_taken},
                    {"taken_share", Share(s.taken, s.taken + s.not_taken)},
                    {"source", names_.SourceLine(s.image, s.vaddr)}});
  }
  return rows;
}

// Taken branch edges (the branch's block ends there: its last function).
json HotSections::TakenBranches() const {
  std::vector<analysis::BranchEdge> edges = analysis::TakenBranches(profile_);
  edges.erase(std::remove_if(edges.begin(), edges.end(),
                             [&](const analysis::BranchEdge& e) {
                               return !Keep(FunctionOf(e.from_image, e.from));
                             }),
              edges.end());
  std::stable_sort(
      edges.begin(), edges.end(),
      [](const auto& a, const auto& b) { return a.count > b.count; });
  json rows = json::array();
  for (size_t i = 0; i < Limit(options_.rows, edges.size()); ++i) {
    const analysis::BranchEdge& e = edges[i];
    // The target's function: of the block that starts there, if any.
    FunctionId to_fn = FunctionOf(e.to_image, e.to);
    rows.push_back(
        {{"from", Hex(e.from)},
         {"from_name", names_.AddressName(e.from_image, e.from,
                                          FunctionOf(e.from_image, e.from))},
         {"to", Hex(e.to)},
         {"to_name", names_.AddressName(e.to_image, e.to, to_fn)},
         {"kind", std::string(BranchKindName(e.kind))},
         {"count", e.count}});
  }
  return rows;
}

json HotSections::CallPaths(const analysis::CallTree& tree) const {
  json rows = json::array();
  for (const analysis::HotCallPath& p : analysis::HotCallPaths(
           tree, options_.rows == 0 ? tree.nodes.size() : options_.rows)) {
    json stack = json::array();
    for (const analysis::FrameKey& key : analysis::StackOf(tree, p.node)) {
      stack.push_back(names_.Name(key));
    }
    rows.push_back({{"stack", std::move(stack)},
                    {"instructions", p.insns},
                    {"share", Share(p.insns, total_)}});
  }
  return rows;
}

// Intra-procedural paths.
json HotSections::Paths() const {
  json rows = json::array();
  for (const analysis::PathStats& p : profile_.paths) {
    if (options_.rows != 0 && rows.size() >= options_.rows) break;
    if (p.blocks.empty() || p.weight() == 0) continue;
    const BlockStats& first = profile_.blocks[p.blocks.front()];
    if (!Keep(first.function)) continue;
    json steps = json::array();
    for (uint32_t b : p.blocks) {
      const BlockStats& block = profile_.blocks[b];
      steps.push_back(
          names_.AddressName(block.image, block.vaddr, block.function));
    }
    rows.push_back(
        {{"function", names_.AddressName(first.image, first.function.start,
                                         first.function)},
         {"executions", p.count},
         {"instructions_per_execution", p.insns},
         {"instructions", p.weight()},
         {"share", Share(p.weight(), total_)},
         {"blocks", std::move(steps)}});
  }
  return rows;
}

json HotSections::Loops() const {
  json rows = json::array();
  for (const analysis::Loop& loop : analysis::FindLoops(profile_, expansion_)) {
    if (options_.rows != 0 && rows.size() >= options_.rows) break;
    if (!Keep(loop.function)) continue;
    json latches = json::array();
    for (uint64_t l : loop.latches) latches.push_back(Hex(l));
    rows.push_back(
        {{"header", Hex(loop.header)},
         {"name", names_.AddressName(loop.image, loop.header, loop.function)},
         {"end", Hex(loop.end)},
         {"latches", std::move(latches)},
         {"entries", loop.entries},
         {"back_edges", loop.back_edges},
         {"trip_count", loop.trip_count()},
         {"instructions", loop.instructions},
         {"share", Share(loop.instructions, total_)},
         {"source", names_.SourceLine(loop.image, loop.header)}});
  }
  return rows;
}

}  // namespace

json HotReportJson(const analysis::Profile& profile,
                   const analysis::BlockExpansion& expansion,
                   const analysis::CallTree& tree, ProfileNames& names,
                   const HotOptions& options) {
  const HotSections sections(profile, expansion, names, options);
  json out;
  out["unit"] = "instructions";
  out["total"] = profile.stats.instructions;
  out["blocks"] = sections.Blocks();
  out["conditional_branches"] = sections.ConditionalBranches();
  out["taken_branches"] = sections.TakenBranches();
  out["call_paths"] = sections.CallPaths(tree);
  out["paths"] = sections.Paths();
  out["loops"] = sections.Loops();
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
