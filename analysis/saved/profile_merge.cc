// The profile accumulator; see profile_merge.h. Inputs are translated into
// provisional ids (images and blocks numbered in first-seen order); Finish()
// sorts images by identity and blocks by key and translates everything once
// more, which is what makes the result independent of the input order.
#include "analysis/saved/profile_merge.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analysis/saved/merge_tree.h"
#include "base/status_macros.h"

namespace hwt::analysis {
namespace {

using internal::MapFrame;
using internal::MergeTree;

struct BlockKey {
  uint32_t image;
  uint64_t vaddr;
  uint32_t ninsn;
  uint64_t last_vaddr;
  BranchKind end;
  Isa isa;
  friend bool operator==(const BlockKey&, const BlockKey&) = default;
  friend auto operator<=>(const BlockKey&, const BlockKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const BlockKey& k) {
    return H::combine(std::move(h), k.image, k.vaddr, k.ninsn, k.last_vaddr,
                      k.end, k.isa);
  }
};

// Resolves two records of the same function by an order that does not
// depend on image numbering (they agree unless the inputs disagree).
bool FunctionIdLess(const FunctionId& a, const FunctionId& b) {
  return std::tie(a.kind, a.start, a.end) < std::tie(b.kind, b.start, b.end);
}

FunctionId MapFunction(FunctionId fn, const std::vector<uint32_t>& map) {
  if (fn.image != kNoImage && fn.image < map.size()) fn.image = map[fn.image];
  return fn;
}

// An image being merged: its description and the union of its names and
// code.
struct ImageAcc {
  SavedImage meta;  // without functions, addresses, code
  std::map<uint64_t, SavedFunction> functions;
  std::map<uint64_t, std::vector<SavedSourceFrame>> addresses;
  std::map<uint64_t, std::string> code;
};

auto MetaOrder(const SavedImage& m) {
  return std::tie(m.path, m.is_elf, m.kernel, m.file_size, m.content_hash,
                  m.machine, m.segments);
}

// Adds [vaddr, vaddr + bytes) to a disjoint range map, joining ranges that
// overlap or touch; bytes already present are kept.
void AddCode(std::map<uint64_t, std::string>& code, uint64_t vaddr,
             const std::string& bytes) {
  uint64_t start = vaddr;
  uint64_t end = vaddr + bytes.size();
  auto it = code.upper_bound(vaddr);
  if (it != code.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.size() >= vaddr) it = prev;
  }
  std::string merged;
  std::vector<std::map<uint64_t, std::string>::iterator> joined;
  for (; it != code.end() && it->first <= end; ++it) joined.push_back(it);
  if (!joined.empty()) {
    start = std::min(start, joined.front()->first);
    const auto& last = joined.back();
    end = std::max(end, last->first + last->second.size());
  }
  merged.assign(end - start, '\0');
  std::vector<bool> have(end - start, false);
  for (const auto& j : joined) {
    merged.replace(j->first - start, j->second.size(), j->second);
    std::fill(have.begin() + (j->first - start),
              have.begin() + (j->first - start + j->second.size()), true);
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (!have[vaddr - start + i]) merged[vaddr - start + i] = bytes[i];
  }
  for (const auto& j : joined) code.erase(j);
  code.emplace(start, std::move(merged));
}

struct ThreadAcc {
  uint32_t source;  // provisional
  uint32_t stream;
  uint64_t context;
  MergeTree tree;
};

}  // namespace

bool SourceLess(const CaptureSource& a, const CaptureSource& b) {
  return std::tie(a.name, a.path, a.fingerprint, a.created, a.hostname,
                  a.command, a.backend, a.labels, a.analysis) <
         std::tie(b.name, b.path, b.fingerprint, b.created, b.hostname,
                  b.command, b.backend, b.labels, b.analysis);
}

