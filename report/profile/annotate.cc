// Annotated disassembly; see annotate.h.
#include "report/profile/annotate.h"

#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "report/common/disassembler.h"
#include "report/common/text_util.h"

namespace hwt::report {
namespace {

using analysis::InstructionStats;

// The expansion's instructions in [start, end) of `image`.
std::pair<const InstructionStats*, const InstructionStats*> InstructionsIn(
    const analysis::BlockExpansion& expansion, uint32_t image, uint64_t start,
    uint64_t end) {
  auto less = [](const InstructionStats& s,
                 const std::pair<uint32_t, uint64_t>& key) {
    return std::tie(s.image, s.vaddr) < std::tie(key.first, key.second);
  };
  const auto& v = expansion.instructions;
  auto first =
      std::lower_bound(v.begin(), v.end(), std::make_pair(image, start), less);
  auto last =
      std::lower_bound(first, v.end(), std::make_pair(image, end), less);
  return {v.data() + (first - v.begin()), v.data() + (last - v.begin())};
}

}  // namespace

uint64_t InstructionsExecuted(const analysis::BlockExpansion& expansion,
                              uint32_t image, uint64_t start, uint64_t end) {
  uint64_t sum = 0;
  auto [first, last] = InstructionsIn(expansion, image, start, end);
  for (const InstructionStats* s = first; s != last; ++s) sum += s->count;
  return sum;
}

class FunctionAnnotator::Impl {
 public:
  Impl(symbolizer::Symbolizer& symbolizer, const analysis::Profile& profile,
       const analysis::BlockExpansion& expansion, ProfileNames& names)
      : symbolizer_(symbolizer),
        profile_(profile),
        expansion_(expansion),
        names_(names) {}

  AnnotatedFunction Annotate(const symbolizer::FunctionMatch& match);

 private:
  const Disassembler* DisassemblerFor(const std::string& arch, bool thumb);
  std::string TargetName(uint32_t image, uint64_t target);
  void AddStats(AnnotatedFunction& out);
  void AddInstructions(const std::vector<DisassembledInstruction>& insns,
                       AnnotatedFunction& out);

