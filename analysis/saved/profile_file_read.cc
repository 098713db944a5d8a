// Reading .hwtprof files: the zstd stream decompressed piece by piece, each
// delimited chunk parsed and added to the model, then the model validated.
// Errors say which file and which chunk. See profile_file.h.
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/saved/hwtprof.pb.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_file_internal.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::analysis {
namespace {

namespace pb = ::hwt::profile_file;
using internal::kMaxChunkBytes;

// The delimited chunks of the zstd stream after the magic.
class ChunkReader {
 public:
  ChunkReader(absl::Span<const uint8_t> compressed, const std::string& name)
      : name_(name),
        in_{compressed.data(), compressed.size(), 0},
        limit_(std::max<uint64_t>(
            internal::kMinDecompressedLimit,
            compressed.size() * internal::kMaxCompressionRatio)) {}

  // The next chunk's bytes into *payload; false at a clean end of stream.
  absl::StatusOr<bool> Next(std::string_view* payload) {
    buffer_.erase(0, pos_);
    pos_ = 0;
    chunk_offset_ = offset_;
    uint64_t length = 0;
    size_t varint = 0;
    for (int shift = 0;; shift += 7) {
      HWT_ASSIGN_OR_RETURN(bool have, Fill(varint + 1));
      if (!have) {
        if (varint == 0) return false;
        return Error("the file ends inside a chunk length");
      }
      const uint8_t byte = static_cast<uint8_t>(buffer_[varint++]);
      if (shift > 63) return Error("a chunk length is not a valid varint");
      length |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) break;
    }
    if (length > kMaxChunkBytes) {
      return Error(absl::StrFormat(
          "a chunk of %d bytes (the limit is %d MiB): not a profile written "
          "by hwt, or corrupt",
          length, kMaxChunkBytes >> 20));
    }
    HWT_ASSIGN_OR_RETURN(bool have, Fill(varint + length));
    if (!have) {
      return Error(absl::StrFormat(
          "the file ends inside a chunk (%d of its %d bytes are there): "
          "truncated",
          buffer_.size() - varint, length));
    }
    *payload = std::string_view(buffer_).substr(varint, length);
    pos_ = varint + length;
    offset_ += pos_;
    return true;
  }

  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: chunk %d (decompressed offset %d): %s", name_,
                        chunks_read_, chunk_offset_, what));
  }
  void CountChunk() { ++chunks_read_; }
  uint64_t chunks_read() const { return chunks_read_; }

 private:
  struct FreeDCtx {
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
  };

  // Decompresses until the buffer holds `size` bytes; false at the end.
  absl::StatusOr<bool> Fill(size_t size) {
    while (buffer_.size() < size) {
      if (finished_frame_ && in_.pos == in_.size) return false;
      const size_t old = buffer_.size();
      const size_t grow = std::max<size_t>(ZSTD_DStreamOutSize(), size - old);
      buffer_.resize(old + grow);
      ZSTD_outBuffer out{buffer_.data() + old, grow, 0};
      const size_t ret = ZSTD_decompressStream(dctx_.get(), &out, &in_);
      buffer_.resize(old + out.pos);
      if (ZSTD_isError(ret)) {
        return Error(absl::StrCat("the compressed data is corrupt (zstd: ",
                                  ZSTD_getErrorName(ret), ")"));
      }
      decompressed_ += out.pos;
      if (decompressed_ > limit_) {
        return Error(absl::StrFormat(
            "decompresses to more than %d MiB (%d times the file): refusing",
            limit_ >> 20, internal::kMaxCompressionRatio));
      }
      finished_frame_ = ret == 0;
      if (out.pos == 0 && in_.pos == in_.size) {
        if (!finished_frame_) {
          return Error("the compressed data ends early: truncated");
        }
        return false;
      }
    }
    return true;
  }

  std::string name_;
  ZSTD_inBuffer in_;
  std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx_{ZSTD_createDCtx()};
  std::string buffer_;
  size_t pos_ = 0;
  uint64_t offset_ = 0;
  uint64_t chunk_offset_ = 0;
  uint64_t chunks_read_ = 0;
  uint64_t decompressed_ = 0;
  uint64_t limit_;
  bool finished_frame_ = false;
};

