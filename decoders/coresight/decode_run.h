// One OpenCSD decode tree driven over one buffer: creates the tree and a
// decoder per trace source, feeds the buffer's chunks (replaying the
// address-space changes as it goes, resetting at discontinuities, flushing
// on WAIT), and turns generic elements into events (or packets into lister
// lines) for the streams of those sources.
#ifndef HWT_DECODERS_CORESIGHT_DECODE_RUN_H_
#define HWT_DECODERS_CORESIGHT_DECODE_RUN_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/coresight/memory_view.h"
#include "decoders/coresight/ocsd_config.h"
#include "decoders/decoder.h"

namespace hwt::coresight {

struct PlannedSource {
  SourceDecoderConfig config;
  uint32_t stream = 0;  // index into the decoder's streams
};

// What the decoder decided for one buffer when it was created.
struct BufferPlan {
  size_t buffer_index = 0;
  bool formatted = true;
  uint32_t deformatter_flags = 0;  // OCSD_DFRMTR_*, formatted only
  uint32_t alignment = 1;          // bytes per process_data unit
  // The chunks to feed, each cut to a whole number of alignment units.
  std::vector<capture::BufferChunk> chunks;
  std::vector<PlannedSource> sources;
};

struct RunContext {
  const capture::Capture* capture = nullptr;
  const capture::AddressSpaceTimeline* timeline = nullptr;
  // The image files, mapped once and shared by every tree.
  std::shared_ptr<ImageFileCache> files;
  // Indexed by stream; a stream belongs to exactly one run, so runs on
  // different threads never touch the same entry.
  std::vector<StreamStats>* stats = nullptr;
  std::mutex* sink_mutex = nullptr;  // serialises calls into the sinks
  size_t batch_events = 4096;
};

enum class RunMode { kDecode, kPackets };

// Runs the sources `source_indices` (into plan.sources) of `plan` through
// one tree. Events go to `events` (kDecode) or lines to `packets`
// (kPackets). Per-stream stats are accumulated into ctx.stats, except
// bytes_lost, which the caller derives at the end.
absl::Status RunDecodeTree(const RunContext& ctx, const BufferPlan& plan,
                           absl::Span<const size_t> source_indices,
                           RunMode mode, EventSink* events,
                           PacketSink* packets);

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_DECODE_RUN_H_
