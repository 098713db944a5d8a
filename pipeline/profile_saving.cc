// Saving an analysed capture; see profile_saving.h. Names are looked up once
// per unique function and address (one batch for the addresses), code is
// read once per executed range.
#include "pipeline/profile_saving.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/saved/profile_merge.h"
#include "base/file_util.h"
#include "base/stable_hash.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"

namespace hwt::pipeline {
namespace {

using analysis::kNoImage;
using analysis::kNoRegion;

analysis::SavedImage SavedImageOf(const capture::AddressSpaceTimeline& timeline,
                                  uint32_t index,
                                  const symbolizer::Symbolizer& symbolizer) {
  const capture::Image& image = timeline.images()[index];
  analysis::SavedImage out;
  out.path = image.recorded_path;
  out.build_id = image.build_id;
  out.is_elf = image.is_elf;
  out.kernel = image.kernel;
  if (const symbolizer::ImageInfo* info = symbolizer.GetImageInfo(index)) {
    if (out.build_id.empty()) out.build_id = info->build_id;
    out.machine = info->machine;
  }
  struct stat st;
  if (!image.file.empty() && stat(image.file.c_str(), &st) == 0) {
    out.file_size = static_cast<uint64_t>(st.st_size);
    if (out.build_id.empty()) {
      if (auto hash = StableHashFile(image.file); hash.ok()) {
        out.content_hash = *hash;
      }
    }
  }
  if (image.is_elf && !image.file.empty()) {
    if (auto elf = capture::ReadElfFile(image.file); elf.ok()) {
      if (out.machine == 0) out.machine = elf->machine;
      for (const capture::ElfSegment& s : elf->segments) {
        if (s.type != 1) continue;  // PT_LOAD
        out.segments.push_back({s.vaddr, s.memsz, s.offset, s.filesz, s.flags});
      }
    }
  } else {
    // A memory dump: its regions, at their addresses (vaddr = address).
    std::set<analysis::ImageSegment> segments;
    for (const capture::Region& r : timeline.regions()) {
      if (r.image != index) continue;
      segments.insert({r.start - r.bias, r.end - r.start, r.file_offset,
                       r.file_size, r.executable ? 5u : 4u});
    }
    out.segments.assign(segments.begin(), segments.end());
  }
  return out;
}

// The function keys the profile names.
std::set<std::pair<uint32_t, uint64_t>> FunctionsOf(
    const analysis::Profile& p) {
  std::set<std::pair<uint32_t, uint64_t>> out;
  auto add = [&](analysis::FrameKind kind, uint32_t image, uint64_t start) {
    if (kind == analysis::FrameKind::kFunction && image != kNoImage) {
      out.insert({image, start});
    }
  };
  for (const analysis::FunctionStats& f : p.functions) {
    add(f.frame.kind, f.frame.image, f.frame.start);
  }
  for (const analysis::BlockStats& b : p.blocks) {
    add(b.function.kind, b.function.image, b.function.start);
    add(b.last_function.kind, b.last_function.image, b.last_function.start);
  }
  for (const analysis::CallTree::Node& n : p.merged.nodes) {
    add(n.frame.kind, n.frame.image, n.frame.start);
  }
  return out;
}

void SaveNames(const analysis::Profile& p,
               const analysis::BlockExpansion& expansion,
               const capture::AddressSpaceTimeline& timeline,
               symbolizer::Symbolizer& symbolizer,
               std::vector<analysis::SavedImage>& images) {
  const auto functions = FunctionsOf(p);
  std::set<std::pair<uint32_t, uint64_t>> addresses(functions.begin(),
                                                    functions.end());
  for (const analysis::InstructionStats& s : expansion.instructions) {
    if (s.image != kNoImage) addresses.insert({s.image, s.vaddr});
  }
  for (const analysis::BlockStats& b : p.blocks) {
    if (b.image == kNoImage) continue;
    addresses.insert({b.image, b.vaddr});
    addresses.insert({b.image, b.last_vaddr});
  }
  std::vector<symbolizer::ImageAddress> query;
  for (const auto& [image, vaddr] : addresses) {
    if (image < images.size()) query.push_back({image, vaddr});
  }
  const std::vector<const std::vector<symbolizer::Frame>*> found =
      symbolizer.SymbolizeBatch(query);
  std::map<std::pair<uint32_t, uint64_t>, const std::vector<symbolizer::Frame>*>
      frames_at;
  for (size_t i = 0; i < query.size(); ++i) {
    frames_at[{query[i].image, query[i].vaddr}] = found[i];
    analysis::SavedAddress a;
    a.vaddr = query[i].vaddr;
    for (const symbolizer::Frame& f : *found[i]) {
      a.frames.push_back({f.function, f.file, f.line, f.discriminator,
                          f.inlined, f.linkage_name, f.start_line});
    }
    // The function frame's linkage name is the symbol table's, as the
    // exports of a live capture take it (LiveExportInput::SourceFrames).
    if (!a.frames.empty()) {
      const symbolizer::FunctionSymbol* symbol =
          symbolizer.FunctionFor(query[i].image, query[i].vaddr);
      if (symbol != nullptr) a.frames.back().linkage_name = symbol->raw_name;
    }
    images[query[i].image].addresses.push_back(std::move(a));
  }
  for (const auto& [image, start] : functions) {
    if (image >= images.size()) continue;
    analysis::SavedFunction f;
    f.start = start;
    const symbolizer::FunctionSymbol* symbol =
        symbolizer.FunctionFor(image, start);
    if (symbol != nullptr && symbol->start == start) {
      f.size = symbol->size;
      f.name = symbol->name;
      f.raw_name = symbol->raw_name;
    } else {
      f.name = symbolizer::UnknownFunctionName(
          timeline.images()[image].recorded_path, start);
    }
    auto it = frames_at.find({image, start});
    if (it != frames_at.end() && !it->second->empty()) {
      f.file = it->second->back().file;
      f.line = it->second->back().line;
    }
    images[image].functions.push_back(std::move(f));
  }
}

// The bytes of every executed block that expanded, as disjoint ranges.
absl::Status SaveCode(const analysis::Profile& p,
                      const analysis::BlockExpansion& expansion,
                      const capture::AddressSpaceTimeline& timeline,
                      std::vector<analysis::SavedImage>& images) {
  struct Piece {
    uint32_t image;
    uint64_t start, end;
    uint32_t region;
    auto key() const { return std::tie(image, start, end); }
  };
  std::vector<Piece> pieces;
  for (uint32_t b = 0; b < p.blocks.size(); ++b) {
    const analysis::BlockStats& block = p.blocks[b];
    const auto insns = expansion.BlockInstructions(b);
    if (block.image == kNoImage || block.image >= images.size() ||
        block.region == kNoRegion || insns.empty()) {
      continue;
    }
    const uint32_t last = expansion.block_begin[b + 1] - 1;
    pieces.push_back({block.image, block.vaddr,
                      insns.back() + expansion.insn_lengths[last],
                      block.region});
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return a.key() < b.key(); });
  analysis::ImageCodeReader reader(timeline);
  analysis::CodeRange* open = nullptr;
  uint32_t open_image = kNoImage;
  for (const Piece& piece : pieces) {
    uint64_t from = piece.start;
    if (open != nullptr && open_image == piece.image &&
        piece.start <= open->vaddr + open->bytes.size()) {
      from = open->vaddr + open->bytes.size();
      if (piece.end <= from) continue;
    } else {
      open = &images[piece.image].code.emplace_back();
      open->vaddr = piece.start;
      open_image = piece.image;
    }
    auto bytes = reader.Read(piece.region, from, piece.end - from);
    if (!bytes.ok() || bytes->size() != piece.end - from) {
      return absl::InternalError(
          absl::StrCat("code of an expanded block cannot be read again: ",
                       bytes.ok() ? "short read" : bytes.status().message()));
    }
    open->bytes.append(reinterpret_cast<const char*>(bytes->data()),
                       bytes->size());
  }
  return absl::OkStatus();
}

}  // namespace

