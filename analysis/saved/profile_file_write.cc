// Writing .hwtprof files: the model cut into chunks of bounded size, each
// serialised with protobuf and written length-delimited into one zstd
// stream behind the magic. See profile_file.h and docs/profile-format.md.
#include <zstd.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "analysis/saved/hwtprof.pb.h"
#include "analysis/saved/profile_file.h"
#include "analysis/saved/profile_file_internal.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::analysis {
namespace {

namespace pb = ::hwt::profile_file;
using internal::kMaxBlocksPerChunk;
using internal::kMaxBytesPerChunk;
using internal::kMaxItemsPerChunk;

// Delimited chunks into a zstd stream into a sink.
class ChunkWriter {
 public:
  using Sink = std::function<absl::Status(std::string_view)>;
  explicit ChunkWriter(Sink sink) : sink_(std::move(sink)) {
    ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, 3);
    out_.resize(ZSTD_CStreamOutSize());
  }

  absl::Status Add(const pb::Chunk& chunk) {
    return AddRaw(chunk.SerializeAsString());
  }

  // A serialised chunk, behind its length.
  absl::Status AddRaw(std::string_view payload) {
    std::string bytes;
    for (uint64_t v = payload.size();; v >>= 7) {
      bytes.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
      if (v < 0x80) break;
    }
    bytes.append(payload);
    ++chunks_;
    return Compress(bytes, ZSTD_e_continue);
  }

  absl::Status Finish() { return Compress({}, ZSTD_e_end); }
  uint64_t chunks() const { return chunks_; }

 private:
  struct FreeCCtx {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };

  absl::Status Compress(std::string_view data, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    for (;;) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx_.get(), &out, &in, mode);
      if (ZSTD_isError(left)) {
        return absl::InternalError(
            absl::StrCat("zstd: ", ZSTD_getErrorName(left)));
      }
      if (out.pos != 0) {
        HWT_RETURN_IF_ERROR(sink_(std::string_view(out_.data(), out.pos)));
      }
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) {
        return absl::OkStatus();
      }
    }
  }

  Sink sink_;
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> cctx_{ZSTD_createCCtx()};
  std::string out_;
  uint64_t chunks_ = 0;
};

// Every name string once, in first-use order.
class StringTable {
 public:
  uint32_t Id(const std::string& s) {
    auto it = index_.find(s);
    if (it != index_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(strings_.size());
    strings_.push_back(s);  // a deque: earlier elements do not move
    index_.emplace(strings_.back(), id);
    return id;
  }
  const std::deque<std::string>& strings() const { return strings_; }

 private:
  absl::flat_hash_map<std::string_view, uint32_t> index_;
  std::deque<std::string> strings_;
};

void FillSource(const CaptureSource& s, pb::Source* out) {
  out->set_name(s.name);
  out->set_path(s.path);
  out->set_fingerprint(s.fingerprint);
  out->set_analysis(s.analysis);
  out->set_backend(s.backend);
  out->set_mode(s.mode);
  pb::Cpu* cpu = out->mutable_cpu();
  cpu->set_arch(s.cpu_arch);
  cpu->set_vendor(s.cpu_vendor);
  cpu->set_family(s.cpu_family);
  cpu->set_model(s.cpu_model);
  cpu->set_stepping(s.cpu_stepping);
  cpu->set_midr(s.cpu_midr);
  cpu->set_nominal_frequency_hz(s.cpu_frequency_hz);
  if (s.pid) out->set_pid(*s.pid);
  out->set_command(s.command);
  out->set_hostname(s.hostname);
  out->set_os(s.os);
  out->set_created(s.created);
  out->set_recorder(s.recorder);
  for (const auto& [k, v] : s.labels) {
    pb::Label* label = out->add_labels();
    label->set_key(k);
    label->set_value(v);
  }
  for (const SavedStream& st : s.streams) {
    pb::Stream* o = out->add_streams();
    o->set_id(st.info.id);
    o->set_buffer_index(st.info.buffer_index);
    o->set_name(st.info.name);
    if (st.info.cpu) o->set_cpu(*st.info.cpu);
    if (st.info.thread) o->set_thread(*st.info.thread);
    o->set_trace_id(st.info.trace_id);
    o->set_trace_bytes(st.stats.trace_bytes);
    o->set_bytes_decoded(st.stats.bytes_decoded);
    o->set_bytes_lost(st.stats.bytes_lost);
    o->set_packets(st.stats.packets);
    o->set_instructions(st.stats.instructions);
    o->set_blocks(st.stats.blocks);
    o->set_errors(st.stats.errors);
    o->set_overflows(st.stats.overflows);
    for (const DecodeErrorInfo& e : st.stats.error_list) {
      pb::DecodeError* d = o->add_error_list();
      d->set_offset(e.offset);
      d->set_bytes_lost(e.bytes_lost);
      d->set_reason(static_cast<uint32_t>(e.reason));
      d->set_ip(e.ip);
      d->set_message(e.message);
    }
  }
}

// Writes the chunks of a profile, in the order docs/profile-format.md
// gives.
class ProfileWriter {
 public:
  explicit ProfileWriter(ChunkWriter& out) : out_(out) {}

