// The symbolized profile layer; see symbolized_profile.h.
#include "report/naming/symbolized_profile.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/file_util.h"

namespace hwt::report {

using analysis::CallTree;
using analysis::FrameKey;
using analysis::FrameKind;

std::string_view FrameCategoryName(FrameCategory category) {
  switch (category) {
    case FrameCategory::kUser:
      return "user";
    case FrameCategory::kLibc:
      return "libc";
    case FrameCategory::kLoader:
      return "ld.so";
    case FrameCategory::kLibrary:
      return "library";
    case FrameCategory::kKernel:
      return "kernel";
    case FrameCategory::kUnknown:
      return "unknown";
    case FrameCategory::kGap:
      return "gap";
  }
  return "unknown";
}

FrameCategory CategoryOfImage(std::string_view path, bool kernel) {
  if (kernel) return FrameCategory::kKernel;
  const std::string base = BaseName(path);
  if (absl::StartsWith(base, "ld-") || absl::StartsWith(base, "ld.so")) {
    return FrameCategory::kLoader;
  }
  if (absl::StartsWith(base, "libc.so") || absl::StartsWith(base, "libc-")) {
    return FrameCategory::kLibc;
  }
  if (base == "[vdso]" || base.find(".so") != std::string::npos) {
    return FrameCategory::kLibrary;
  }
  if (base == "kernel" || absl::StartsWith(base, "vmlinux") ||
      absl::EndsWith(base, ".ko")) {
    return FrameCategory::kKernel;
  }
  return FrameCategory::kUser;
}

uint32_t FrameTable::Intern(NamedFrame frame) {
  auto [it, inserted] = index_.try_emplace(
      std::make_tuple(frame.name, frame.image, frame.inlined),
      static_cast<uint32_t>(frames_.size()));
  if (inserted) frames_.push_back(std::move(frame));
  return it->second;
}

std::string ProfileNames::ImageName(uint32_t image) {
  if (image == analysis::kNoImage) return "";
  auto it = images_.find(image);
  if (it == images_.end()) {
    const std::string path = symbols_.ImagePath(image);
    it = images_
             .try_emplace(image, BaseName(path),
                          CategoryOfImage(path, symbols_.IsKernelImage(image)))
             .first;
  }
  return it->second.first;
}

FrameCategory ProfileNames::ImageCategory(uint32_t image) {
  if (image == analysis::kNoImage) return FrameCategory::kUnknown;
  ImageName(image);
  return images_.at(image).second;
}

uint32_t ProfileNames::Frame(const FrameKey& key) {
  auto it = by_key_.find(key);
  if (it != by_key_.end()) return it->second;
  NamedFrame frame;
  switch (key.kind) {
    case FrameKind::kFunction:
      frame.name = symbols_.FunctionName(key.image, key.start);
      frame.image = ImageName(key.image);
      frame.category = ImageCategory(key.image);
      if (source_lines_) {
        const std::vector<SourceFrame> at = std::move(
            symbols_.SourceFrames({CodeAddress{key.image, key.start}}).front());
        if (!at.empty()) {
          frame.file = at.back().file;
          frame.line = at.back().line;
        }
      }
      break;
    case FrameKind::kUnknownCode:
      frame.image = ImageName(key.image);
      frame.name = absl::StrFormat("[%s+0x%x]", frame.image, key.start);
      frame.category = ImageCategory(key.image);
      break;
    case FrameKind::kUnknown:
      frame.name = "[unknown]";
      frame.category = FrameCategory::kUnknown;
      break;
    case FrameKind::kGap:
      frame.name = "[gap]";
      frame.category = FrameCategory::kGap;
      break;
  }
  const uint32_t id = frames_.Intern(std::move(frame));
  by_key_.emplace(key, id);
  return id;
}

void ProfileNames::PrefetchInlineFrames(
    absl::Span<const CodeAddress> addresses) {
  std::vector<CodeAddress> missing;
  for (const CodeAddress& a : addresses) {
    if (a.image != analysis::kNoImage &&
        !addresses_.contains({a.image, a.vaddr})) {
      missing.push_back(a);
    }
  }
  std::sort(missing.begin(), missing.end(),
            [](const CodeAddress& a, const CodeAddress& b) {
              return std::tie(a.image, a.vaddr) < std::tie(b.image, b.vaddr);
            });
  missing.erase(std::unique(missing.begin(), missing.end(),
                            [](const CodeAddress& a, const CodeAddress& b) {
                              return a.image == b.image && a.vaddr == b.vaddr;
                            }),
                missing.end());
  if (missing.empty()) return;
  const std::vector<std::vector<SourceFrame>> found =
      symbols_.SourceFrames(missing);
  for (size_t i = 0; i < missing.size(); ++i) {
    AddressInfo info;
    const std::vector<SourceFrame>& frames = found[i];
    if (!frames.empty()) {
      const SourceFrame& inner = frames.front();
      if (!inner.file.empty()) {
        info.source_line = inner.line != 0
                               ? absl::StrCat(inner.file, ":", inner.line)
                               : inner.file;
      }
      // Innermost first, the function last: inline frames outermost first.
      for (size_t k = frames.size() - 1; k-- > 0;) {
        NamedFrame frame;
        frame.name = frames[k].function;
        frame.image = ImageName(missing[i].image);
        frame.category = ImageCategory(missing[i].image);
        frame.inlined = true;
        frame.file = frames[k].file;
        info.inline_frames.push_back(frames_.Intern(std::move(frame)));
      }
    }
    addresses_.emplace(std::make_pair(missing[i].image, missing[i].vaddr),
                       std::move(info));
  }
}

const ProfileNames::AddressInfo& ProfileNames::Address(uint32_t image,
                                                       uint64_t vaddr) {
  static const AddressInfo* const kNone = new AddressInfo();
  if (image == analysis::kNoImage) return *kNone;
  auto it = addresses_.find({image, vaddr});
  if (it == addresses_.end()) {
    const CodeAddress a{image, vaddr};
    PrefetchInlineFrames(absl::MakeConstSpan(&a, 1));
    it = addresses_.find({image, vaddr});
  }
  return it->second;
}

const std::vector<uint32_t>& ProfileNames::InlineFrames(uint32_t image,
                                                        uint64_t vaddr) {
  return Address(image, vaddr).inline_frames;
}

std::string ProfileNames::SourceLine(uint32_t image, uint64_t vaddr) {
  return Address(image, vaddr).source_line;
}

std::string ProfileNames::AddressName(uint32_t image, uint64_t vaddr,
                                      const analysis::FunctionId& fn) {
  switch (fn.kind) {
    case FrameKind::kFunction: {
      std::string name =
          Name(FrameKey{FrameKind::kFunction, fn.image, fn.start});
      if (vaddr != fn.start)
        absl::StrAppendFormat(&name, "+0x%x", vaddr - fn.start);
      return name;
    }
    case FrameKind::kUnknownCode:
      return absl::StrFormat("[%s+0x%x]", ImageName(image), vaddr);
    default:
      return absl::StrFormat("0x%x", vaddr);
  }
}

namespace {

// A tree under construction: nodes in creation order, children found by
// (parent, frame).
class TreeBuilder {
 public:
  TreeBuilder() { nodes_.emplace_back(); }