CaptureSource SourceFrom(const pb::Source& s) {
  CaptureSource out;
  out.name = s.name();
  out.path = s.path();
  out.fingerprint = s.fingerprint();
  out.analysis = s.analysis();
  out.backend = s.backend();
  out.mode = s.mode();
  out.cpu_arch = s.cpu().arch();
  out.cpu_vendor = s.cpu().vendor();
  out.cpu_family = s.cpu().family();
  out.cpu_model = s.cpu().model();
  out.cpu_stepping = s.cpu().stepping();
  out.cpu_midr = s.cpu().midr();
  out.cpu_frequency_hz = s.cpu().nominal_frequency_hz();
  if (s.has_pid()) out.pid = s.pid();
  out.command = s.command();
  out.hostname = s.hostname();
  out.os = s.os();
  out.created = s.created();
  out.recorder = s.recorder();
  for (const pb::Label& l : s.labels()) out.labels[l.key()] = l.value();
  for (const pb::Stream& st : s.streams()) {
    SavedStream o;
    o.info.id = st.id();
    o.info.buffer_index = st.buffer_index();
    o.info.name = st.name();
    if (st.has_cpu()) o.info.cpu = st.cpu();
    if (st.has_thread()) o.info.thread = st.thread();
    o.info.trace_id = st.trace_id();
    o.stats.trace_bytes = st.trace_bytes();
    o.stats.bytes_decoded = st.bytes_decoded();
    o.stats.bytes_lost = st.bytes_lost();
    o.stats.packets = st.packets();
    o.stats.instructions = st.instructions();
    o.stats.blocks = st.blocks();
    o.stats.errors = st.errors();
    o.stats.overflows = st.overflows();
    for (const pb::DecodeError& e : st.error_list()) {
      DecodeErrorInfo d;
      d.offset = e.offset();
      d.bytes_lost = e.bytes_lost();
      d.reason = static_cast<GapReason>(std::min<uint32_t>(e.reason(), 255));
      d.ip = e.ip();
      d.message = e.message();
      o.stats.error_list.push_back(std::move(d));
    }
    out.streams.push_back(std::move(o));
  }
  return out;
}

template <typename T>
uint8_t Narrow(T value) {
  // Enum values beyond 255 stay invalid (ValidateProfile rejects them).
  return static_cast<uint8_t>(std::min<uint64_t>(value, 255));
}

FrameKey KeyOf(uint32_t kind, uint32_t image, uint64_t start) {
  return FrameKey{static_cast<FrameKind>(Narrow(kind)), image, start};
}

// Builds the model from chunks in file order.
class Assembler {
 public:
  Assembler(ChunkReader& reader, SavedProfile& out)
      : reader_(reader), out_(out) {}

  absl::Status Add(const pb::Chunk& c) {
    if (!seen_header_ && c.part_case() != pb::Chunk::kHeader) {
      return reader_.Error("the file does not start with a header chunk");
    }
    if (ended_) return reader_.Error("data after the end chunk");
    switch (c.part_case()) {
      case pb::Chunk::kHeader:
        return Header(c.header());
      case pb::Chunk::kSource:
        out_.sources.push_back(SourceFrom(c.source()));
        return absl::OkStatus();
      case pb::Chunk::kStrings:
        for (const std::string& s : c.strings().value()) strings_.push_back(s);
        return absl::OkStatus();
      case pb::Chunk::kImage:
        return Image(c.image());
      case pb::Chunk::kFunctions:
        return Functions(c.functions());
      case pb::Chunk::kAddresses:
        return Addresses(c.addresses());
      case pb::Chunk::kCode:
        return Code(c.code());
      case pb::Chunk::kBlocks:
        return Blocks(c.blocks());
      case pb::Chunk::kEdges:
        return Edges(c.edges());
      case pb::Chunk::kFunctionStats:
        return Functions(c.function_stats());
      case pb::Chunk::kCallEdges:
        return CallEdges(c.call_edges());
      case pb::Chunk::kPaths:
        return Paths(c.paths());
      case pb::Chunk::kStats:
        return Stats(c.stats());
      case pb::Chunk::kTree:
        return Tree(c.tree());
      case pb::Chunk::kNodes:
        return Nodes(c.nodes());
      case pb::Chunk::kNodeBlocks:
        return NodeBlocks(c.node_blocks());
      case pb::Chunk::kEnd:
        return End(c.end());
      case pb::Chunk::PART_NOT_SET:
        return absl::OkStatus();  // a chunk kind of a newer minor version
    }
    return absl::OkStatus();
  }

