// Parallel PT decoding: every buffer chunk is cut at PSBs into segments of
// about `segment_bytes` (pt_seam.h PlanSegments), workers decode the
// segments, each run going on past its end until it meets the next
// segment's head (pt_seam.h), and the results are committed per stream in
// trace order to a SegmentConsumer, which therefore sees exactly the events
// of a sequential decode. A segment whose predecessor did not stop at its
// start (no seam found) is dropped. Memory stays bounded: a worker does not
// start a segment more than `window` segments ahead of the oldest one not
// yet committed, so at most `window` segments' outputs exist at a time.
#ifndef HWT_DECODERS_PT_PT_PARALLEL_H_
#define HWT_DECODERS_PT_PT_PARALLEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "capture/manifest.h"
#include "decoders/decoder.h"
#include "decoders/pt/pt_decoder.h"

namespace hwt::pt {

struct PtBufferInput {
  const uint8_t* data = nullptr;  // the mapped buffer file
  std::vector<capture::BufferChunk> chunks;
};

struct PtParallelOptions {
  int jobs = 2;
  size_t segment_bytes = 1 << 20;
  size_t window = 8;  // segments in flight at most
  size_t batch_size = 4096;
};

// Decodes buffers[i] as stream i into `consumer`; stats[i] gets the
// stream's statistics.
PtParallelStats DecodeInParallel(const PtRunContext& run,
                                 const std::vector<PtBufferInput>& buffers,
                                 const PtParallelOptions& options,
                                 SegmentConsumer& consumer,
                                 std::vector<StreamStats>* stats);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_PARALLEL_H_