  absl::Status Write(const SavedProfile& p) {
    pb::Chunk c;
    c.mutable_header()->set_major(kProfileMajorVersion);
    c.mutable_header()->set_minor(kProfileMinorVersion);
    c.mutable_header()->set_writer(p.writer);
    HWT_RETURN_IF_ERROR(out_.Add(c));
    for (const CaptureSource& s : p.sources) {
      c.Clear();
      FillSource(s, c.mutable_source());
      HWT_RETURN_IF_ERROR(out_.Add(c));
    }
    HWT_RETURN_IF_ERROR(WriteStrings(p));
    for (uint32_t i = 0; i < p.images.size(); ++i) {
      HWT_RETURN_IF_ERROR(WriteImage(i, p.images[i]));
    }
    HWT_RETURN_IF_ERROR(WriteBlocks(p.profile.blocks));
    HWT_RETURN_IF_ERROR(WriteEdges(p.profile.edges));
    HWT_RETURN_IF_ERROR(WriteFunctions(p.profile.functions));
    HWT_RETURN_IF_ERROR(WriteCallEdges(p.profile.call_edges));
    HWT_RETURN_IF_ERROR(WritePaths(p.profile.paths));
    HWT_RETURN_IF_ERROR(WriteStats(p.profile));
    uint64_t nodes = p.profile.merged.nodes.size();
    pb::Tree merged;
    merged.set_merged(true);
    HWT_RETURN_IF_ERROR(WriteTree(merged, p.profile.merged));
    for (const ThreadProfile& t : p.profile.threads) {
      pb::Tree tree;
      tree.set_capture(t.capture);
      tree.set_stream(t.stream);
      tree.set_context(t.context);
      HWT_RETURN_IF_ERROR(WriteTree(tree, t.tree));
      nodes += t.tree.nodes.size();
    }
    c.Clear();
    pb::End* end = c.mutable_end();
    end->set_chunks(out_.chunks());
    end->set_blocks(p.profile.blocks.size());
    end->set_trees(1 + p.profile.threads.size());
    end->set_nodes(nodes);
    HWT_RETURN_IF_ERROR(out_.Add(c));
    return out_.Finish();
  }