  bool ended() const { return ended_; }
  bool seen_header() const { return seen_header_; }
  const pb::Header& header() const { return header_; }

 private:
  absl::Status Header(const pb::Header& h) {
    if (seen_header_) return reader_.Error("a second header chunk");
    seen_header_ = true;
    header_ = h;
    if (h.major() > static_cast<uint32_t>(kProfileMajorVersion)) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "profile format %d.%d is newer than this hwt reads (%d.x); "
          "upgrade hwt",
          h.major(), h.minor(), kProfileMajorVersion));
    }
    if (h.major() < static_cast<uint32_t>(kProfileMajorVersion)) {
      return reader_.Error(
          absl::StrFormat("profile format %d.%d is not supported (this hwt "
                          "reads %d.x)",
                          h.major(), h.minor(), kProfileMajorVersion));
    }
    out_.writer = h.writer();
    out_.format_minor =
        static_cast<int>(std::min<uint32_t>(h.minor(), kProfileMinorVersion));
    return absl::OkStatus();
  }

  absl::StatusOr<const std::string*> String(uint32_t id) {
    if (id >= strings_.size()) {
      return reader_.Error(absl::StrFormat(
          "string %d out of range (%d strings)", id, strings_.size()));
    }
    return &strings_[id];
  }

  absl::StatusOr<SavedImage*> ImageRef(uint32_t image) {
    if (image >= out_.images.size()) {
      return reader_.Error(absl::StrFormat("image %d out of range (%d images)",
                                           image, out_.images.size()));
    }
    return &out_.images[image];
  }

  absl::Status Columns(int n, std::initializer_list<int> sizes) {
    for (int s : sizes) {
      if (s != n) {
        return reader_.Error(
            absl::StrFormat("columns of different lengths (%d and %d)", n, s));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Image(const pb::Image& m) {
    SavedImage image;
    image.build_id = m.build_id();
    image.path = m.path();
    image.is_elf = m.is_elf();
    image.kernel = m.kernel();
    image.file_size = m.file_size();
    image.content_hash = m.content_hash();
    image.machine = m.machine();
    for (const pb::Segment& s : m.segments()) {
      image.segments.push_back(
          {s.vaddr(), s.memsz(), s.file_offset(), s.filesz(), s.flags()});
    }
    out_.images.push_back(std::move(image));
    return absl::OkStatus();
  }

  absl::Status Functions(const pb::ImageFunctions& m) {
    HWT_ASSIGN_OR_RETURN(SavedImage * image, ImageRef(m.image()));
    const int n = m.start_size();
    HWT_RETURN_IF_ERROR(
        Columns(n, {m.size_size(), m.name_size(), m.raw_name_size(),
                    m.file_size(), m.line_size()}));
    for (int i = 0; i < n; ++i) {
      SavedFunction f;
      f.start = m.start(i);
      f.size = m.size(i);
      HWT_ASSIGN_OR_RETURN(const std::string* name, String(m.name(i)));
      HWT_ASSIGN_OR_RETURN(const std::string* raw, String(m.raw_name(i)));
      HWT_ASSIGN_OR_RETURN(const std::string* file, String(m.file(i)));
      f.name = *name;
      f.raw_name = *raw;
      f.file = *file;
      f.line = m.line(i);
      image->functions.push_back(std::move(f));
    }
    return absl::OkStatus();
  }

  absl::Status Addresses(const pb::ImageAddresses& m) {
    HWT_ASSIGN_OR_RETURN(SavedImage * image, ImageRef(m.image()));
    HWT_RETURN_IF_ERROR(Columns(m.vaddr_size(), {m.frame_count_size()}));
    const int frames = m.function_size();
    HWT_RETURN_IF_ERROR(
        Columns(frames, {m.file_size(), m.line_size(), m.discriminator_size(),
                         m.inlined_size()}));
    // 1.1's columns: absent from a 1.0 file, else as long as the others.
    const bool has_export_names =
        m.linkage_name_size() != 0 || m.start_line_size() != 0;
    if (has_export_names) {
      HWT_RETURN_IF_ERROR(
          Columns(frames, {m.linkage_name_size(), m.start_line_size()}));
    }
    int next = 0;
    for (int i = 0; i < m.vaddr_size(); ++i) {
      SavedAddress a;
      a.vaddr = m.vaddr(i);
      const uint32_t count = m.frame_count(i);
      if (count > static_cast<uint32_t>(frames - next)) {
        return reader_.Error("address frames run past their columns");
      }
      for (uint32_t k = 0; k < count; ++k, ++next) {
        SavedSourceFrame f;
        HWT_ASSIGN_OR_RETURN(const std::string* fn, String(m.function(next)));
        HWT_ASSIGN_OR_RETURN(const std::string* file, String(m.file(next)));
        f.function = *fn;
        f.file = *file;
        f.line = m.line(next);
        f.discriminator = m.discriminator(next);
        f.inlined = m.inlined(next);
        if (has_export_names) {
          HWT_ASSIGN_OR_RETURN(const std::string* linkage,
                               String(m.linkage_name(next)));
          f.linkage_name = *linkage;
          f.start_line = m.start_line(next);
        }
        a.frames.push_back(std::move(f));
      }
      image->addresses.push_back(std::move(a));
    }
    if (next != frames) return reader_.Error("address frames left over");
    return absl::OkStatus();
  }

  absl::Status Code(const pb::ImageCode& m) {
    HWT_ASSIGN_OR_RETURN(SavedImage * image, ImageRef(m.image()));
    HWT_RETURN_IF_ERROR(Columns(m.vaddr_size(), {m.bytes_size()}));
    for (int i = 0; i < m.vaddr_size(); ++i) {
      std::vector<CodeRange>& code = image->code;
      const uint64_t vaddr = m.vaddr(i);
      if (!code.empty() &&
          code.back().vaddr + code.back().bytes.size() == vaddr) {
        code.back().bytes += m.bytes(i);  // the pieces of one range
      } else {
        code.push_back({vaddr, m.bytes(i)});
      }
    }
    return absl::OkStatus();
  }

  absl::Status Blocks(const pb::Blocks& m) {
    const int n = m.image_size();
    HWT_RETURN_IF_ERROR(Columns(
        n, {m.vaddr_size(), m.last_vaddr_size(), m.ninsn_size(), m.end_size(),
            m.isa_size(), m.region_size(), m.fn_kind_size(), m.fn_image_size(),
            m.fn_start_size(), m.fn_end_size(), m.last_fn_kind_size(),
            m.last_fn_image_size(), m.last_fn_start_size(),
            m.last_fn_end_size(), m.count_size(), m.time_size()}));
    for (int i = 0; i < n; ++i) {
      BlockStats b;
      b.image = m.image(i);
      b.vaddr = m.vaddr(i);
      b.last_vaddr = m.last_vaddr(i);
      b.ninsn = m.ninsn(i);
      b.end = static_cast<BranchKind>(Narrow(m.end(i)));
      b.isa = static_cast<Isa>(Narrow(m.isa(i)));
      b.region = m.region(i);
      b.function = {static_cast<FrameKind>(Narrow(m.fn_kind(i))), m.fn_image(i),
                    m.fn_start(i), m.fn_end(i)};
      b.last_function = {static_cast<FrameKind>(Narrow(m.last_fn_kind(i))),
                         m.last_fn_image(i), m.last_fn_start(i),
                         m.last_fn_end(i)};
      b.count = m.count(i);
      b.time = m.time(i);
      out_.profile.blocks.push_back(b);
    }
    return absl::OkStatus();
  }

  absl::Status Edges(const pb::BlockEdges& m) {
    HWT_RETURN_IF_ERROR(Columns(m.from_size(), {m.to_size(), m.count_size()}));
    for (int i = 0; i < m.from_size(); ++i) {
      out_.profile.edges.push_back({m.from(i), m.to(i), m.count(i)});
    }
    return absl::OkStatus();
  }

  absl::Status Functions(const pb::FunctionStats& m) {
    const int n = m.kind_size();
    HWT_RETURN_IF_ERROR(
        Columns(n, {m.image_size(), m.start_size(), m.self_insns_size(),
                    m.total_insns_size(), m.self_time_size(),
                    m.total_time_size(), m.calls_size()}));
    for (int i = 0; i < n; ++i) {
      FunctionStats f;
      f.frame = KeyOf(m.kind(i), m.image(i), m.start(i));
      f.self_insns = m.self_insns(i);
      f.total_insns = m.total_insns(i);
      f.self_time = m.self_time(i);
      f.total_time = m.total_time(i);
      f.calls = m.calls(i);
      out_.profile.functions.push_back(f);
    }
    return absl::OkStatus();
  }

  absl::Status CallEdges(const pb::CallEdges& m) {
    const int n = m.count_size();
    HWT_RETURN_IF_ERROR(Columns(
        n,
        {m.caller_kind_size(), m.caller_image_size(), m.caller_start_size(),
         m.callee_kind_size(), m.callee_image_size(), m.callee_start_size()}));
    for (int i = 0; i < n; ++i) {
      out_.profile.call_edges.push_back(
          {KeyOf(m.caller_kind(i), m.caller_image(i), m.caller_start(i)),
           KeyOf(m.callee_kind(i), m.callee_image(i), m.callee_start(i)),
           m.count(i)});
    }
    return absl::OkStatus();
  }

  absl::Status Paths(const pb::Paths& m) {
    HWT_RETURN_IF_ERROR(
        Columns(m.length_size(), {m.count_size(), m.insns_size()}));
    int next = 0;
    for (int i = 0; i < m.length_size(); ++i) {
      PathStats p;
      const uint32_t length = m.length(i);
      if (length > static_cast<uint32_t>(m.block_size() - next)) {
        return reader_.Error("path blocks run past their column");
      }
      p.blocks.assign(m.block().begin() + next,
                      m.block().begin() + next + length);
      next += static_cast<int>(length);
      p.count = m.count(i);
      p.insns = m.insns(i);
      out_.profile.paths.push_back(std::move(p));
    }
    if (next != m.block_size()) return reader_.Error("path blocks left over");
    return absl::OkStatus();
  }

  absl::Status Stats(const pb::Stats& m) {
    Profile& p = out_.profile;
    if (m.counts() > static_cast<uint32_t>(ProfileCounts::kSamples)) {
      return reader_.Error(absl::StrCat("unknown kind of counts ", m.counts()));
    }
    p.counts = static_cast<ProfileCounts>(m.counts());
    p.has_time = m.has_time();
    ProfileStats& s = p.stats;
    s.events = m.events();
    s.blocks = m.blocks();
    s.instructions = m.instructions();
    s.time = m.time();
    s.gaps = m.gaps();
    for (size_t i = 0; i < s.gaps_by_reason.size() &&
                       i < static_cast<size_t>(m.gaps_by_reason_size());
         ++i) {
      s.gaps_by_reason[i] = m.gaps_by_reason(static_cast<int>(i));
    }
    s.disables = m.disables();
    s.enables = m.enables();
    s.exceptions = m.exceptions();
    s.context_events = m.context_events();
    s.unknown_region_blocks = m.unknown_region_blocks();
    s.invalid_region_events = m.invalid_region_events();
    s.malformed_blocks = m.malformed_blocks();
    return absl::OkStatus();
  }

  absl::Status Tree(const pb::Tree& m) {
    if (m.merged()) {
      if (seen_merged_) return reader_.Error("a second merged tree");
      seen_merged_ = true;
      tree_ = &out_.profile.merged;
    } else {
      ThreadProfile& t = out_.profile.threads.emplace_back();
      t.capture = m.capture();
      t.stream = m.stream();
      t.context = m.context();
      tree_ = &t.tree;
    }
    ++trees_;
    return absl::OkStatus();
  }

  absl::Status Nodes(const pb::TreeNodes& m) {
    if (tree_ == nullptr) return reader_.Error("tree nodes before any tree");
    const int n = m.parent_size();
    HWT_RETURN_IF_ERROR(Columns(
        n, {m.kind_size(), m.image_size(), m.start_size(), m.calls_size(),
            m.gaps_size(), m.self_insns_size(), m.self_time_size()}));
    for (int i = 0; i < n; ++i) {
      CallTree::Node node;
      node.parent = m.parent(i);
      node.frame = KeyOf(m.kind(i), m.image(i), m.start(i));
      node.calls = m.calls(i);
      node.gaps = m.gaps(i);
      node.self_insns = m.self_insns(i);
      node.self_time = m.self_time(i);
      tree_->nodes.push_back(node);
    }
    nodes_ += n;
    return absl::OkStatus();
  }

  absl::Status NodeBlocks(const pb::NodeBlocks& m) {
    if (tree_ == nullptr) return reader_.Error("node blocks before any tree");
    const int n = m.node_size();
    HWT_RETURN_IF_ERROR(
        Columns(n, {m.block_size(), m.count_size(), m.time_size()}));
    for (int i = 0; i < n; ++i) {
      tree_->node_blocks.push_back(
          {m.node(i), m.block(i), m.count(i), m.time(i)});
    }
    return absl::OkStatus();
  }

  absl::Status End(const pb::End& m) {
    ended_ = true;
    if (m.chunks() != reader_.chunks_read() ||
        m.blocks() != out_.profile.blocks.size() || m.trees() != trees_ ||
        m.nodes() != nodes_) {
      return reader_.Error(absl::StrFormat(
          "the end chunk counts %d chunks, %d blocks, %d trees and %d nodes, "
          "the file has %d, %d, %d and %d: chunks are missing",
          m.chunks(), m.blocks(), m.trees(), m.nodes(), reader_.chunks_read(),
          out_.profile.blocks.size(), trees_, nodes_));
    }
    return absl::OkStatus();
  }

  ChunkReader& reader_;
  SavedProfile& out_;
  pb::Header header_;
  std::vector<std::string> strings_;
  CallTree* tree_ = nullptr;
  bool seen_header_ = false;
  bool seen_merged_ = false;
  bool ended_ = false;
  uint64_t trees_ = 0;
  uint64_t nodes_ = 0;
};

// Ends, depths and totals of a tree read in preorder. Errors: a parent that
// is not an open ancestor (not preorder), a root that is not node 0.
absl::Status ShapeTree(CallTree& tree, const std::string& what) {
  if (tree.nodes.empty()) return absl::OkStatus();
  if (tree.nodes[0].parent != 0) {
    return absl::InvalidArgumentError(what + ": node 0 is not a root");
  }
  std::vector<uint32_t> open = {0};
  tree.nodes[0].depth = 0;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    CallTree::Node& n = tree.nodes[i];
    while (!open.empty() && open.back() != n.parent) {
      tree.nodes[open.back()].end = i;
      open.pop_back();
    }
    if (open.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: node %d has parent %d, which is not one of its open ancestors "
          "(nodes must be in preorder)",
          what, i, n.parent));
    }
    n.depth = tree.nodes[n.parent].depth + 1;
    open.push_back(i);
  }
  for (uint32_t n : open) tree.nodes[n].end = tree.nodes.size();
  for (CallTree::Node& n : tree.nodes) {
    n.total_insns = n.self_insns;
    n.total_time = n.self_time;
  }
  for (uint32_t i = static_cast<uint32_t>(tree.nodes.size()); i-- > 1;) {
    CallTree::Node& parent = tree.nodes[tree.nodes[i].parent];
    parent.total_insns += tree.nodes[i].total_insns;
    parent.total_time += tree.nodes[i].total_time;
  }
  return absl::OkStatus();
}