class ProfileAccumulator::Impl {
 public:
  absl::Status Add(const SavedProfile& p, const std::string& what) {
    if (added_ && p.profile.counts != counts_) {
      return absl::InvalidArgumentError(absl::StrCat(
          what.empty() ? "" : what + ": ",
          "a profile of samples (SPE) and one of executed instructions "
          "cannot be merged: their counts are not of the same kind"));
    }
    added_ = true;
    counts_ = p.profile.counts;
    for (const CaptureSource& s : p.sources) {
      if (!s.fingerprint.empty() && fingerprints_.contains(s.fingerprint)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what.empty() ? "" : what + ": ", "capture '", s.name,
            "' is already in the merge (same fingerprint ", s.fingerprint,
            "): merging it twice would count it twice"));
      }
    }
    std::vector<uint32_t> source_map;
    for (const CaptureSource& s : p.sources) {
      if (!s.fingerprint.empty()) fingerprints_.insert(s.fingerprint);
      source_map.push_back(static_cast<uint32_t>(sources_.size()));
      sources_.push_back(s);
    }
    format_minor_ = std::min(format_minor_, p.format_minor);
    const std::vector<uint32_t> image_map = AddImages(p.images);
    const std::vector<uint32_t> block_map = AddBlocks(p.profile, image_map);
    AddAggregates(p.profile, image_map, block_map);
    merged_.Add(p.profile.merged, image_map, block_map);
    for (const ThreadProfile& t : p.profile.threads) {
      ThreadAcc& acc = threads_.emplace_back();
      acc.source = t.capture < source_map.size() ? source_map[t.capture] : 0;
      acc.stream = t.stream;
      acc.context = t.context;
      acc.tree.Add(t.tree, image_map, block_map);
    }
    return absl::OkStatus();
  }

  size_t captures() const { return sources_.size(); }

  SavedProfile Finish(const std::string& writer);

 private:
  // The steps of Finish(), in its order: each puts one part of the result
  // into its final numbering and order.
  std::vector<uint32_t> FinishImages(std::vector<SavedImage>& out);
  std::vector<uint32_t> FinishBlocks(const std::vector<uint32_t>& final_image,
                                     std::vector<BlockStats>& out);
  void FinishEdgesAndFunctions(const std::vector<uint32_t>& final_image,
                               const std::vector<uint32_t>& final_block,
                               Profile& p) const;
  void FinishPaths(const std::vector<uint32_t>& final_block,
                   std::vector<PathStats>& out) const;
  std::vector<uint32_t> FinishSources(std::vector<CaptureSource>& out);
  void FinishThreads(const std::vector<uint32_t>& final_source,
                     const std::vector<uint32_t>& final_image,
                     const std::vector<uint32_t>& final_block,
                     std::vector<ThreadProfile>& out);

  std::vector<uint32_t> AddImages(const std::vector<SavedImage>& images) {
    std::vector<uint32_t> map;
    for (const SavedImage& image : images) {
      auto [it, inserted] = image_index_.try_emplace(
          image.Identity(), static_cast<uint32_t>(images_.size()));
      if (inserted) {
        images_.emplace_back();
        images_.back().meta = image;
        images_.back().meta.functions.clear();
        images_.back().meta.addresses.clear();
        images_.back().meta.code.clear();
      }
      ImageAcc& acc = images_[it->second];
      if (!inserted && MetaOrder(image) < MetaOrder(acc.meta)) {
        const std::string build_id = acc.meta.build_id;
        acc.meta = image;
        acc.meta.build_id = build_id;
        acc.meta.functions.clear();
        acc.meta.addresses.clear();
        acc.meta.code.clear();
      }
      for (const SavedFunction& f : image.functions) {
        auto [fit, fnew] = acc.functions.try_emplace(f.start, f);
        if (!fnew && f < fit->second) fit->second = f;
      }
      for (const SavedAddress& a : image.addresses) {
        auto [ait, anew] = acc.addresses.try_emplace(a.vaddr, a.frames);
        if (!anew && a.frames < ait->second) ait->second = a.frames;
      }
      for (const CodeRange& r : image.code) AddCode(acc.code, r.vaddr, r.bytes);
      map.push_back(it->second);
    }
    return map;
  }

  std::vector<uint32_t> AddBlocks(const Profile& p,
                                  const std::vector<uint32_t>& image_map) {
    std::vector<uint32_t> map;
    map.reserve(p.blocks.size());
    for (const BlockStats& b : p.blocks) {
      const uint32_t image = b.image == kNoImage || b.image >= image_map.size()
                                 ? kNoImage
                                 : image_map[b.image];
      const BlockKey key{image, b.vaddr, b.ninsn, b.last_vaddr, b.end, b.isa};
      auto [it, inserted] =
          block_index_.try_emplace(key, static_cast<uint32_t>(blocks_.size()));
      const FunctionId fn = MapFunction(b.function, image_map);
      const FunctionId last_fn = MapFunction(b.last_function, image_map);
      if (inserted) {
        BlockStats out = b;
        out.image = image;
        out.region = kNoRegion;
        out.function = fn;
        out.last_function = last_fn;
        out.count = 0;
        out.time = 0;
        blocks_.push_back(out);
        keys_.push_back(key);
      }
      BlockStats& acc = blocks_[it->second];
      if (FunctionIdLess(fn, acc.function)) acc.function = fn;
      if (FunctionIdLess(last_fn, acc.last_function))
        acc.last_function = last_fn;
      acc.count += b.count;
      acc.time += b.time;
      map.push_back(it->second);
    }
    return map;
  }

  void AddAggregates(const Profile& p, const std::vector<uint32_t>& image_map,
                     const std::vector<uint32_t>& block_map) {
    for (const BlockEdge& e : p.edges) {
      edges_[{block_map[e.from], block_map[e.to]}] += e.count;
    }
    for (const FunctionStats& f : p.functions) {
      FunctionStats& acc = functions_[MapFrame(f.frame, image_map)];
      acc.self_insns += f.self_insns;
      acc.total_insns += f.total_insns;
      acc.self_time += f.self_time;
      acc.total_time += f.total_time;
      acc.calls += f.calls;
    }
    for (const CallEdge& e : p.call_edges) {
      call_edges_[{MapFrame(e.caller, image_map),
                   MapFrame(e.callee, image_map)}] += e.count;
    }
    std::vector<uint32_t> blocks;
    for (const PathStats& path : p.paths) {
      blocks.clear();
      for (uint32_t b : path.blocks) blocks.push_back(block_map[b]);
      auto [it, inserted] = paths_.try_emplace(blocks, path.count, path.insns);
      if (!inserted) it->second.first += path.count;
    }
    has_time_ = has_time_ || p.has_time;
    AddStats(stats_, p.stats);
  }

  // Which provisional images a block, frame or function refers to.
  std::vector<bool> UsedImages() const {
    std::vector<bool> used(images_.size(), false);
    auto use = [&](uint32_t image) {
      if (image < used.size()) used[image] = true;
    };
    for (const BlockStats& b : blocks_) {
      use(b.image);
      use(b.function.image);
      use(b.last_function.image);
    }
    for (const auto& [frame, f] : functions_) use(frame.image);
    for (const auto& [key, count] : call_edges_) {
      use(key.first.image);
      use(key.second.image);
    }
    merged_.ForEachFrame([&](const FrameKey& key) { use(key.image); });
    for (const ThreadAcc& t : threads_) {
      t.tree.ForEachFrame([&](const FrameKey& key) { use(key.image); });
    }
    return used;
  }

  std::vector<CaptureSource> sources_;
  absl::flat_hash_set<std::string> fingerprints_;
  std::vector<ImageAcc> images_;
  absl::flat_hash_map<std::string, uint32_t> image_index_;
  std::vector<BlockStats> blocks_;
  std::vector<BlockKey> keys_;
  absl::flat_hash_map<BlockKey, uint32_t> block_index_;
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, uint64_t> edges_;
  absl::flat_hash_map<FrameKey, FunctionStats> functions_;
  absl::flat_hash_map<std::pair<FrameKey, FrameKey>, uint64_t> call_edges_;
  // Block sequence -> (count, instructions per execution).
  absl::flat_hash_map<std::vector<uint32_t>, std::pair<uint64_t, uint64_t>>
      paths_;
  MergeTree merged_;
  std::vector<ThreadAcc> threads_;
  ProfileStats stats_;
  bool has_time_ = false;
  bool added_ = false;
  ProfileCounts counts_ = ProfileCounts::kInstructions;
  int format_minor_ = kProfileMinorVersion;
};