 private:
  absl::Status WriteStrings(const SavedProfile& p) {
    for (const SavedImage& image : p.images) {
      for (const SavedFunction& f : image.functions) {
        strings_.Id(f.name);
        strings_.Id(f.raw_name);
        strings_.Id(f.file);
      }
      for (const SavedAddress& a : image.addresses) {
        for (const SavedSourceFrame& f : a.frames) {
          strings_.Id(f.function);
          strings_.Id(f.file);
          strings_.Id(f.linkage_name);
        }
      }
    }
    pb::Chunk c;
    size_t bytes = 0;
    for (const std::string& s : strings_.strings()) {
      c.mutable_strings()->add_value(s);
      bytes += s.size() + 2;
      if (bytes >= kMaxBytesPerChunk) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
        bytes = 0;
      }
    }
    if (c.has_strings()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteImage(uint32_t index, const SavedImage& image) {
    pb::Chunk c;
    pb::Image* o = c.mutable_image();
    o->set_build_id(image.build_id);
    o->set_path(image.path);
    o->set_is_elf(image.is_elf);
    o->set_kernel(image.kernel);
    o->set_file_size(image.file_size);
    o->set_content_hash(image.content_hash);
    o->set_machine(image.machine);
    for (const ImageSegment& s : image.segments) {
      pb::Segment* seg = o->add_segments();
      seg->set_vaddr(s.vaddr);
      seg->set_memsz(s.memsz);
      seg->set_file_offset(s.file_offset);
      seg->set_filesz(s.filesz);
      seg->set_flags(s.flags);
    }
    HWT_RETURN_IF_ERROR(out_.Add(c));
    HWT_RETURN_IF_ERROR(WriteImageFunctions(index, image));
    HWT_RETURN_IF_ERROR(WriteImageAddresses(index, image));
    return WriteImageCode(index, image);
  }

  absl::Status WriteImageFunctions(uint32_t index, const SavedImage& image) {
    pb::Chunk c;
    for (size_t i = 0; i < image.functions.size(); ++i) {
      pb::ImageFunctions* o = c.mutable_functions();
      o->set_image(index);
      const SavedFunction& f = image.functions[i];
      o->add_start(f.start);
      o->add_size(f.size);
      o->add_name(strings_.Id(f.name));
      o->add_raw_name(strings_.Id(f.raw_name));
      o->add_file(strings_.Id(f.file));
      o->add_line(f.line);
      if (o->start_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_functions()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteImageAddresses(uint32_t index, const SavedImage& image) {
    pb::Chunk c;
    for (const SavedAddress& a : image.addresses) {
      pb::ImageAddresses* o = c.mutable_addresses();
      o->set_image(index);
      o->add_vaddr(a.vaddr);
      o->add_frame_count(static_cast<uint32_t>(a.frames.size()));
      for (const SavedSourceFrame& f : a.frames) {
        o->add_function(strings_.Id(f.function));
        o->add_file(strings_.Id(f.file));
        o->add_line(f.line);
        o->add_discriminator(f.discriminator);
        o->add_inlined(f.inlined);
        o->add_linkage_name(strings_.Id(f.linkage_name));
        o->add_start_line(f.start_line);
      }
      if (o->function_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_addresses()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteImageCode(uint32_t index, const SavedImage& image) {
    pb::Chunk c;
    size_t bytes = 0;
    for (const CodeRange& r : image.code) {
      // Long ranges go in pieces; the reader joins adjacent pieces.
      for (size_t at = 0; at < r.bytes.size(); at += kMaxBytesPerChunk) {
        const size_t n = std::min(kMaxBytesPerChunk, r.bytes.size() - at);
        pb::ImageCode* o = c.mutable_code();
        o->set_image(index);
        o->add_vaddr(r.vaddr + at);
        o->add_bytes(r.bytes.substr(at, n));
        bytes += n;
        if (bytes >= kMaxBytesPerChunk) {
          HWT_RETURN_IF_ERROR(out_.Add(c));
          c.Clear();
          bytes = 0;
        }
      }
    }
    if (c.has_code()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteBlocks(const std::vector<BlockStats>& blocks) {
    pb::Chunk c;
    for (const BlockStats& b : blocks) {
      pb::Blocks* o = c.mutable_blocks();
      o->add_image(b.image);
      o->add_vaddr(b.vaddr);
      o->add_last_vaddr(b.last_vaddr);
      o->add_ninsn(b.ninsn);
      o->add_end(static_cast<uint32_t>(b.end));
      o->add_isa(static_cast<uint32_t>(b.isa));
      o->add_region(b.region);
      o->add_fn_kind(static_cast<uint32_t>(b.function.kind));
      o->add_fn_image(b.function.image);
      o->add_fn_start(b.function.start);
      o->add_fn_end(b.function.end);
      o->add_last_fn_kind(static_cast<uint32_t>(b.last_function.kind));
      o->add_last_fn_image(b.last_function.image);
      o->add_last_fn_start(b.last_function.start);
      o->add_last_fn_end(b.last_function.end);
      o->add_count(b.count);
      o->add_time(b.time);
      if (o->image_size() >= static_cast<int>(kMaxBlocksPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_blocks()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteEdges(const std::vector<BlockEdge>& edges) {
    pb::Chunk c;
    for (const BlockEdge& e : edges) {
      pb::BlockEdges* o = c.mutable_edges();
      o->add_from(e.from);
      o->add_to(e.to);
      o->add_count(e.count);
      if (o->from_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_edges()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteFunctions(const std::vector<FunctionStats>& functions) {
    pb::Chunk c;
    for (const FunctionStats& f : functions) {
      pb::FunctionStats* o = c.mutable_function_stats();
      o->add_kind(static_cast<uint32_t>(f.frame.kind));
      o->add_image(f.frame.image);
      o->add_start(f.frame.start);
      o->add_self_insns(f.self_insns);
      o->add_total_insns(f.total_insns);
      o->add_self_time(f.self_time);
      o->add_total_time(f.total_time);
      o->add_calls(f.calls);
      if (o->kind_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_function_stats()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteCallEdges(const std::vector<CallEdge>& edges) {
    pb::Chunk c;
    for (const CallEdge& e : edges) {
      pb::CallEdges* o = c.mutable_call_edges();
      o->add_caller_kind(static_cast<uint32_t>(e.caller.kind));
      o->add_caller_image(e.caller.image);
      o->add_caller_start(e.caller.start);
      o->add_callee_kind(static_cast<uint32_t>(e.callee.kind));
      o->add_callee_image(e.callee.image);
      o->add_callee_start(e.callee.start);
      o->add_count(e.count);
      if (o->count_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_call_edges()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WritePaths(const std::vector<PathStats>& paths) {
    pb::Chunk c;
    for (const PathStats& p : paths) {
      pb::Paths* o = c.mutable_paths();
      o->add_length(static_cast<uint32_t>(p.blocks.size()));
      for (uint32_t b : p.blocks) o->add_block(b);
      o->add_count(p.count);
      o->add_insns(p.insns);
      if (o->block_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_paths()) return out_.Add(c);
    return absl::OkStatus();
  }

  absl::Status WriteStats(const Profile& p) {
    pb::Chunk c;
    pb::Stats* o = c.mutable_stats();
    const ProfileStats& s = p.stats;
    o->set_has_time(p.has_time);
    o->set_counts(static_cast<uint32_t>(p.counts));
    o->set_events(s.events);
    o->set_blocks(s.blocks);
    o->set_instructions(s.instructions);
    o->set_time(s.time);
    o->set_gaps(s.gaps);
    for (uint64_t g : s.gaps_by_reason) o->add_gaps_by_reason(g);
    o->set_disables(s.disables);
    o->set_enables(s.enables);
    o->set_exceptions(s.exceptions);
    o->set_context_events(s.context_events);
    o->set_unknown_region_blocks(s.unknown_region_blocks);
    o->set_invalid_region_events(s.invalid_region_events);
    o->set_malformed_blocks(s.malformed_blocks);
    return out_.Add(c);
  }

  absl::Status WriteTree(const pb::Tree& header, const CallTree& tree) {
    pb::Chunk c;
    *c.mutable_tree() = header;
    HWT_RETURN_IF_ERROR(out_.Add(c));
    c.Clear();
    for (const CallTree::Node& n : tree.nodes) {
      pb::TreeNodes* o = c.mutable_nodes();
      o->add_parent(n.parent);
      o->add_kind(static_cast<uint32_t>(n.frame.kind));
      o->add_image(n.frame.image);
      o->add_start(n.frame.start);
      o->add_calls(n.calls);
      o->add_gaps(n.gaps);
      o->add_self_insns(n.self_insns);
      o->add_self_time(n.self_time);
      if (o->parent_size() >= static_cast<int>(kMaxBlocksPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_nodes()) HWT_RETURN_IF_ERROR(out_.Add(c));
    c.Clear();
    for (const CallTree::NodeBlock& nb : tree.node_blocks) {
      pb::NodeBlocks* o = c.mutable_node_blocks();
      o->add_node(nb.node);
      o->add_block(nb.block);
      o->add_count(nb.count);
      o->add_time(nb.time);
      if (o->node_size() >= static_cast<int>(kMaxItemsPerChunk)) {
        HWT_RETURN_IF_ERROR(out_.Add(c));
        c.Clear();
      }
    }
    if (c.has_node_blocks()) return out_.Add(c);
    return absl::OkStatus();
  }

  ChunkWriter& out_;
  StringTable strings_;
};

absl::Status WriteTo(const SavedProfile& profile, ChunkWriter::Sink sink) {
  HWT_RETURN_IF_ERROR(sink(kProfileMagic));
  ChunkWriter chunks(std::move(sink));
  ProfileWriter writer(chunks);
  return writer.Write(profile);
}

}  // namespace

std::string SerializeProfile(const SavedProfile& profile) {
  std::string out;
  absl::Status status = WriteTo(profile, [&out](std::string_view data) {
    out.append(data);
    return absl::OkStatus();
  });
  // Appending to memory cannot fail; zstd errors are bugs.
  if (!status.ok()) return "";
  return out;
}

absl::Status WriteProfileFile(const std::string& path,
                              const SavedProfile& profile) {
  HWT_ASSIGN_OR_RETURN(AtomicFileWriter file, AtomicFileWriter::Create(path));
  HWT_RETURN_IF_ERROR(WriteTo(
      profile, [&file](std::string_view data) { return file.Write(data); }));
  return file.Commit();
}

namespace internal {

std::string FileOfChunkPayloads(const std::vector<std::string>& payloads) {
  std::string out(kProfileMagic);
  ChunkWriter writer([&out](std::string_view data) {
    out.append(data);
    return absl::OkStatus();
  });
  for (const std::string& payload : payloads) {
    if (!writer.AddRaw(payload).ok()) return "";
  }
  if (!writer.Finish().ok()) return "";
  return out;
}

}  // namespace internal
}  // namespace hwt::analysis
