// ValidateProfile: the invariants of the saved profile model that readers
// and the reports rely on (see profile_file.h), each violation described
// by the section and item it is in.
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "base/status_macros.h"

namespace hwt::analysis {
namespace {

constexpr uint32_t kMaxFrameKind = static_cast<uint32_t>(FrameKind::kGap);
constexpr uint32_t kMaxBranchKind = static_cast<uint32_t>(BranchKind::kOther);
constexpr uint32_t kMaxIsa = static_cast<uint32_t>(Isa::kT32);
constexpr uint32_t kMaxGapReason = static_cast<uint32_t>(GapReason::kNoSync);

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

class Validator {
 public:
  explicit Validator(const SavedProfile& p)
      : p_(p), images_(static_cast<uint32_t>(p.images.size())) {}

  absl::Status Run() {
    HWT_RETURN_IF_ERROR(Sources());
    HWT_RETURN_IF_ERROR(Images());
    HWT_RETURN_IF_ERROR(Blocks());
    HWT_RETURN_IF_ERROR(Edges());
    HWT_RETURN_IF_ERROR(Functions());
    HWT_RETURN_IF_ERROR(Paths());
    HWT_RETURN_IF_ERROR(Tree(p_.profile.merged, "the merged tree"));
    const auto& threads = p_.profile.threads;
    for (size_t i = 0; i < threads.size(); ++i) {
      const ThreadProfile& t = threads[i];
      const std::string what = absl::StrCat("thread ", i);
      if (t.capture >= p_.sources.size()) {
        return Bad(absl::StrFormat("%s: capture %d out of range (%d captures)",
                                   what, t.capture, p_.sources.size()));
      }
      if (i > 0) {
        const ThreadProfile& prev = threads[i - 1];
        if (std::tie(prev.capture, prev.stream, prev.context) >=
            std::tie(t.capture, t.stream, t.context)) {
          return Bad(what +
                     ": threads not sorted by (capture, stream, "
                     "context)");
        }
      }
      HWT_RETURN_IF_ERROR(Tree(t.tree, "the tree of " + what));
    }
    return absl::OkStatus();
  }

 private:
  bool ImageOk(uint32_t image) const {
    return image < images_ || image == kNoImage;
  }

  absl::Status Frame(const FrameKey& key, const std::string& what) const {
    if (static_cast<uint32_t>(key.kind) > kMaxFrameKind) {
      return Bad(absl::StrFormat("%s: unknown frame kind %d", what,
                                 static_cast<int>(key.kind)));
    }
    if (!ImageOk(key.image)) {
      return Bad(absl::StrFormat("%s: image %d out of range (%d images)", what,
                                 key.image, images_));
    }
    return absl::OkStatus();
  }