// Moves the images something refers to into `out` in identity order; returns
// each provisional image's final number (kNoImage for those left out).
std::vector<uint32_t> ProfileAccumulator::Impl::FinishImages(
    std::vector<SavedImage>& out) {
  const std::vector<bool> used = UsedImages();
  std::vector<uint32_t> image_order;
  for (uint32_t i = 0; i < images_.size(); ++i) {
    if (used[i]) image_order.push_back(i);
  }
  std::vector<std::string> identity;
  for (const ImageAcc& image : images_)
    identity.push_back(image.meta.Identity());
  std::sort(image_order.begin(), image_order.end(),
            [&](uint32_t a, uint32_t b) { return identity[a] < identity[b]; });
  std::vector<uint32_t> final_image(images_.size(), kNoImage);
  for (uint32_t i = 0; i < image_order.size(); ++i) {
    final_image[image_order[i]] = i;
    ImageAcc& acc = images_[image_order[i]];
    SavedImage image = std::move(acc.meta);
    for (auto& [start, f] : acc.functions)
      image.functions.push_back(std::move(f));
    for (auto& [vaddr, frames] : acc.addresses) {
      image.addresses.push_back({vaddr, std::move(frames)});
    }
    for (auto& [vaddr, bytes] : acc.code) {
      image.code.push_back({vaddr, std::move(bytes)});
    }
    out.push_back(std::move(image));
  }
  return final_image;
}

