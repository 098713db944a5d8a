// The pprof export: profile.proto written field by field (the format is a
// handful of messages; no protobuf library needed), then gzip.
#include "report/export/pprof.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "report/export/control_flow.h"
#include "report/naming/symbolized_profile.h"

namespace hwt::report {
namespace {

using analysis::CallTree;
using analysis::FrameKey;
using analysis::FrameKind;
using analysis::kNoImage;

// Protocol-buffer wire format: varints and length-delimited fields.
class ProtoWriter {
 public:
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Int(int field, uint64_t v) {
    if (v == 0) return;  // proto3: zero is the default
    Varint(static_cast<uint64_t>(field) << 3);
    Varint(v);
  }
  void Bytes(int field, std::string_view bytes) {
    Varint((static_cast<uint64_t>(field) << 3) | 2);
    Varint(bytes.size());
    out_.append(bytes);
  }
  void Packed(int field, const std::vector<uint64_t>& values) {
    if (values.empty()) return;
    ProtoWriter inner;
    for (uint64_t v : values) inner.Varint(v);
    Bytes(field, inner.out_);
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class StringTable {
 public:
  StringTable() { Id(""); }
  uint64_t Id(const std::string& s) {
    auto [it, added] = ids_.try_emplace(s, strings_.size());
    if (added) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  absl::flat_hash_map<std::string, uint64_t> ids_;
  std::vector<std::string> strings_;
};

struct PprofLine {
  uint64_t function = 0;
  uint64_t line = 0;
};
struct PprofLocation {
  uint64_t mapping = 0;
  uint64_t address = 0;
  std::vector<PprofLine> lines;  // innermost first
};

class PprofBuilder {
 public:
  PprofBuilder(ExportInput& input, const PprofOptions& options)
      : input_(input), options_(options), names_(input.symbols()) {}

  std::string Build(const CallTree& tree);

 private:
  uint64_t FunctionId(const std::string& name, const std::string& system_name,
                      const std::string& file, uint32_t start_line);
  uint64_t FunctionOfFrame(const FrameKey& key);
  uint64_t MappingOf(uint32_t image, uint64_t vaddr);
  // The location of instruction `vaddr` run in frame `key` (leaf), or of
  // the frame's entry (caller).
  uint64_t Location(const FrameKey& key, uint32_t image, uint64_t vaddr);
  // Sample i has `values[i]`, one per value type; the first type is the
  // period's (each sample counted once per unit).
  using Sample = std::pair<std::vector<uint64_t>, std::vector<uint64_t>>;
  using ValueType = std::pair<std::string, std::string>;  // type, unit
  std::string Serialize(const std::vector<ValueType>& types,
                        const std::vector<Sample>& samples);

  ExportInput& input_;
  const PprofOptions& options_;
  ProfileNames names_;
  StringTable strings_;
  std::map<std::tuple<std::string, std::string, std::string, uint32_t>,
           uint64_t>
      function_ids_;
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>>
      functions_;  // name, system name, file, start line
  absl::flat_hash_map<FrameKey, uint64_t> frame_functions_;
  std::map<std::tuple<FrameKey, uint32_t, uint64_t>, uint64_t> location_ids_;
  std::vector<PprofLocation> locations_;
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> image_ranges_;
};

uint64_t PprofBuilder::FunctionId(const std::string& name,
                                  const std::string& system_name,
                                  const std::string& file,
                                  uint32_t start_line) {
  auto [it, added] = function_ids_.try_emplace(
      std::make_tuple(name, system_name, file, start_line),
      functions_.size() + 1);
  if (added) {
    functions_.emplace_back(strings_.Id(name), strings_.Id(system_name),
                            strings_.Id(file), start_line);
  }
  return it->second;
}

uint64_t PprofBuilder::FunctionOfFrame(const FrameKey& key) {
  auto it = frame_functions_.find(key);
  if (it != frame_functions_.end()) return it->second;
  const std::string name = names_.Name(key);
  std::string system_name = name, file;
  uint32_t start_line = 0;
  if (key.kind == FrameKind::kFunction) {
    if (auto fn = input_.Function(key.image, key.start)) {
      system_name = fn->linkage_name;
      file = fn->file;
      start_line = fn->start_line;
    }
  }
  const uint64_t id = FunctionId(name, system_name, file, start_line);
  frame_functions_.emplace(key, id);
  return id;
}

uint64_t PprofBuilder::MappingOf(uint32_t image, uint64_t vaddr) {
  if (image == kNoImage || image >= input_.image_count()) return 0;
  auto [it, added] = image_ranges_.try_emplace(image, vaddr, vaddr + 1);
  it->second.first = std::min(it->second.first, vaddr);
  it->second.second = std::max(it->second.second, vaddr + 1);
  return image + 1;
}

uint64_t PprofBuilder::Location(const FrameKey& key, uint32_t image,
                                uint64_t vaddr) {
  auto [it, added] = location_ids_.try_emplace(
      std::make_tuple(key, image, vaddr), locations_.size() + 1);
  if (!added) return it->second;
  PprofLocation loc;
  loc.mapping = MappingOf(image, vaddr);
  loc.address = vaddr;
  const uint64_t function = FunctionOfFrame(key);
  std::vector<std::vector<ExportFrame>> frames;
  if (image != kNoImage) {
    const CodeAddress address{image, vaddr};
    frames = input_.SourceFrames(absl::MakeConstSpan(&address, 1));
  }
  const std::string name = names_.Name(key);
  if (!frames.empty() && !frames[0].empty() &&
      frames[0].back().function == name) {
    const std::vector<ExportFrame>& chain = frames[0];
    for (size_t i = 0; i + 1 < chain.size(); ++i) {
      loc.lines.push_back(
          {FunctionId(chain[i].function,
                      chain[i].linkage_name.empty() ? chain[i].function
                                                    : chain[i].linkage_name,
                      chain[i].file, chain[i].start_line),
           chain[i].line});
    }
    loc.lines.push_back({function, chain.back().line});
  } else {
    loc.lines.push_back({function, 0});
  }
  locations_.push_back(std::move(loc));
  return it->second;
}

std::string PprofBuilder::Build(const CallTree& tree) {
  const analysis::Profile& profile = input_.profile();
  const analysis::BlockExpansion& expansion = input_.expansion();
  // Caller locations of each node's stack, innermost caller first.
  std::vector<std::vector<uint64_t>> callers(tree.nodes.size());
  for (uint32_t n = 1; n < tree.nodes.size(); ++n) {
    const uint32_t parent = tree.nodes[n].parent;
    if (parent == 0) continue;
    const FrameKey& pk = tree.nodes[parent].frame;
    callers[n].push_back(Location(pk, pk.image, pk.start));
    callers[n].insert(callers[n].end(), callers[parent].begin(),
                      callers[parent].end());
  }
  std::vector<Sample> samples;
  size_t i = 0;
  const auto& node_blocks = tree.node_blocks;
  while (i < node_blocks.size()) {
    const uint32_t node = node_blocks[i].node;
    std::map<std::pair<uint32_t, uint64_t>, std::array<uint64_t, 2>> counts;
    for (; i < node_blocks.size() && node_blocks[i].node == node; ++i) {
      const CallTree::NodeBlock& nb = node_blocks[i];
      const analysis::BlockStats& block = profile.blocks[nb.block];
      absl::Span<const uint64_t> insns = expansion.BlockInstructions(nb.block);
      if (insns.empty()) {  // not expanded: the whole block at its start
        auto& c = counts[{block.image, block.vaddr}];
        c[0] += nb.count * block.ninsn;
        c[1] += nb.time;
        continue;
      }
      for (size_t k = 0; k < insns.size(); ++k) {
        auto& c = counts[{block.image, insns[k]}];
        c[0] += nb.count;
        if (k == 0) c[1] += nb.time;
      }
    }
    const FrameKey& key = tree.nodes[node].frame;
    if (key.kind == FrameKind::kGap) continue;
    for (const auto& [address, value] : counts) {
      std::vector<uint64_t> stack;
      stack.push_back(Location(key, address.first, address.second));
      stack.insert(stack.end(), callers[node].begin(), callers[node].end());
      std::vector<uint64_t> values{value[0]};
      if (options_.with_time) {
        values.push_back(static_cast<uint64_t>(
            std::llround(static_cast<double>(value[1]) * options_.time_scale)));
      }
      samples.emplace_back(std::move(stack), std::move(values));
    }
  }
  std::vector<ValueType> types{{options_.count_type, "count"}};
  if (options_.with_time) {
    types.emplace_back(options_.time_type, options_.time_unit);
  }
  return Serialize(types, samples);
}

std::string PprofBuilder::Serialize(const std::vector<ValueType>& types,
                                    const std::vector<Sample>& samples) {
  ProtoWriter p;
  auto value_type = [&](const ValueType& type) {
    ProtoWriter v;
    v.Int(1, strings_.Id(type.first));
    v.Int(2, strings_.Id(type.second));
    return v.bytes();
  };
  for (const ValueType& type : types) p.Bytes(1, value_type(type));
  for (const auto& [stack, values] : samples) {
    ProtoWriter s;
    s.Packed(1, stack);
    s.Packed(2, values);
    p.Bytes(2, s.bytes());
  }
  for (const auto& [image, range] : image_ranges_) {
    const ExportImage& img = input_.image(image);
    uint64_t start = range.first, limit = range.second, offset = 0;
    for (const ExportSegment& seg : img.segments) {
      if (!seg.executable()) continue;
      if (seg.vaddr <= start) offset = seg.file_offset + (start - seg.vaddr);
      start = std::min(start, seg.vaddr);
      limit = std::max(limit, seg.vaddr + seg.memsz);
    }
    if (const std::optional<uint64_t> off = FileOffsetOf(img, start)) {
      offset = *off;
    }
    ProtoWriter m;
    m.Int(1, image + 1);
    m.Int(2, start);
    m.Int(3, limit);
    m.Int(4, offset);
    m.Int(5, strings_.Id(img.path));
    m.Int(6, strings_.Id(img.build_id));
    for (int field = 7; field <= 10; ++field) m.Int(field, 1);
    p.Bytes(3, m.bytes());
  }
  for (size_t i = 0; i < locations_.size(); ++i) {
    const PprofLocation& loc = locations_[i];
    ProtoWriter l;
    l.Int(1, i + 1);
    l.Int(2, loc.mapping);
    l.Int(3, loc.address);
    for (const PprofLine& line : loc.lines) {
      ProtoWriter ln;
      ln.Int(1, line.function);
      ln.Int(2, line.line);
      l.Bytes(4, ln.bytes());
    }
    p.Bytes(4, l.bytes());
  }
  for (size_t i = 0; i < functions_.size(); ++i) {
    const auto& [name, system_name, file, start_line] = functions_[i];
    ProtoWriter f;
    f.Int(1, i + 1);
    f.Int(2, name);
    f.Int(3, system_name);
    f.Int(4, file);
    f.Int(5, start_line);
    p.Bytes(5, f.bytes());
  }
  const uint64_t comment =
      options_.comment.empty() ? 0 : strings_.Id(options_.comment);
  const uint64_t period_type = strings_.Id(types[0].first);
  const uint64_t period_unit = strings_.Id(types[0].second);
  for (const std::string& s : strings_.strings()) p.Bytes(6, s);
  {
    ProtoWriter v;
    v.Int(1, period_type);
    v.Int(2, period_unit);
    p.Bytes(11, v.bytes());
  }
  p.Int(12, 1);  // period: each sample counts once (every instruction)
  if (comment != 0) p.Packed(13, {comment});
  return p.bytes();
}

}  // namespace

std::string RenderPprofProto(ExportInput& input, const CallTree& tree,
                             const PprofOptions& options) {
  PprofBuilder builder(input, options);
  return builder.Build(tree);
}

absl::StatusOr<std::string> RenderPprof(ExportInput& input,
                                        const CallTree& tree,
                                        const PprofOptions& options) {
  return Gzip(RenderPprofProto(input, tree, options));
}

absl::StatusOr<std::string> Gzip(std::string_view bytes) {
  z_stream z{};
  // 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("gzip: zlib would not start");
  }
  std::string out(deflateBound(&z, bytes.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return absl::InternalError(absl::StrCat("gzip: zlib failed (", rc, ")"));
  }
  return out;
}

}  // namespace hwt::report
