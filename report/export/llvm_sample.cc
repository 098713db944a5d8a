// The LLVM sample profile from exact counts.
#include "report/export/llvm_sample.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace hwt::report {
namespace {

using Location = std::pair<uint32_t, uint32_t>;

// LLVM's prefix encoding of one discriminator component.
uint32_t UnsignedFromPrefixEncoding(uint32_t u) {
  if (u & 1) return 0;
  u >>= 1;
  return (u & 0x20) ? (((u >> 1) & 0xfe0) | (u & 0x1f)) : (u & 0x1f);
}

uint32_t NextComponent(uint32_t d) {
  if ((d & 1) == 0) return d >> ((d & 0x40) ? 14 : 7);
  return d >> 1;
}

Location LocationOf(const ExportFrame& f) {
  return {(f.line - f.start_line) & 0xffff, BaseDiscriminator(f.discriminator)};
}

// DWARF describes the address (a subprogram with its first line; the
// line itself may be 0: code the compiler made without a line).
bool HasLines(const std::vector<ExportFrame>& chain) {
  return !chain.empty() && chain.back().start_line != 0;
}

const std::string& NameOf(const ExportFrame& f) {
  return f.linkage_name.empty() ? f.function : f.linkage_name;
}

// The function samples of the innermost frame of `chain` (innermost first),
// adding `count` to the total of every frame on the way.
SampleFunction& Leaf(SampleProfile& profile,
                     const std::vector<ExportFrame>& chain, uint64_t count) {
  SampleFunction* fn = &profile[NameOf(chain.back())];
  fn->name = NameOf(chain.back());
  fn->total += count;
  for (size_t k = chain.size() - 1; k > 0; --k) {
    const Location site = LocationOf(chain[k]);
    const std::string& callee = NameOf(chain[k - 1]);
    fn = &fn->inlined[{site.first, site.second, callee}];
    fn->name = callee;
    fn->total += count;
  }
  return *fn;
}

void WriteFunction(const SampleFunction& fn, int indent, bool top,
                   std::string* out) {
  absl::StrAppend(out, fn.name, ":", fn.total);
  if (top) absl::StrAppend(out, ":", fn.head);
  absl::StrAppend(out, "\n");
  auto location = [](const Location& loc) {
    return loc.second == 0 ? absl::StrCat(loc.first)
                           : absl::StrCat(loc.first, ".", loc.second);
  };
  std::map<Location, uint64_t> lines = fn.body;
  for (const auto& [loc, targets] : fn.calls) lines.try_emplace(loc, 0);
  for (const auto& [loc, count] : lines) {
    absl::StrAppend(out, std::string(indent + 1, ' '), location(loc), ": ",
                    count);
    auto calls = fn.calls.find(loc);
    if (calls != fn.calls.end()) {
      for (const auto& [callee, n] : calls->second) {
        absl::StrAppend(out, " ", callee, ":", n);
      }
    }
    absl::StrAppend(out, "\n");
  }
  for (const auto& [site, callee] : fn.inlined) {
    absl::StrAppend(out, std::string(indent + 1, ' '),
                    location({std::get<0>(site), std::get<1>(site)}), ": ");
    WriteFunction(callee, indent + 1, false, out);
  }
}

}  // namespace

uint32_t BaseDiscriminator(uint32_t discriminator) {
  return UnsignedFromPrefixEncoding(discriminator);
}

uint32_t DuplicationFactor(uint32_t discriminator) {
  const uint32_t factor =
      UnsignedFromPrefixEncoding(NextComponent(discriminator));
  return factor == 0 ? 1 : factor;
}

SampleProfile BuildSampleProfile(ExportInput& input, const ImageFlow& flow) {
  const analysis::BlockExpansion& expansion = input.expansion();
  std::vector<CodeAddress> addresses;
  std::vector<uint64_t> counts, sizes;
  for (const analysis::InstructionStats& insn : expansion.instructions) {
    if (insn.image != flow.image || insn.count == 0) continue;
    addresses.push_back({insn.image, insn.vaddr});
    counts.push_back(insn.count);
    sizes.push_back(insn.length);
  }
  SampleProfile profile;
  const std::vector<std::vector<ExportFrame>> frames =
      input.SourceFrames(addresses);
  for (size_t i = 0; i < addresses.size(); ++i) {
    const std::vector<ExportFrame>& chain = frames[i];
    if (!HasLines(chain)) continue;
    SampleFunction& leaf = Leaf(profile, chain, counts[i] * sizes[i]);
    const uint64_t count =
        counts[i] * DuplicationFactor(chain.front().discriminator);
    uint64_t& line = leaf.body[LocationOf(chain.front())];
    line = std::max(line, count);
  }
  // Calls: branches of the image to a function entry that has line
  // information.
  std::vector<CodeAddress> sources;
  std::vector<std::pair<std::string, uint64_t>> calls;
  for (const FlowBranch& b : flow.branches) {
    if (b.from_image != flow.image || b.to_image != flow.image) continue;
    std::optional<ExportFunction> callee = input.Function(flow.image, b.to);
    if (!callee || callee->start_line == 0) continue;
    sources.push_back({flow.image, b.from});
    calls.emplace_back(callee->linkage_name, b.count);
  }
  const std::vector<std::vector<ExportFrame>> source_frames =
      input.SourceFrames(sources);
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::vector<ExportFrame>& chain = source_frames[i];
    if (HasLines(chain)) {
      SampleFunction& leaf = Leaf(profile, chain, 0);
      leaf.calls[LocationOf(chain.front())][calls[i].first] += calls[i].second;
    }
    SampleFunction& callee = profile[calls[i].first];
    callee.name = calls[i].first;
    callee.head += calls[i].second;
  }
  return profile;
}

std::string RenderSampleProfileText(const SampleProfile& profile) {
  std::string out;
  for (const auto& [name, fn] : profile) WriteFunction(fn, 0, true, &out);
  return out;
}

}  // namespace hwt::report
