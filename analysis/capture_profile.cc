// Implementation of ProfileCapture(); see capture_profile.h.
#include "analysis/capture_profile.h"

#include <algorithm>

#include "analysis/profile_builder.h"
#include "base/status_macros.h"

namespace hwt::analysis {
namespace {

// Forwards events (those `keep` keeps) to the profile builder and reports
// progress by the trace offsets the events carry (the decoder itself knows
// nothing of progress).
class ProgressSink : public EventSink {
 public:
  ProgressSink(EventSink* next, const CaptureProfileOptions& options,
               std::vector<uint64_t> stream_base, uint64_t total)
      : next_(next),
        options_(options),
        stream_base_(std::move(stream_base)),
        total_(total) {}

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    if (options_.keep) {
      kept_.clear();
      for (const Event& e : events) {
        if (options_.keep(stream, e)) kept_.push_back(e);
      }
      if (!kept_.empty()) next_->OnEvents(stream, kept_);
    } else {
      next_->OnEvents(stream, events);
    }
    if (options_.progress && !events.empty() && stream < stream_base_.size()) {
      options_.progress(
          std::min(total_, stream_base_[stream] + events.back().offset),
          total_);
    }
  }
  void OnStreamEnd(uint32_t stream) override { next_->OnStreamEnd(stream); }

 private:
  EventSink* next_;
  const CaptureProfileOptions& options_;
  std::vector<uint64_t> stream_base_;  // bytes of the buffers before it
  uint64_t total_;
  std::vector<Event> kept_;
};

}  // namespace

absl::StatusOr<CaptureProfile> ProfileCapture(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline, FunctionResolver& resolver,
    const CaptureProfileOptions& options) {
  DecoderOptions decoder_options;
  decoder_options.jobs = options.jobs;
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(capture, timeline, decoder_options));

  ProfileOptions profile_options;
  profile_options.per_context =
      capture.manifest().mode == capture::TraceMode::kCpu;
  std::vector<uint64_t> buffer_base;
  uint64_t total = 0;
  for (const capture::BufferInfo& buffer : capture.manifest().buffers) {
    buffer_base.push_back(total);
    total += buffer.size;
  }
  std::vector<uint64_t> stream_base;
  for (const StreamInfo& stream : decoder->streams()) {
    profile_options.stream_buffers.push_back(stream.buffer_index);
    stream_base.push_back(stream.buffer_index < buffer_base.size()
                              ? buffer_base[stream.buffer_index]
                              : 0);
  }
  profile_options.observer = options.observer;
  ProfileBuilder builder(timeline, resolver, profile_options);
  ProgressSink sink(&builder, options, std::move(stream_base), total);
  HWT_RETURN_IF_ERROR(decoder->Decode(sink));

  CaptureProfile result;
  result.profile = builder.Finish();
  result.streams = decoder->streams();
  result.stats = decoder->stats();
  return result;
}

}  // namespace hwt::analysis
