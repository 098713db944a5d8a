// Decoding for the statistics only (hwt-decode --stats, and the bench that
// measures it): the events go nowhere, the decoder counts as it decodes.
// With several workers on a decoder that splits streams the segments are
// decoded into nothing (DecodeSegments) rather than held for their turn in
// one sink, as Decode() with jobs > 1 would hold them.
#ifndef HWT_DECODERS_STATS_DECODE_H_
#define HWT_DECODERS_STATS_DECODE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "decoders/decoder.h"

namespace hwt {

// `jobs`: the decoder's workers (resolved: > 0). `buffer_sizes`: of the
// capture's buffers, for `progress` (done, total bytes), which is called
// now and then from one thread at a time.
absl::Status DecodeForStats(
    TraceDecoder& decoder, int jobs, const std::vector<uint64_t>& buffer_sizes,
    const std::function<void(uint64_t done, uint64_t total)>& progress);

}  // namespace hwt

#endif  // HWT_DECODERS_STATS_DECODE_H_
