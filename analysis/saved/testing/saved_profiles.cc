// Test profiles; see saved_profiles.h.
#include "analysis/saved/testing/saved_profiles.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/saved/merge_tree.h"
#include "base/file_util.h"

namespace hwt::analysis::testing {

SavedProfile SavedFromScript(const EventScript& script, Profile profile,
                             const std::string& name, bool build_ids) {
  SavedProfile out;
  out.writer = "test";
  CaptureSource source;
  source.name = name;
  source.path = "/captures/" + name + ".hwt";
  source.fingerprint = "fp-" + name;
  source.backend = "pt";
  source.mode = "thread";
  source.command = name;
  source.hostname = "host-" + name;
  out.sources.push_back(source);
  for (uint32_t i = 0; i < script.timeline.images().size(); ++i) {
    SavedImage image;
    const std::string base =
        i < script.image_names.size() ? script.image_names[i] : "image";
    image.path = "/bin/" + BaseName(base);
    if (build_ids) image.build_id = absl::StrCat("b", BaseName(base));
    image.kernel = script.timeline.images()[i].kernel;
    for (const ScriptFunction& f : script.functions) {
      if (f.image != i) continue;
      image.functions.push_back(
          {f.start, f.end - f.start, f.name, "_Z" + f.name, "", 0});
    }
    std::sort(image.functions.begin(), image.functions.end());
    for (const ScriptCode& c : script.code) {
      if (c.image != i) continue;
      image.code.push_back(
          {c.vaddr, std::string(c.bytes.begin(), c.bytes.end())});
    }
    std::sort(image.code.begin(), image.code.end(),
              [](const CodeRange& a, const CodeRange& b) {
                return a.vaddr < b.vaddr;
              });
    out.images.push_back(std::move(image));
  }
  out.profile = std::move(profile);
  return out;
}

SavedProfile EveryFieldSet() {
  SavedProfile p;
  p.writer = "hwt test";
  CaptureSource s;
  s.name = "n";
  s.path = "p";
  s.fingerprint = "f";
  s.analysis = "a";
  s.backend = "pt";
  s.mode = "cpu";
  s.cpu_arch = "x86_64";
  s.cpu_vendor = "GenuineIntel";
  s.cpu_family = 6;
  s.cpu_model = 85;
  s.cpu_stepping = 4;
  s.cpu_midr = 0x410fd0c0;
  s.cpu_frequency_hz = 2400000000;
  s.pid = 42;
  s.command = "c";
  s.hostname = "h";
  s.os = "o";
  s.created = "2025-01-01T00:00:00Z";
  s.recorder = "r";
  s.labels = {{"k", "v"}};
  SavedStream st;
  st.info = {1, 2, "buffer 2", 3, 4, 5};
  st.stats.trace_bytes = 11;
  st.stats.bytes_decoded = 7;
  st.stats.bytes_lost = 4;
  st.stats.packets = 12;
  st.stats.instructions = 13;
  st.stats.blocks = 14;
  st.stats.errors = 1;
  st.stats.overflows = 15;
  st.stats.error_list.push_back({16, 4, GapReason::kOverflow, 17, "ovf"});
  s.streams.push_back(st);
  p.sources.push_back(s);
  CaptureSource second = s;
  second.name = "n2";
  second.fingerprint = "f2";
  p.sources.push_back(second);

  SavedImage image;
  image.build_id = "abc";
  image.path = "/bin/x";
  image.is_elf = false;
  image.kernel = true;
  image.file_size = 100;
  image.content_hash = 99;
  image.machine = 62;
  image.segments.push_back({0x1000, 0x200, 0x10, 0x100, 5});
  image.functions.push_back({0x1000, 0x20, "f", "_Z1fv", "f.c", 3});
  image.addresses.push_back({0x1000,
                             {{"g", "g.h", 7, 2, true, "_Z1gv", 6},
                              {"f", "f.c", 3, 1, false, "_Z1fv", 2}}});
  image.code.push_back({0x1000, std::string("\x90\xc3", 2)});
  p.images.push_back(image);

  Profile& pr = p.profile;
  pr.has_time = true;
  pr.counts = ProfileCounts::kSamples;  // not the default, so that it is seen
  const FunctionId fn{FrameKind::kFunction, 0, 0x1000, 0x1020};
  pr.blocks.push_back({0, 0x1000, 0x1001, 2, BranchKind::kReturn, Isa::kX86_64,
                       7, fn, fn, 5, 6});
  pr.blocks.push_back({0, 0x1001, 0x1001, 1, BranchKind::kCondTaken,
                       Isa::kX86_32, 8, fn, fn, 9, 10});
  pr.edges.push_back({0, 1, 3});
  const FrameKey key{FrameKind::kFunction, 0, 0x1000};
  const FrameKey code{FrameKind::kUnknownCode, 0, 0x1001};
  CallTree tree;
  CallTree::Node root;
  root.end = 3;
  root.calls = 1;
  root.gaps = 1;
  root.self_insns = 1;
  root.self_time = 1;
  root.total_insns = 1 + 2 + 3;
  root.total_time = 1 + 4 + 5;
  tree.nodes.push_back(root);
  tree.nodes.push_back({key, 0, 3, 1, 6, 7, 2, 4, 2 + 3, 4 + 5});
  tree.nodes.push_back({code, 1, 3, 2, 8, 9, 3, 5, 3, 5});
  tree.node_blocks.push_back({1, 0, 2, 3});
  tree.node_blocks.push_back({2, 1, 4, 5});
  pr.merged = tree;
  pr.threads.push_back({1, 3, 4, tree});
  pr.functions.push_back({key, 1, 2, 3, 4, 5});
  pr.call_edges.push_back({key, code, 6});
  pr.paths.push_back({{0, 1}, 2, 3});
  ProfileStats& st2 = pr.stats;
  st2.events = 1;
  st2.blocks = 2;
  st2.instructions = 3;
  st2.time = 4;
  st2.gaps = 5;
  st2.gaps_by_reason = {1, 2, 3, 4, 5, 6};
  st2.disables = 7;
  st2.enables = 8;
  st2.exceptions = 9;
  st2.context_events = 10;
  st2.unknown_region_blocks = 11;
  st2.invalid_region_events = 12;
  st2.malformed_blocks = 13;
  return p;
}

SavedProfile PermuteImages(const SavedProfile& in,
                           const std::vector<uint32_t>& order) {
  SavedProfile out = in;
  std::vector<uint32_t> map(order.size());  // old -> new
  for (uint32_t i = 0; i < order.size(); ++i) map[order[i]] = i;
  out.images.clear();
  for (uint32_t old : order) out.images.push_back(in.images[old]);
  auto image = [&](uint32_t i) { return i == kNoImage ? i : map[i]; };
  Profile& p = out.profile;
  for (BlockStats& b : p.blocks) {
    b.image = image(b.image);
    b.function.image = image(b.function.image);
    b.last_function.image = image(b.last_function.image);
  }
  std::vector<uint32_t> block_order(p.blocks.size());
  std::iota(block_order.begin(), block_order.end(), 0);
  auto key = [&](uint32_t i) {
    const BlockStats& b = p.blocks[i];
    return std::make_tuple(b.image, b.vaddr, b.ninsn, b.last_vaddr, b.end,
                           b.isa);
  };
  std::sort(block_order.begin(), block_order.end(),
            [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  std::vector<uint32_t> block_map(p.blocks.size());
  std::vector<BlockStats> blocks;
  for (uint32_t i = 0; i < block_order.size(); ++i) {
    block_map[block_order[i]] = i;
    blocks.push_back(p.blocks[block_order[i]]);
  }
  p.blocks = std::move(blocks);
  for (BlockEdge& e : p.edges) {
    e.from = block_map[e.from];
    e.to = block_map[e.to];
  }
  std::sort(p.edges.begin(), p.edges.end(),
            [](const BlockEdge& a, const BlockEdge& b) {
              return std::tie(a.from, a.to) < std::tie(b.from, b.to);
            });
  for (PathStats& path : p.paths) {
    for (uint32_t& b : path.blocks) b = block_map[b];
  }
  std::sort(p.paths.begin(), p.paths.end(),
            [](const PathStats& a, const PathStats& b) {
              if (a.weight() != b.weight()) return a.weight() > b.weight();
              if (a.count != b.count) return a.count > b.count;
              return a.blocks < b.blocks;
            });
  for (FunctionStats& f : p.functions)
    f.frame = internal::MapFrame(f.frame, map);
  std::sort(p.functions.begin(), p.functions.end(),
            [](const FunctionStats& a, const FunctionStats& b) {
              return a.frame < b.frame;
            });
  for (CallEdge& e : p.call_edges) {
    e.caller = internal::MapFrame(e.caller, map);
    e.callee = internal::MapFrame(e.callee, map);
  }
  std::sort(p.call_edges.begin(), p.call_edges.end(),
            [](const CallEdge& a, const CallEdge& b) {
              return std::tie(a.caller, a.callee) <
                     std::tie(b.caller, b.callee);
            });
  std::vector<uint32_t> identity(order.size());
  std::iota(identity.begin(), identity.end(), 0);
  auto canonical = [&](const CallTree& tree) {
    internal::MergeTree t;
    t.Add(tree, map, block_map);
    std::vector<uint32_t> blocks_identity(block_map.size());
    std::iota(blocks_identity.begin(), blocks_identity.end(), 0);
    return t.Finish(identity, blocks_identity);
  };
  p.merged = canonical(in.profile.merged);
  for (size_t i = 0; i < p.threads.size(); ++i) {
    p.threads[i].tree = canonical(in.profile.threads[i].tree);
  }
  return out;
}

std::string SavedFrameName(const SavedProfile& profile, const FrameKey& key) {
  switch (key.kind) {
    case FrameKind::kFunction:
      if (key.image < profile.images.size()) {
        if (const SavedFunction* f =
                profile.images[key.image].FunctionAt(key.start)) {
          return f->name;
        }
      }
      return absl::StrFormat("[?+0x%x]", key.start);
    case FrameKind::kUnknownCode:
      return absl::StrFormat("[%s+0x%x]",
                             key.image < profile.images.size()
                                 ? BaseName(profile.images[key.image].path)
                                 : "?",
                             key.start);
    case FrameKind::kUnknown:
      return "[unknown]";
    case FrameKind::kGap:
      return "[gap]";
  }
  return "?";
}

std::map<std::string, uint64_t> FoldedByName(const SavedProfile& profile,
                                             const CallTree& tree) {
  std::map<std::string, uint64_t> out;
  std::vector<std::string> stack;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTree::Node& n = tree.nodes[i];
    stack.resize(n.depth - 1);
    stack.push_back(SavedFrameName(profile, n.frame));
    if (n.self_insns != 0) out[absl::StrJoin(stack, ";")] += n.self_insns;
  }
  return out;
}

}  // namespace hwt::analysis::testing