// Appends the blocks to `out` in key order (with final image numbers);
// returns each provisional block's final number.
std::vector<uint32_t> ProfileAccumulator::Impl::FinishBlocks(
    const std::vector<uint32_t>& final_image, std::vector<BlockStats>& out) {
  std::vector<BlockKey> final_keys;
  for (BlockKey key : keys_) {
    if (key.image != kNoImage) key.image = final_image[key.image];
    final_keys.push_back(key);
  }
  std::vector<uint32_t> block_order(blocks_.size());
  std::iota(block_order.begin(), block_order.end(), 0);
  std::sort(block_order.begin(), block_order.end(),
            [&](uint32_t a, uint32_t b) {
              return std::tie(final_keys[a].image, final_keys[a].vaddr,
                              final_keys[a].ninsn, final_keys[a].last_vaddr,
                              final_keys[a].end, final_keys[a].isa) <
                     std::tie(final_keys[b].image, final_keys[b].vaddr,
                              final_keys[b].ninsn, final_keys[b].last_vaddr,
                              final_keys[b].end, final_keys[b].isa);
            });
  std::vector<uint32_t> final_block(blocks_.size());
  for (uint32_t i = 0; i < block_order.size(); ++i) {
    final_block[block_order[i]] = i;
    BlockStats b = blocks_[block_order[i]];
    b.image = final_keys[block_order[i]].image;
    b.function = MapFunction(b.function, final_image);
    b.last_function = MapFunction(b.last_function, final_image);
    out.push_back(b);
  }
  return final_block;
}

// Block edges, function statistics and call edges with final numbers, each
// sorted by what it is about.
void ProfileAccumulator::Impl::FinishEdgesAndFunctions(
    const std::vector<uint32_t>& final_image,
    const std::vector<uint32_t>& final_block, Profile& p) const {
  for (const auto& [key, count] : edges_) {
    p.edges.push_back({final_block[key.first], final_block[key.second], count});
  }
  std::sort(p.edges.begin(), p.edges.end(),
            [](const BlockEdge& a, const BlockEdge& b) {
              return std::tie(a.from, a.to) < std::tie(b.from, b.to);
            });
  for (const auto& [frame, f] : functions_) {
    FunctionStats stats = f;
    stats.frame = MapFrame(frame, final_image);
    p.functions.push_back(stats);
  }
  std::sort(p.functions.begin(), p.functions.end(),
            [](const FunctionStats& a, const FunctionStats& b) {
              return a.frame < b.frame;
            });
  for (const auto& [key, count] : call_edges_) {
    p.call_edges.push_back({MapFrame(key.first, final_image),
                            MapFrame(key.second, final_image), count});
  }
  std::sort(p.call_edges.begin(), p.call_edges.end(),
            [](const CallEdge& a, const CallEdge& b) {
              return std::tie(a.caller, a.callee) <
                     std::tie(b.caller, b.callee);
            });
}