std::string ToolVersion() { return HWT_VERSION; }

analysis::CaptureSource CaptureSourceOf(
    const capture::Capture& capture, const analysis::CaptureProfile& profiled,
    const SaveOptions& options) {
  const capture::Manifest& m = capture.manifest();
  analysis::CaptureSource s;
  s.name =
      options.name.empty() ? BaseName(capture.source_path()) : options.name;
  s.path = capture.source_path();
  s.fingerprint = options.fingerprint;
  s.analysis = options.analysis;
  s.backend = std::string(capture::BackendName(m.backend));
  s.mode = std::string(capture::TraceModeName(m.mode));
  s.cpu_arch = m.cpu.arch;
  s.cpu_vendor = m.cpu.vendor;
  s.cpu_family = m.cpu.family;
  s.cpu_model = m.cpu.model;
  s.cpu_stepping = m.cpu.stepping;
  s.cpu_midr = m.cpu.midr;
  s.cpu_frequency_hz = m.cpu.nominal_frequency_hz;
  s.pid = m.pid;
  s.command = m.command;
  s.hostname = m.hostname;
  s.labels = m.labels;
  s.os = m.os;
  s.created = m.created;
  s.recorder = m.recorder;
  for (size_t i = 0; i < profiled.streams.size(); ++i) {
    analysis::SavedStream stream;
    stream.info = profiled.streams[i];
    if (i < profiled.stats.size()) stream.stats = profiled.stats[i];
    s.streams.push_back(std::move(stream));
  }
  return s;
}

absl::StatusOr<analysis::SavedProfile> SaveCaptureProfile(
    const analysis::CaptureProfile& profiled, const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    symbolizer::Symbolizer& symbolizer,
    const analysis::BlockExpansion& expansion, const SaveOptions& options) {
  analysis::SavedProfile saved;
  saved.sources.push_back(CaptureSourceOf(capture, profiled, options));
  for (uint32_t i = 0; i < timeline.images().size(); ++i) {
    saved.images.push_back(SavedImageOf(timeline, i, symbolizer));
  }
  saved.profile = profiled.profile;
  SaveNames(saved.profile, expansion, timeline, symbolizer, saved.images);
  HWT_RETURN_IF_ERROR(
      SaveCode(saved.profile, expansion, timeline, saved.images));
  // Canonical: images by identity (and only those used), blocks by key.
  analysis::ProfileAccumulator canonical;
  HWT_RETURN_IF_ERROR(canonical.Add(saved));
  return canonical.Finish(options.writer);
}

}  // namespace hwt::pipeline