  absl::Status Sources() const {
    for (size_t i = 0; i < p_.sources.size(); ++i) {
      for (const SavedStream& s : p_.sources[i].streams) {
        for (const DecodeErrorInfo& e : s.stats.error_list) {
          if (static_cast<uint32_t>(e.reason) > kMaxGapReason) {
            return Bad(
                absl::StrFormat("capture %d, stream %d: unknown gap reason %d",
                                i, s.info.id, static_cast<int>(e.reason)));
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Images() const {
    for (uint32_t i = 0; i < images_; ++i) {
      const SavedImage& image = p_.images[i];
      for (size_t k = 1; k < image.functions.size(); ++k) {
        if (image.functions[k - 1].start >= image.functions[k].start) {
          return Bad(
              absl::StrFormat("image %d: functions not sorted by start at 0x%x",
                              i, image.functions[k].start));
        }
      }
      for (size_t k = 1; k < image.addresses.size(); ++k) {
        if (image.addresses[k - 1].vaddr >= image.addresses[k].vaddr) {
          return Bad(absl::StrFormat("image %d: addresses not sorted at 0x%x",
                                     i, image.addresses[k].vaddr));
        }
      }
      for (size_t k = 0; k < image.code.size(); ++k) {
        const CodeRange& r = image.code[k];
        const uint64_t end = r.vaddr + r.bytes.size();
        if (end < r.vaddr ||
            (k + 1 < image.code.size() && end >= image.code[k + 1].vaddr)) {
          return Bad(absl::StrFormat(
              "image %d: code at 0x%x overlaps the next range or wraps", i,
              r.vaddr));
        }
      }
    }
    return absl::OkStatus();
  }

  static auto BlockOrder(const BlockStats& b) {
    return std::make_tuple(b.image, b.vaddr, b.ninsn, b.last_vaddr, b.end,
                           b.isa);
  }

  absl::Status Blocks() const {
    const auto& blocks = p_.profile.blocks;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const BlockStats& b = blocks[i];
      const std::string what = absl::StrCat("block ", i);
      if (!ImageOk(b.image)) {
        return Bad(absl::StrFormat("%s: image %d out of range (%d images)",
                                   what, b.image, images_));
      }
      if (b.ninsn == 0) return Bad(what + ": no instructions");
      if (static_cast<uint32_t>(b.end) > kMaxBranchKind ||
          static_cast<uint32_t>(b.isa) > kMaxIsa) {
        return Bad(what + ": unknown branch kind or instruction set");
      }
      for (const FunctionId* fn : {&b.function, &b.last_function}) {
        HWT_RETURN_IF_ERROR(
            Frame(FrameKey{fn->kind, fn->image, fn->start}, what));
      }
      if (i > 0 && BlockOrder(blocks[i - 1]) >= BlockOrder(b)) {
        return Bad(what + ": blocks not in canonical order");
      }
    }
    return absl::OkStatus();
  }

  absl::Status Edges() const {
    const auto& edges = p_.profile.edges;
    const size_t blocks = p_.profile.blocks.size();
    for (size_t i = 0; i < edges.size(); ++i) {
      const BlockEdge& e = edges[i];
      if (e.from >= blocks || e.to >= blocks) {
        return Bad(
            absl::StrFormat("edge %d: block %d -> %d out of range (%d blocks)",
                            i, e.from, e.to, blocks));
      }
      if (i > 0 && std::tie(edges[i - 1].from, edges[i - 1].to) >=
                       std::tie(e.from, e.to)) {
        return Bad(absl::StrFormat("edge %d: edges not sorted", i));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Functions() const {
    const auto& functions = p_.profile.functions;
    for (size_t i = 0; i < functions.size(); ++i) {
      const std::string what = absl::StrCat("function ", i);
      HWT_RETURN_IF_ERROR(Frame(functions[i].frame, what));
      if (i > 0 && functions[i - 1].frame >= functions[i].frame) {
        return Bad(what + ": functions not sorted by frame");
      }
    }
    const auto& edges = p_.profile.call_edges;
    for (size_t i = 0; i < edges.size(); ++i) {
      const std::string what = absl::StrCat("call edge ", i);
      HWT_RETURN_IF_ERROR(Frame(edges[i].caller, what));
      HWT_RETURN_IF_ERROR(Frame(edges[i].callee, what));
      if (i > 0 && std::tie(edges[i - 1].caller, edges[i - 1].callee) >=
                       std::tie(edges[i].caller, edges[i].callee)) {
        return Bad(what + ": call edges not sorted");
      }
    }
    return absl::OkStatus();
  }

  absl::Status Paths() const {
    const auto& paths = p_.profile.paths;
    const size_t blocks = p_.profile.blocks.size();
    for (size_t i = 0; i < paths.size(); ++i) {
      for (uint32_t b : paths[i].blocks) {
        if (b >= blocks) {
          return Bad(absl::StrFormat(
              "path %d: block %d out of range (%d blocks)", i, b, blocks));
        }
      }
    }
    return absl::OkStatus();
  }

  // Preorder shape (end, depth, parent) and totals as ShapeTree computes
  // them, siblings in strictly increasing frame order, node blocks sorted
  // and in range.
  absl::Status Tree(const CallTree& tree, const std::string& what) const {
    const auto& nodes = tree.nodes;
    std::vector<int64_t> last_child(nodes.size(), -1);
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      const CallTree::Node& n = nodes[i];
      const std::string node = absl::StrCat(what, ", node ", i);
      if (i > 0) {
        HWT_RETURN_IF_ERROR(Frame(n.frame, node));
        if (n.parent >= i || nodes[n.parent].end < n.end || n.end <= i ||
            n.depth != nodes[n.parent].depth + 1) {
          return Bad(node + ": not in preorder");
        }
        int64_t& prev = last_child[n.parent];
        if (prev >= 0 && nodes[prev].frame >= n.frame) {
          return Bad(node + ": siblings not sorted by frame");
        }
        prev = i;
      } else if (n.parent != 0 || n.depth != 0 || n.end != nodes.size()) {
        return Bad(node + ": not a root");
      }
    }
    const size_t blocks = p_.profile.blocks.size();
    const auto& nbs = tree.node_blocks;
    for (size_t i = 0; i < nbs.size(); ++i) {
      if (nbs[i].node >= nodes.size() || nbs[i].block >= blocks) {
        return Bad(absl::StrFormat("%s, node block %d: out of range", what, i));
      }
      if (i > 0 && std::tie(nbs[i - 1].node, nbs[i - 1].block) >=
                       std::tie(nbs[i].node, nbs[i].block)) {
        return Bad(absl::StrFormat("%s, node block %d: not sorted", what, i));
      }
    }
    return absl::OkStatus();
  }

  const SavedProfile& p_;
  uint32_t images_;
};

}  // namespace

absl::Status ValidateProfile(const SavedProfile& profile) {
  return Validator(profile).Run();
}

}  // namespace hwt::analysis
