// The bare OpenCSD decode; see bare_opencsd.h.
#include "bench/bare_opencsd.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "decoders/coresight/memory_view.h"
#include "decoders/coresight/ocsd_api.h"
#include "decoders/coresight/ocsd_config.h"
#include "decoders/memory_image.h"
#include "opencsd/c_api/opencsd_c_api.h"

namespace hwt::bench {
namespace {

using coresight::SourceDecoderConfig;

ocsd_datapath_resp_t OnElement(const void* context, const ocsd_trc_index_t,
                               const uint8_t,
                               const ocsd_generic_trace_elem* elem) {
  auto* result = static_cast<BareOpenCsdResult*>(const_cast<void*>(context));
  ++result->elements;
  if (elem->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
    result->instructions += elem->num_instr_range;
  }
  return OCSD_RESP_CONT;
}

// The sources that write to buffer `b`: all that may (formatted), or the one
// that wrote it (unformatted: the one naming the buffer, the only one, or
// the one of the buffer's cpu, thread or id, as our decoder picks it).
std::vector<size_t> SourcesOf(const capture::Manifest& manifest, size_t b) {
  const capture::CoreSightConfig& cs = *manifest.coresight;
  const capture::BufferInfo& buffer = manifest.buffers[b];
  std::vector<size_t> candidates;
  for (size_t i = 0; i < cs.sources.size(); ++i) {
    if (!cs.sources[i].buffer || *cs.sources[i].buffer == b) {
      candidates.push_back(i);
    }
  }
  if (cs.formatted || candidates.size() <= 1) return candidates;
  for (size_t i : candidates) {
    if (cs.sources[i].buffer) return {i};
  }
  for (size_t i : candidates) {
    const capture::CoreSightSource& s = cs.sources[i];
    if ((buffer.cpu && s.cpu == buffer.cpu) ||
        (buffer.thread && s.thread == buffer.thread) ||
        (!buffer.cpu && !buffer.thread && s.trace_id == buffer.id + 1)) {
      return {i};
    }
  }
  return {};
}

class Tree {
 public:
  ~Tree() {
    if (handle_ != C_API_INVALID_TREE_HANDLE) {
      std::lock_guard<std::mutex> lock(coresight::OcsdApiMutex());
      ocsd_destroy_dcd_tree(handle_);
    }
  }
  dcd_tree_handle_t handle_ = C_API_INVALID_TREE_HANDLE;
};

absl::Status DecodeBuffer(const capture::Capture& capture,
                          const capture::AddressSpaceTimeline& timeline,
                          const std::vector<SourceDecoderConfig>& configs,
                          size_t b, ImageFileCache& files,
                          BareOpenCsdResult& result) {
  const capture::CoreSightConfig& cs = *capture.manifest().coresight;
  const std::vector<size_t> sources = SourcesOf(capture.manifest(), b);
  if (sources.empty()) return absl::OkStatus();
  Tree tree;
  {
    std::lock_guard<std::mutex> lock(coresight::OcsdApiMutex());
    tree.handle_ = cs.formatted
                       ? ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED,
                                              coresight::DeformatterFlags(cs))
                       : ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    if (tree.handle_ == C_API_INVALID_TREE_HANDLE) {
      return absl::InternalError("OpenCSD: no decode tree");
    }
    for (size_t i : sources) {
      unsigned char csid = 0;
      const ocsd_err_t err = ocsd_dt_create_decoder(
          tree.handle_, configs[i].decoder_name, OCSD_CREATE_FLG_FULL_DECODER,
          configs[i].config_ptr(), &csid);
      if (err != OCSD_OK) {
        return absl::InvalidArgumentError(
            absl::StrFormat("OpenCSD rejected the %s decoder of %s (error %d)",
                            configs[i].decoder_name, configs[i].description,
                            static_cast<int>(err)));
      }
    }
  }
  if (ocsd_dt_set_gen_elem_outfn(tree.handle_, &OnElement, &result) !=
      OCSD_OK) {
    return absl::InternalError("OpenCSD: cannot set the element callback");
  }
  // The regions mapped at the buffer's start, latest first.
  const std::vector<capture::AddressSpaceChange>& changes = timeline.changes(b);
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    if (it->position != 0 ||
        it->kind != capture::AddressSpaceChange::Kind::kMap) {
      continue;
    }
    const capture::Region& region = timeline.regions()[it->region];
    absl::StatusOr<absl::Span<const uint8_t>> bytes =
        RegionFileBytes(timeline, it->region, files);
    if (!bytes.ok() || bytes->empty()) continue;
    const ocsd_err_t err = ocsd_dt_add_buffer_mem_acc(
        tree.handle_, region.start,
        static_cast<ocsd_mem_space_acc_t>(
            coresight::OcsdSpaceMask(region.space)),
        bytes->data(), static_cast<uint32_t>(bytes->size()));
    if (err == OCSD_ERR_MEM_ACC_OVERLAP) {
      ++result.overlapping;
    } else if (err != OCSD_OK) {
      return absl::InternalError(absl::StrFormat(
          "OpenCSD: cannot add the memory accessor at 0x%x (error %d)",
          region.start, static_cast<int>(err)));
    } else {
      ++result.regions;
    }
  }
  HWT_ASSIGN_OR_RETURN(MappedFile mapped, capture.MapBuffer(b));
  // Frame-aligned formatted trace is decoded in whole 16-byte frames.
  const uint64_t unit =
      cs.formatted && !cs.has_fsyncs && !cs.has_hsyncs ? 16 : 1;
  auto control = [&](ocsd_datapath_op_t op, uint64_t index) {
    uint32_t unused = 0;
    ocsd_dt_process_data(tree.handle_, op, static_cast<ocsd_trc_index_t>(index),
                         0, nullptr, &unused);
  };
  bool first = true;
  uint64_t previous_end = 0;
  for (const capture::BufferChunk& chunk : capture.BufferChunks(b)) {
    if (chunk.offset + chunk.size > mapped.size()) {
      return absl::OutOfRangeError("chunk beyond the end of the buffer");
    }
    if (!first && (chunk.offset != previous_end || chunk.data_lost_before)) {
      control(OCSD_OP_EOT, previous_end);
      control(OCSD_OP_RESET, previous_end);
    }
    uint64_t pos = chunk.offset;
    const uint64_t end = chunk.offset + chunk.size;
    while (pos < end) {
      const uint32_t n =
          static_cast<uint32_t>(std::min<uint64_t>(end - pos, 1u << 30));
      uint32_t processed = 0;
      const ocsd_datapath_resp_t resp = ocsd_dt_process_data(
          tree.handle_, OCSD_OP_DATA, static_cast<ocsd_trc_index_t>(pos), n,
          mapped.data() + pos, &processed);
      pos += std::min(processed, n);
      if (OCSD_DATA_RESP_IS_FATAL(resp)) {
        ++result.fatal;
        control(OCSD_OP_RESET, pos);
        if (processed == 0) pos += std::min(unit, end - pos);
      } else if (processed == 0) {
        return absl::InternalError(
            absl::StrFormat("OpenCSD took no data at offset 0x%x (response %d)",
                            pos, static_cast<int>(resp)));
      }
    }
    previous_end = end;
    first = false;
  }
  control(OCSD_OP_EOT, previous_end);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BareOpenCsdResult> BareOpenCsd(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline) {
  if (!capture.manifest().coresight) {
    return absl::InvalidArgumentError("not a CoreSight capture");
  }
  const capture::CoreSightConfig& cs = *capture.manifest().coresight;
  std::vector<SourceDecoderConfig> configs;
  for (size_t i = 0; i < cs.sources.size(); ++i) {
    HWT_ASSIGN_OR_RETURN(SourceDecoderConfig config,
                         coresight::MakeSourceDecoderConfig(cs.sources[i], i));
    configs.push_back(std::move(config));
  }
  coresight::InitOcsdOnce();  // silences the library's default logger
  ImageFileCache files;
  BareOpenCsdResult result;
  for (size_t b = 0; b < capture.manifest().buffers.size(); ++b) {
    HWT_RETURN_IF_ERROR(
        DecodeBuffer(capture, timeline, configs, b, files, result));
  }
  return result;
}

}  // namespace hwt::bench
