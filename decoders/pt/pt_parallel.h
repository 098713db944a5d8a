// Parallel PT decoding: every buffer chunk is cut at PSBs into segments of
// about `segment_bytes` (pt_seam.h PlanSegments), workers decode the
// segments, each run going on past its end until it meets the next
// segment's head (pt_seam.h), and the results are committed per stream in
// trace order to a SegmentConsumer, which therefore sees exactly the events
// of a sequential decode. A segment whose predecessor did not stop at its
// start (no seam found) is dropped. Memory stays bounded: a worker does not
// start a segment more than `window` segments ahead of the oldest one not
// yet committed, so at most `window` segments' outputs exist at a time.
//
// With `fast`, the segments are decoded by the fast path's counter in event
// mode (pt_fast_count.h: the block-cache walker, libipt where it gives up),
// which a sequential decode on the fast path would be: each worker keeps one
// counter per buffer, and its block cache, across the segments it takes.
#ifndef HWT_DECODERS_PT_PT_PARALLEL_H_
#define HWT_DECODERS_PT_PT_PARALLEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "capture/manifest.h"
#include "decoders/decoder.h"
#include "decoders/pt/pt_decoder.h"
#include "decoders/pt/pt_fast_count.h"

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
  bool fast = false;  // the fast path's counter decodes the segments
};

// Decodes buffers[i] as stream i into `consumer`; stats[i] gets the
// stream's statistics, `fast_stats` (with options.fast, if not null) how
// the fast path went: its segment counts include the stretches a run went
// on past its end to find the seam.
PtParallelStats DecodeInParallel(const PtRunContext& run,
                                 const std::vector<PtBufferInput>& buffers,
                                 const PtParallelOptions& options,
                                 SegmentConsumer& consumer,
                                 std::vector<StreamStats>* stats,
                                 PtFastCountStats* fast_stats = nullptr);

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_PARALLEL_H_
