// Decoding for the statistics only; see stats_decode.h.
#include "decoders/stats_decode.h"

#include <algorithm>
#include <memory>

#include "decoders/progress_sink.h"

namespace hwt {
namespace {

// Segments whose events go nowhere; progress follows the committed ones.
class DiscardingSegments : public SegmentConsumer {
 public:
  DiscardingSegments(const std::vector<StreamInfo>& streams,
                     const std::vector<uint64_t>& buffer_sizes,
                     const std::function<void(uint64_t, uint64_t)>& progress)
      : progress_(progress), done_(streams.size(), 0) {
    for (const StreamInfo& stream : streams) {
      sizes_.push_back(stream.buffer_index < buffer_sizes.size()
                           ? buffer_sizes[stream.buffer_index]
                           : 0);
    }
    for (uint64_t size : buffer_sizes) total_ += size;
  }

  std::unique_ptr<EventSink> StartSegment(uint32_t) override {
    return std::make_unique<LastOffset>();
  }
  // Calls are serialised (SegmentConsumer).
  void CommitSegment(uint32_t stream,
                     std::unique_ptr<EventSink> segment) override {
    Advance(stream, static_cast<LastOffset*>(segment.get())->offset);
  }
  void EndStream(uint32_t stream) override {
    if (stream < sizes_.size()) Advance(stream, sizes_[stream]);
  }

 private:
  struct LastOffset : public EventSink {
    void OnEvents(uint32_t, absl::Span<const Event> events) override {
      if (!events.empty()) offset = std::max(offset, events.back().offset);
    }
    uint64_t offset = 0;
  };

  void Advance(uint32_t stream, uint64_t offset) {
    if (stream >= done_.size()) return;
    offset = std::min(offset, sizes_[stream]);
    if (offset <= done_[stream]) return;
    done_bytes_ += offset - done_[stream];
    done_[stream] = offset;
    if (progress_) progress_(std::min(done_bytes_, total_), total_);
  }

  const std::function<void(uint64_t, uint64_t)>& progress_;
  std::vector<uint64_t> sizes_;
  std::vector<uint64_t> done_;
  uint64_t done_bytes_ = 0;
  uint64_t total_ = 0;
};

}  // namespace

absl::Status DecodeForStats(
    TraceDecoder& decoder, int jobs, const std::vector<uint64_t>& buffer_sizes,
    const std::function<void(uint64_t done, uint64_t total)>& progress) {
  if (jobs > 1 && decoder.SplitsStreams()) {
    DiscardingSegments segments(decoder.streams(), buffer_sizes, progress);
    return decoder.DecodeSegments(segments);
  }
  NullEventSink null_sink;
  ProgressSink sink(&null_sink, decoder.streams(), buffer_sizes, progress);
  return decoder.Decode(sink);
}

}  // namespace hwt