  symbolizer::Symbolizer& symbolizer_;
  const analysis::Profile& profile_;
  const analysis::BlockExpansion& expansion_;
  ProfileNames& names_;
  std::map<std::pair<std::string, bool>, std::unique_ptr<Disassembler>>
      disassemblers_;
};

const Disassembler* FunctionAnnotator::Impl::DisassemblerFor(
    const std::string& arch, bool thumb) {
  auto key = std::make_pair(arch, thumb);
  auto it = disassemblers_.find(key);
  if (it == disassemblers_.end()) {
    auto created = Disassembler::Create(arch, thumb);
    it = disassemblers_
             .emplace(key, created.ok() ? std::move(*created) : nullptr)
             .first;
  }
  return it->second.get();
}

std::string FunctionAnnotator::Impl::TargetName(uint32_t image,
                                                uint64_t target) {
  const symbolizer::FunctionSymbol* fn = symbolizer_.FunctionFor(image, target);
  if (fn == nullptr) return "";
  return target == fn->start
             ? absl::StrCat("<", fn->name, ">")
             : absl::StrFormat("<%s+0x%x>", fn->name, target - fn->start);
}

// Calls, self and total from the profile's function table.
void FunctionAnnotator::Impl::AddStats(AnnotatedFunction& out) {
  const analysis::FrameKey key{analysis::FrameKind::kFunction, out.image_id,
                               out.start};
  auto stats = std::lower_bound(
      profile_.functions.begin(), profile_.functions.end(), key,
      [](const analysis::FunctionStats& f, const analysis::FrameKey& k) {
        return f.frame < k;
      });
  out.all_instructions = profile_.stats.instructions;
  if (stats != profile_.functions.end() && stats->frame == key) {
    out.has_stats = true;
    out.calls = stats->calls;
    out.self = stats->self_insns;
    out.total = stats->total_insns;
  }
}

void FunctionAnnotator::Impl::AddInstructions(
    const std::vector<DisassembledInstruction>& insns, AnnotatedFunction& out) {
  const uint32_t image = out.image_id;
  std::vector<CodeAddress> addresses;
  for (const auto& insn : insns) addresses.push_back({image, insn.vaddr});
  names_.PrefetchInlineFrames(addresses);
  std::string last_source;
  for (const DisassembledInstruction& insn : insns) {
    AnnotatedInstruction row;
    std::string source = names_.SourceLine(image, insn.vaddr);
    const std::vector<uint32_t>& inl = names_.InlineFrames(image, insn.vaddr);
    if (!source.empty() && !inl.empty()) {
      absl::StrAppend(&source, " (inlined ", names_.frames()[inl.back()].name,
                      ")");
    }
    if (source != last_source && !source.empty()) row.source = source;
    last_source = source;
    const InstructionStats* s = expansion_.Find(image, insn.vaddr);
    row.address = insn.vaddr;
    row.count = s != nullptr ? s->count : 0;
    row.text = insn.text;
    if (insn.target) {
      const std::string target = TargetName(image, *insn.target);
      if (!target.empty()) absl::StrAppend(&row.text, " ", target);
    }
    if (s != nullptr && (s->conditional || insn.conditional) &&
        (s->taken != 0 || s->not_taken != 0)) {
      row.branch_counts = true;
      row.taken = s->taken;
      row.not_taken = s->not_taken;
    } else if (insn.conditional && row.count == 0) {
      row.never_reached = true;
    }
    out.instructions.push_back(std::move(row));
  }
}

AnnotatedFunction FunctionAnnotator::Impl::Annotate(
    const symbolizer::FunctionMatch& match) {
  const symbolizer::FunctionSymbol& fn = *match.symbol;
  AnnotatedFunction out;
  out.name = fn.name;
  out.image_id = match.image_id;
  out.image = names_.ImageName(match.image_id);
  out.start = fn.start;
  out.end = fn.start + fn.size;
  out.executed =
      InstructionsExecuted(expansion_, match.image_id, out.start, out.end);
  AddStats(out);
  const symbolizer::ImageInfo* info = symbolizer_.GetImageInfo(out.image_id);
  auto code = symbolizer_.ReadCode(out.image_id, fn.start, fn.size);
  if (!code.ok()) {
    out.no_code = absl::StrCat("no code to show: ", code.status().message());
    return out;
  }
  const Disassembler* disassembler =
      info == nullptr ? nullptr : DisassemblerFor(info->arch, fn.thumb);
  if (disassembler == nullptr) {
    out.no_code = absl::StrCat("no disassembler for architecture '",
                               info == nullptr ? "?" : info->arch, "'");
    return out;
  }
  AddInstructions(disassembler->Disassemble(*code, fn.start), out);
  return out;
}

FunctionAnnotator::FunctionAnnotator(symbolizer::Symbolizer& symbolizer,
                                     const analysis::Profile& profile,
                                     const analysis::BlockExpansion& expansion,
                                     ProfileNames& names)
    : impl_(std::make_unique<Impl>(symbolizer, profile, expansion, names)) {}
FunctionAnnotator::~FunctionAnnotator() = default;

AnnotatedFunction FunctionAnnotator::Annotate(
    const symbolizer::FunctionMatch& match) {
  return impl_->Annotate(match);
}

std::string RenderAnnotatedFunction(const AnnotatedFunction& f) {
  std::string out;
  absl::StrAppendFormat(&out, "%s (%s) 0x%x-0x%x, %d bytes\n", f.name, f.image,
                        f.start, f.end, f.end - f.start);
  absl::StrAppendFormat(
      &out, "  %s instructions executed here (%s of %s)", Thousands(f.executed),
      Percent(f.executed, f.all_instructions), Thousands(f.all_instructions));
  if (f.has_stats) {
    absl::StrAppendFormat(&out, "; entered by %s %s; self %s, total %s",
                          Thousands(f.calls), f.calls == 1 ? "call" : "calls",
                          Thousands(f.self), Thousands(f.total));
  }
  out += "\n";
  if (!f.no_code.empty()) {
    absl::StrAppend(&out, "  (", f.no_code, ")\n");
    return out;
  }
  // Rows first, to size the columns.
  struct Row {
    std::string count, share, address, note;
  };
  std::vector<Row> rows;
  size_t text_width = 0;
  for (const AnnotatedInstruction& insn : f.instructions) {
    Row row;
    row.count = insn.count != 0 ? Thousands(insn.count) : ".";
    row.share = insn.count != 0 ? Percent(insn.count, f.executed, 1) : "";
    row.address = absl::StrFormat("%x:", insn.address);
    if (insn.branch_counts) {
      row.note =
          absl::StrFormat("taken %s, not taken %s (%s taken)",
                          Thousands(insn.taken), Thousands(insn.not_taken),
                          Percent(insn.taken, insn.taken + insn.not_taken, 1));
    } else if (insn.never_reached) {
      row.note = "never reached";
    }
    text_width = std::max(text_width, insn.text.size());
    rows.push_back(std::move(row));
  }
  text_width = std::min<size_t>(text_width, 56);
  size_t count_width = 5, share_width = 6, address_width = 0;
  for (const Row& r : rows) {
    count_width = std::max(count_width, r.count.size());
    share_width = std::max(share_width, r.share.size());
    address_width = std::max(address_width, r.address.size());
  }
  const std::string indent(count_width + share_width + address_width + 7, ' ');
  absl::StrAppendFormat(&out, "\n  %*s  %*s  %-*s  %s\n",
                        static_cast<int>(count_width), "count",
                        static_cast<int>(share_width), "share",
                        static_cast<int>(address_width), "addr", "instruction");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const AnnotatedInstruction& insn = f.instructions[i];
    if (!insn.source.empty()) absl::StrAppend(&out, indent, insn.source, "\n");
    std::string line = absl::StrFormat(
        "  %*s  %*s  %*s  %-*s  %s", static_cast<int>(count_width), r.count,
        static_cast<int>(share_width), r.share, static_cast<int>(address_width),
        r.address, static_cast<int>(text_width), insn.text, r.note);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

absl::StatusOr<std::string> AnnotateFunctions(
    const std::string& pattern, symbolizer::Symbolizer& symbolizer,
    const analysis::Profile& profile, const analysis::BlockExpansion& expansion,
    ProfileNames& names, const AnnotateOptions& options) {
  HWT_ASSIGN_OR_RETURN(
      std::vector<symbolizer::FunctionMatch> matches,
      symbolizer.FindFunctions(pattern, symbolizer::NameMatch::kExact));
  if (matches.empty()) {
    HWT_ASSIGN_OR_RETURN(matches, symbolizer.FindFunctions(
                                      pattern, symbolizer::NameMatch::kRegex));
  }
  if (matches.empty()) {
    return absl::NotFoundError(
        absl::StrCat("--annotate: no function matches '", pattern,
                     "' (an exact name, or an extended regular expression)"));
  }
  struct Ranked {
    symbolizer::FunctionMatch match;
    uint64_t executed;
  };
  std::vector<Ranked> ranked;
  for (const symbolizer::FunctionMatch& m : matches) {
    ranked.push_back(
        {m, InstructionsExecuted(expansion, m.image_id, m.symbol->start,
                                 m.symbol->start + m.symbol->size)});
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const Ranked& a, const Ranked& b) { return a.executed > b.executed; });
  FunctionAnnotator annotator(symbolizer, profile, expansion, names);
  std::string out;
  const size_t shown = options.max_functions == 0
                           ? ranked.size()
                           : std::min(ranked.size(), options.max_functions);
  for (size_t i = 0; i < shown; ++i) {
    if (i != 0) out += "\n";
    out += RenderAnnotatedFunction(annotator.Annotate(ranked[i].match));
  }
  if (shown < ranked.size()) {
    absl::StrAppendFormat(&out, "\n%d more functions match '%s':",
                          ranked.size() - shown, pattern);
    for (size_t i = shown; i < ranked.size() && i < shown + 50; ++i) {
      absl::StrAppend(&out, i == shown ? " " : ", ",
                      ranked[i].match.symbol->name);
    }
    if (ranked.size() > shown + 50) out += ", ...";
    out += "\n";
  }
  return out;
}

}  // namespace hwt::report