absl::Status Prefix(const std::string& name, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(name, ": ", status.message()));
}

absl::Status CheckMagic(absl::Span<const uint8_t> bytes,
                        const std::string& name) {
  if (!LooksLikeProfile(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": not a saved profile (no \"HWTPROF\" magic at offset 0)"));
  }
  return absl::OkStatus();
}

// Runs chunks through `assembler` until the end (or until `stop` says so).
template <typename Stop>
absl::Status ReadChunks(ChunkReader& reader, Assembler& assembler, Stop stop) {
  pb::Chunk chunk;
  for (;;) {
    std::string_view payload;
    HWT_ASSIGN_OR_RETURN(bool more, reader.Next(&payload));
    if (!more) break;
    chunk.Clear();
    if (!chunk.ParseFromArray(payload.data(),
                              static_cast<int>(payload.size()))) {
      return reader.Error("not a valid protobuf chunk");
    }
    if (assembler.seen_header() && stop(chunk)) return absl::OkStatus();
    HWT_RETURN_IF_ERROR(assembler.Add(chunk));
    reader.CountChunk();
  }
  if (!assembler.ended()) {
    return reader.Error(
        "the file ends without its end chunk: truncated (was it still being "
        "written, or copied in part?)");
  }
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeProfile(absl::Span<const uint8_t> bytes) {
  return bytes.size() >= kProfileMagic.size() &&
         std::equal(kProfileMagic.begin(), kProfileMagic.end(), bytes.begin());
}

bool IsProfileFile(const std::string& path) {
  auto file = MappedFile::Open(path);
  return file.ok() && LooksLikeProfile(file->bytes());
}

absl::StatusOr<SavedProfile> ParseProfile(absl::Span<const uint8_t> bytes,
                                          const std::string& name) {
  HWT_RETURN_IF_ERROR(CheckMagic(bytes, name));
  SavedProfile profile;
  ChunkReader reader(bytes.subspan(kProfileMagic.size()), name);
  Assembler assembler(reader, profile);
  absl::Status status =
      ReadChunks(reader, assembler, [](const pb::Chunk&) { return false; });
  if (status.code() == absl::StatusCode::kFailedPrecondition) {
    return Prefix(name, status);  // the version message has no file name
  }
  HWT_RETURN_IF_ERROR(status);
  HWT_RETURN_IF_ERROR(
      Prefix(name, ShapeTree(profile.profile.merged, "the merged tree")));
  for (size_t i = 0; i < profile.profile.threads.size(); ++i) {
    HWT_RETURN_IF_ERROR(
        Prefix(name, ShapeTree(profile.profile.threads[i].tree,
                               absl::StrCat("the tree of thread ", i))));
  }
  HWT_RETURN_IF_ERROR(Prefix(name, ValidateProfile(profile)));
  return profile;
}

absl::StatusOr<SavedProfile> ReadProfileFile(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  return ParseProfile(file.bytes(), path);
}

absl::StatusOr<ProfileHeader> ReadProfileHeader(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
  HWT_RETURN_IF_ERROR(CheckMagic(file.bytes(), path));
  SavedProfile profile;
  ChunkReader reader(file.bytes().subspan(kProfileMagic.size()), path);
  Assembler assembler(reader, profile);
  absl::Status status = ReadChunks(reader, assembler, [](const pb::Chunk& c) {
    return c.part_case() != pb::Chunk::kHeader &&
           c.part_case() != pb::Chunk::kSource;
  });
  if (status.code() == absl::StatusCode::kFailedPrecondition) {
    return Prefix(path, status);
  }
  HWT_RETURN_IF_ERROR(status);
  ProfileHeader header;
  header.writer = profile.writer;
  header.major = static_cast<int>(assembler.header().major());
  header.minor = static_cast<int>(assembler.header().minor());
  header.sources = std::move(profile.sources);
  return header;
}

namespace internal {

absl::StatusOr<std::vector<std::string>> ReadChunkPayloads(
    absl::Span<const uint8_t> bytes) {
  HWT_RETURN_IF_ERROR(CheckMagic(bytes, "profile"));
  ChunkReader reader(bytes.subspan(kProfileMagic.size()), "profile");
  std::vector<std::string> out;
  for (;;) {
    std::string_view payload;
    HWT_ASSIGN_OR_RETURN(bool more, reader.Next(&payload));
    if (!more) return out;
    out.emplace_back(payload);
  }
}

}  // namespace internal
}  // namespace hwt::analysis
