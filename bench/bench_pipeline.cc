// Benchmark and parallel-equality pipelines; see bench_pipeline.h.
#include "bench/bench_pipeline.h"

#include <intel-pt.h>

#include <algorithm>
#include <memory>

#include "analysis/profile_text.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/progress_sink.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/stats_decode.h"
#include "pipeline/timeline_symbolizer.h"
#include "report/naming/symbolized_profile.h"
#include "report/naming/symbolizer_symbols.h"

namespace hwt::bench {

RangeResolver::RangeResolver(std::vector<analysis::FunctionRange> ranges)
    : ranges_(std::move(ranges)) {
  std::sort(ranges_.begin(), ranges_.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
}

std::optional<analysis::FunctionRange> RangeResolver::FunctionAt(
    uint32_t, uint64_t vaddr) {
  auto it = std::upper_bound(
      ranges_.begin(), ranges_.end(), vaddr,
      [](uint64_t v, const analysis::FunctionRange& r) { return v < r.start; });
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (vaddr >= it->end) return std::nullopt;
  return *it;
}

RangeResolver SyntheticResolver(const recorder::SyntheticProgram& program) {
  std::vector<analysis::FunctionRange> ranges;
  for (const auto& fn : recorder::SyntheticFunctions(program)) {
    ranges.push_back({fn.start, fn.end});
  }
  return RangeResolver(std::move(ranges));
}

report::FrameNamer MakeNamer(symbolizer::Symbolizer* symbols,
                             const capture::AddressSpaceTimeline& timeline) {
  // Named as hwt-report names them (ProfileNames over the symbolizer). The
  // namer outlives this call and is copied: the naming state is shared.
  struct Naming {
    std::unique_ptr<symbolizer::Symbolizer> own;  // when given none
    std::unique_ptr<report::SymbolizerProfileSymbols> symbols;
    std::unique_ptr<report::ProfileNames> names;
  };
  auto naming = std::make_shared<Naming>();
  if (symbols == nullptr) {
    naming->own = symbolizer::Symbolizer::Create({});
    pipeline::RegisterTimelineImages(timeline, *naming->own);
    symbols = naming->own.get();
  }
  naming->symbols =
      std::make_unique<report::SymbolizerProfileSymbols>(symbols, &timeline);
  naming->names = std::make_unique<report::ProfileNames>(*naming->symbols);
  return [naming](const analysis::FrameKey& key) {
    return naming->names->Name(key);
  };
}

absl::StatusOr<DecodeResult> DecodeStats(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    const DecoderOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(capture, timeline, options));
  // As hwt-decode --stats.
  std::vector<uint64_t> sizes;
  for (const auto& buffer : capture.manifest().buffers) {
    sizes.push_back(buffer.size);
  }
  HWT_RETURN_IF_ERROR(DecodeForStats(*decoder, ResolveJobs(options.jobs), sizes,
                                     [](uint64_t, uint64_t) {}));
  DecodeResult result;
  result.stats = decoder->stats();
  for (const StreamStats& stats : result.stats) {
    result.instructions += stats.instructions;
  }
  if (auto* pt = dynamic_cast<pt::PtDecoder*>(decoder.get())) {
    result.segments = pt->segment_counts().segments;
    result.committed = pt->segment_counts().committed;
    result.dropped = pt->segment_counts().dropped;
  }
  return result;
}

absl::StatusOr<DecodeResult> CountFast(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    const DecoderOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(capture, timeline, options));
  DecodeResult result;
  HWT_RETURN_IF_ERROR(decoder->CountInstructions(&result.fast_note));
  result.stats = decoder->stats();
  for (const StreamStats& stats : result.stats) {
    result.instructions += stats.instructions;
  }
  return result;
}

absl::StatusOr<FoldedResult> ProfileFolded(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline,
    analysis::FunctionResolver& resolver, const report::FrameNamer& namer,
    const analysis::CaptureProfileOptions& options, bool with_text) {
  HWT_ASSIGN_OR_RETURN(
      analysis::CaptureProfile profile,
      analysis::ProfileCapture(capture, timeline, resolver, options));
  FoldedResult result;
  result.folded = report::FoldedStacks(profile.profile.merged, namer);
  if (with_text) result.profile_text = analysis::ProfileToText(profile.profile);
  result.engine_note = profile.engine_note;
  for (const StreamStats& stats : profile.stats) {
    result.instructions += stats.instructions;
  }
  return result;
}

absl::StatusOr<BareResult> BareLibipt(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline) {
  pt::PtRunContext run;
  pt::BuildPtConfig(capture.manifest(), pt::PtDecoderOptions(), &run);
  pt_image_section_cache* iscache = pt_iscache_alloc(nullptr);
  if (iscache == nullptr) return absl::ResourceExhaustedError("pt_iscache");
  pt_iscache_set_limit(iscache, uint64_t{1} << 30);
  BareResult result;
  absl::Status status;
  for (size_t b = 0; b < capture.manifest().buffers.size() && status.ok();
       ++b) {
    pt_image* image = pt_image_alloc(nullptr);
    for (const capture::AddressSpaceChange& change : timeline.changes(b)) {
      if (change.position != 0 ||
          change.kind != capture::AddressSpaceChange::Kind::kMap) {
        continue;
      }
      const capture::Region& region = timeline.regions()[change.region];
      const capture::Image& file = timeline.images()[region.image];
      if (file.file.empty() || region.file_size == 0) continue;
      const int isid =
          pt_iscache_add_file(iscache, file.file.c_str(), region.file_offset,
                              region.file_size, region.start);
      if (isid >= 0) pt_image_add_cached(image, iscache, isid, nullptr);
    }
    absl::StatusOr<MappedFile> mapped = capture.MapBuffer(b);
    if (!mapped.ok()) {
      pt_image_free(image);
      status = mapped.status();
      break;
    }
    for (const capture::BufferChunk& chunk : capture.BufferChunks(b)) {
      pt_config config = run.config;
      config.begin = const_cast<uint8_t*>(mapped->data() + chunk.offset);
      config.end = config.begin + chunk.size;
      pt_block_decoder* decoder = pt_blk_alloc_decoder(&config);
      if (decoder == nullptr) continue;
      pt_blk_set_image(decoder, image);
      for (int s = pt_blk_sync_forward(decoder); s >= 0;) {
        for (;;) {
          while (s & pts_event_pending) {
            pt_event event;
            s = pt_blk_event(decoder, &event, sizeof(event));
            if (s < 0) break;
          }
          if (s < 0 || (s & pts_eos)) break;
          pt_block block;
          s = pt_blk_next(decoder, &block, sizeof(block));
          result.instructions += block.ninsn;
          ++result.blocks;
          if (s < 0) break;
        }
        if (s == -pte_eos || (s >= 0 && (s & pts_eos))) break;
        if (s < 0) ++result.errors;
        s = pt_blk_sync_forward(decoder);
      }
      pt_blk_free_decoder(decoder);
    }
    pt_image_free(image);
  }
  pt_iscache_free(iscache);
  if (!status.ok()) return status;
  return result;
}

}  // namespace hwt::bench