void ProfileAccumulator::Impl::FinishPaths(
    const std::vector<uint32_t>& final_block,
    std::vector<PathStats>& out) const {
  for (const auto& [blocks, counts] : paths_) {
    PathStats path;
    for (uint32_t b : blocks) path.blocks.push_back(final_block[b]);
    path.count = counts.first;
    path.insns = counts.second;
    out.push_back(std::move(path));
  }
  // The derived order: by weight, as the analysis ranks them.
  std::sort(out.begin(), out.end(), [](const PathStats& a, const PathStats& b) {
    if (a.weight() != b.weight()) return a.weight() > b.weight();
    if (a.count != b.count) return a.count > b.count;
    return a.blocks < b.blocks;
  });
}

// Moves the captures into `out` in SourceLess order; returns each
// provisional capture's final number.
std::vector<uint32_t> ProfileAccumulator::Impl::FinishSources(
    std::vector<CaptureSource>& out) {
  std::vector<uint32_t> source_order(sources_.size());
  std::iota(source_order.begin(), source_order.end(), 0);
  std::stable_sort(source_order.begin(), source_order.end(),
                   [&](uint32_t a, uint32_t b) {
                     return SourceLess(sources_[a], sources_[b]);
                   });
  std::vector<uint32_t> final_source(sources_.size());
  for (uint32_t i = 0; i < source_order.size(); ++i) {
    final_source[source_order[i]] = i;
    out.push_back(std::move(sources_[source_order[i]]));
  }
  return final_source;
}

// The threads by (capture, stream, context).
void ProfileAccumulator::Impl::FinishThreads(
    const std::vector<uint32_t>& final_source,
    const std::vector<uint32_t>& final_image,
    const std::vector<uint32_t>& final_block, std::vector<ThreadProfile>& out) {
  for (ThreadAcc& t : threads_) {
    ThreadProfile thread;
    thread.capture = final_source.empty() ? 0 : final_source[t.source];
    thread.stream = t.stream;
    thread.context = t.context;
    thread.tree = t.tree.Finish(final_image, final_block);
    out.push_back(std::move(thread));
  }
  std::sort(out.begin(), out.end(),
            [](const ThreadProfile& a, const ThreadProfile& b) {
              return std::tie(a.capture, a.stream, a.context) <
                     std::tie(b.capture, b.stream, b.context);
            });
}

SavedProfile ProfileAccumulator::Impl::Finish(const std::string& writer) {
  SavedProfile out;
  out.writer = writer;
  out.format_minor = format_minor_;
  const std::vector<uint32_t> final_image = FinishImages(out.images);
  Profile& p = out.profile;
  const std::vector<uint32_t> final_block = FinishBlocks(final_image, p.blocks);
  FinishEdgesAndFunctions(final_image, final_block, p);
  FinishPaths(final_block, p.paths);
  p.stats = stats_;
  p.has_time = has_time_;
  p.counts = counts_;
  p.merged = merged_.Finish(final_image, final_block);
  const std::vector<uint32_t> final_source = FinishSources(out.sources);
  FinishThreads(final_source, final_image, final_block, p.threads);
  return out;
}

ProfileAccumulator::ProfileAccumulator() : impl_(std::make_unique<Impl>()) {}
ProfileAccumulator::~ProfileAccumulator() = default;

absl::Status ProfileAccumulator::Add(const SavedProfile& profile,
                                     const std::string& what) {
  return impl_->Add(profile, what);
}

size_t ProfileAccumulator::captures() const { return impl_->captures(); }

SavedProfile ProfileAccumulator::Finish(const std::string& writer) {
  SavedProfile out = impl_->Finish(writer);
  impl_ = std::make_unique<Impl>();
  return out;
}

CallTree MergeCallTrees(absl::Span<const CallTree* const> trees) {
  MergeTree merged;
  for (const CallTree* tree : trees) merged.Add(*tree, {}, {});
  return merged.Finish({}, {});
}

absl::StatusOr<SavedProfile> MergeProfiles(
    absl::Span<const SavedProfile* const> profiles, const std::string& writer) {
  ProfileAccumulator acc;
  for (const SavedProfile* p : profiles) HWT_RETURN_IF_ERROR(acc.Add(*p));
  return acc.Finish(writer);
}

}  // namespace hwt::analysis