  uint32_t Child(uint32_t parent, uint32_t frame) {
    auto [it, inserted] = index_.try_emplace(
        std::make_pair(parent, frame), static_cast<uint32_t>(nodes_.size()));
    if (inserted) {
      NamedTree::Node node;
      node.frame = frame;
      node.parent = parent;
      nodes_.push_back(node);
    }
    return it->second;
  }
  NamedTree::Node& node(uint32_t i) { return nodes_[i]; }

  // Preorder, children by (name, image, frame id); totals summed.
  NamedTree Finish(const FrameTable& frames) {
    std::vector<std::vector<uint32_t>> children(nodes_.size());
    for (uint32_t i = 1; i < nodes_.size(); ++i) {
      children[nodes_[i].parent].push_back(i);
    }
    auto less = [&](uint32_t a, uint32_t b) {
      const NamedFrame& fa = frames[nodes_[a].frame];
      const NamedFrame& fb = frames[nodes_[b].frame];
      return std::tie(fa.name, fa.image, nodes_[a].frame) <
             std::tie(fb.name, fb.image, nodes_[b].frame);
    };
    NamedTree tree;
    tree.nodes.reserve(nodes_.size());
    // Iterative preorder: (old index, new parent).
    std::vector<std::pair<uint32_t, uint32_t>> stack = {{0, 0}};
    while (!stack.empty()) {
      auto [old, parent] = stack.back();
      stack.pop_back();
      const uint32_t index = static_cast<uint32_t>(tree.nodes.size());
      NamedTree::Node node = nodes_[old];
      node.parent = index == 0 ? 0 : parent;
      node.depth = index == 0 ? 0 : tree.nodes[parent].depth + 1;
      node.total = node.self;
      tree.nodes.push_back(node);
      std::vector<uint32_t>& kids = children[old];
      std::sort(kids.begin(), kids.end(), less);
      for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
        stack.emplace_back(*it, index);
      }
    }
    // Subtree ends and totals, bottom up.
    for (uint32_t i = static_cast<uint32_t>(tree.nodes.size()); i-- > 0;) {
      tree.nodes[i].end = std::max(tree.nodes[i].end, i + 1);
      if (i == 0) break;
      NamedTree::Node& parent = tree.nodes[tree.nodes[i].parent];
      parent.total += tree.nodes[i].total;
      parent.end = std::max(parent.end, tree.nodes[i].end);
    }
    return tree;
  }

