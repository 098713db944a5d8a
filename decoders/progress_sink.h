// An EventSink in front of another that reports decoding progress from the
// trace offsets events carry (decoders know nothing of progress lines).
// Offsets are per buffer; `buffer_base[buffer]` is the number of trace bytes
// in the buffers before it, so done = base + offset.
#ifndef HWT_DECODERS_PROGRESS_SINK_H_
#define HWT_DECODERS_PROGRESS_SINK_H_

#include <algorithm>
#include <functional>
#include <vector>

#include "decoders/decoder.h"
#include "decoders/event.h"

namespace hwt {

class ProgressSink : public EventSink {
 public:
  using Callback = std::function<void(uint64_t done, uint64_t total)>;

  ProgressSink(EventSink* next, const std::vector<StreamInfo>& streams,
               const std::vector<uint64_t>& buffer_sizes, Callback callback)
      : next_(next), callback_(std::move(callback)) {
    std::vector<uint64_t> base;
    for (uint64_t size : buffer_sizes) {
      base.push_back(total_);
      total_ += size;
    }
    for (const StreamInfo& stream : streams) {
      stream_base_.push_back(
          stream.buffer_index < base.size() ? base[stream.buffer_index] : 0);
    }
  }

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    next_->OnEvents(stream, events);
    if (callback_ && !events.empty() && stream < stream_base_.size()) {
      callback_(std::min(total_, stream_base_[stream] + events.back().offset),
                total_);
    }
  }
  void OnStreamEnd(uint32_t stream) override { next_->OnStreamEnd(stream); }

  uint64_t total() const { return total_; }

 private:
  EventSink* next_;
  Callback callback_;
  std::vector<uint64_t> stream_base_;
  uint64_t total_ = 0;
};

// Discards events (decoding for statistics only).
class NullEventSink : public EventSink {
 public:
  void OnEvents(uint32_t, absl::Span<const Event>) override {}
};

}  // namespace hwt

#endif  // HWT_DECODERS_PROGRESS_SINK_H_