 private:
  std::vector<NamedTree::Node> nodes_;
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, uint32_t> index_;
};

}  // namespace

NamedTree BuildNamedTree(const CallTree& tree, ProfileNames& names,
                         const NamedTreeOptions& options) {
  TreeBuilder builder;
  if (tree.nodes.empty()) return builder.Finish(names.frames());
  const bool by_time = options.weight == Weight::kTime;
  const bool split_inlines = options.inline_frames && !by_time &&
                             options.profile != nullptr &&
                             options.expansion != nullptr;

  // Per-address counts of every node that has instructions of its own, and
  // their inline frames in one batch.
  absl::flat_hash_map<uint32_t, std::vector<analysis::AddressCount>> counts;
  if (split_inlines) {
    std::vector<CodeAddress> addresses;
    for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
      const CallTree::Node& n = tree.nodes[i];
      if (n.frame.kind != FrameKind::kFunction || n.self_insns == 0) continue;
      std::vector<analysis::AddressCount> c = analysis::NodeInstructionCounts(
          *options.profile, tree, i, *options.expansion);
      for (const analysis::AddressCount& a : c) {
        addresses.push_back({a.image, a.vaddr});
      }
      counts.emplace(i, std::move(c));
    }
    names.PrefetchInlineFrames(addresses);
  }

  std::vector<uint32_t> map(tree.nodes.size(), 0);
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    if (n.frame.kind == FrameKind::kGap && !options.keep_gaps) continue;
    const uint32_t node = builder.Child(map[n.parent], names.Frame(n.frame));
    map[i] = node;
    NamedTree::Node& out = builder.node(node);
    out.calls += n.calls;
    out.gaps += n.gaps;
    uint64_t self = by_time ? n.self_time : n.self_insns;
    auto it = counts.find(i);
    if (it != counts.end()) {
      uint64_t covered = 0;
      for (const analysis::AddressCount& a : it->second) {
        const std::vector<uint32_t>& inl = names.InlineFrames(a.image, a.vaddr);
        if (inl.empty()) continue;
        uint32_t at = node;
        for (uint32_t frame : inl) at = builder.Child(at, frame);
        builder.node(at).self += a.count;
        covered += a.count;
      }
      self = self > covered ? self - covered : 0;
    }
    builder.node(node).self += self;
  }
  return builder.Finish(names.frames());
}

NamedTree NamedTreeFromStacks(
    const std::vector<std::pair<std::vector<std::string>, uint64_t>>& stacks,
    FrameTable& frames,
    const std::function<FrameCategory(std::string_view root)>& category_of) {
  TreeBuilder builder;
  for (const auto& [names, weight] : stacks) {
    if (names.empty()) continue;
    const FrameCategory category =
        category_of ? category_of(names.front()) : FrameCategory::kUser;
    uint32_t at = 0;
    for (const std::string& name : names) {
      NamedFrame frame;
      frame.name = name;
      frame.category = category;
      at = builder.Child(at, frames.Intern(std::move(frame)));
    }
    builder.node(at).self += weight;
  }
  return builder.Finish(frames);
}

NamedTree NamedTreeFromFolded(
    std::string_view folded, FrameTable& frames,
    const std::function<FrameCategory(std::string_view root)>& category_of,
    size_t* bad_lines) {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> stacks;
  size_t bad = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(folded.data(), folded.size()), '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t space = line.rfind(' ');
    uint64_t weight = 0;
    double fractional = 0;
    if (space == absl::string_view::npos || space == 0) {
      ++bad;
      continue;
    }
    const absl::string_view count = line.substr(space + 1);
    if (!absl::SimpleAtoi(count, &weight)) {
      if (!absl::SimpleAtod(count, &fractional) || fractional < 0) {
        ++bad;
        continue;
      }
      weight = static_cast<uint64_t>(std::llround(fractional));
    }
    stacks.emplace_back(absl::StrSplit(line.substr(0, space), ';'), weight);
  }
  if (bad_lines != nullptr) *bad_lines = bad;
  return NamedTreeFromStacks(stacks, frames, category_of);
}

std::vector<uint32_t> NamedStack(const NamedTree& tree, uint32_t node) {
  std::vector<uint32_t> stack;
  for (uint32_t n = node; n != 0; n = tree.nodes[n].parent) {
    stack.push_back(tree.nodes[n].frame);
  }
  std::reverse(stack.begin(), stack.end());
  return stack;
}

}  // namespace hwt::report
