// Implementation of ProfileCapture(); see capture_profile.h.
#include "analysis/capture_profile.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/profile_builder.h"
#include "analysis/profile_extension.h"
#include "analysis/sample_profile.h"
#include "base/status_macros.h"
#include "base/threads.h"
#include "decoders/progress_sink.h"

namespace hwt::analysis {
namespace {

// Forwards the events `keep` keeps (all of them without `keep`).
class KeepFilterSink : public EventSink {
 public:
  using KeepFn = std::function<bool(uint32_t stream, const Event& event)>;

  KeepFilterSink(EventSink* next, const KeepFn& keep)
      : next_(next), keep_(keep) {}

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    if (!keep_) {
      next_->OnEvents(stream, events);
      return;
    }
    kept_.clear();
    for (const Event& e : events) {
      if (keep_(stream, e)) kept_.push_back(e);
    }
    if (!kept_.empty()) next_->OnEvents(stream, kept_);
  }
  void OnStreamEnd(uint32_t stream) override { next_->OnStreamEnd(stream); }

 private:
  EventSink* next_;
  const KeepFn& keep_;
  std::vector<Event> kept_;
};

// A FunctionResolver shared by the segment builders: one call into the real
// resolver per unique address, serialised.
class SharedResolver : public FunctionResolver {
 public:
  explicit SharedResolver(FunctionResolver& resolver) : resolver_(resolver) {}
  std::optional<FunctionRange> FunctionAt(uint32_t image,
                                          uint64_t vaddr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = cache_.try_emplace({image, vaddr});
    if (inserted) it->second = resolver_.FunctionAt(image, vaddr);
    return it->second;
  }
  bool HasFunctions(uint32_t image) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return resolver_.HasFunctions(image);
  }

 private:
  FunctionResolver& resolver_;
  std::mutex mutex_;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>,
                      std::optional<FunctionRange>>
      cache_;
};

// One ProfileBuilder per segment, merged in commit (= trace) order.
class SegmentProfiles : public SegmentConsumer {
 public:
  SegmentProfiles(const capture::AddressSpaceTimeline& timeline,
                  FunctionResolver& resolver, ProfileOptions options,
                  const CaptureProfileOptions& capture_options,
                  std::vector<uint64_t> stream_base, uint64_t total)
      : timeline_(timeline),
        resolver_(resolver),
        options_(std::move(options)),
        capture_options_(capture_options),
        stream_base_(std::move(stream_base)),
        total_(total) {
    options_.segment = true;
  }

  std::unique_ptr<EventSink> StartSegment(uint32_t stream) override {
    return std::make_unique<Segment>(timeline_, resolver_, options_,
                                     capture_options_);
  }
  void CommitSegment(uint32_t stream,
                     std::unique_ptr<EventSink> segment) override {
    auto* builder = static_cast<Segment*>(segment.get());
    merger_.Append(builder->FinishSegment());
    if (capture_options_.progress && builder->last_offset != 0 &&
        stream < stream_base_.size()) {
      capture_options_.progress(
          std::min(total_, stream_base_[stream] + builder->last_offset),
          total_);
    }
  }

  Profile Finish() { return merger_.Finish(); }

 private:
  // A segment's builder behind the keep filter, remembering how far its
  // events went (progress).
  class Segment : public EventSink {
   public:
    Segment(const capture::AddressSpaceTimeline& timeline,
            FunctionResolver& resolver, const ProfileOptions& options,
            const CaptureProfileOptions& capture_options)
        : builder_(timeline, resolver, options),
          filter_(&builder_, capture_options.keep) {}
    void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
      if (!events.empty()) last_offset = events.back().offset;
      filter_.OnEvents(stream, events);
    }
    void OnStreamEnd(uint32_t stream) override { filter_.OnStreamEnd(stream); }
    ProfileSegment FinishSegment() { return builder_.FinishSegment(); }
    uint64_t last_offset = 0;

   private:
    ProfileBuilder builder_;
    KeepFilterSink filter_;
  };

  const capture::AddressSpaceTimeline& timeline_;
  FunctionResolver& resolver_;
  ProfileOptions options_;
  const CaptureProfileOptions& capture_options_;
  std::vector<uint64_t> stream_base_;
  uint64_t total_;
  ProfileMerger merger_;
};

// A decode with one segment in all (one stream the decoder does not split):
// segment profiles would only add their merge and a shared resolver.
bool OneSegment(const TraceDecoder& decoder) {
  return !decoder.SplitsStreams() && decoder.streams().size() <= 1;
}

// One sequential decode into `builder`: the events the keep filter keeps,
// with progress, and through the extension when there is one.
absl::Status DecodeInto(TraceDecoder& decoder, EventSink& builder,
                        ProfileExtension* extension,
                        const CaptureProfileOptions& options,
                        const std::vector<uint64_t>& buffer_sizes) {
  KeepFilterSink filter(&builder, options.keep);
  ProgressSink progress(&filter, decoder.streams(), buffer_sizes,
                        options.progress);
  return decoder.Decode(extension != nullptr ? extension->Wrap(progress)
                                             : progress);
}

}  // namespace

absl::StatusOr<CaptureProfile> ProfileCapture(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline, FunctionResolver& resolver,
    const CaptureProfileOptions& options) {
  DecoderOptions decoder_options;
  decoder_options.jobs = ResolveJobs(options.jobs);
  decoder_options.segment_bytes = options.segment_bytes;
  decoder_options.files = options.files;
  decoder_options.engine = options.engine;
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(capture, timeline, decoder_options));

  ProfileOptions profile_options;
  profile_options.per_context =
      capture.manifest().mode == capture::TraceMode::kCpu;
  profile_options.hot_paths = options.hot_paths;
  std::vector<uint64_t> buffer_sizes;
  std::vector<uint64_t> buffer_base;
  uint64_t total = 0;
  for (const capture::BufferInfo& buffer : capture.manifest().buffers) {
    buffer_sizes.push_back(buffer.size);
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
  if (options.before_decode) {
    HWT_RETURN_IF_ERROR(options.before_decode(decoder->ProducesSamples()));
  }
  // The backend's own aggregations, fed by the same decode.
  std::unique_ptr<ProfileExtension> extension = CreateProfileExtension(
      {capture, timeline, *decoder, &resolver, options.keep});
  CaptureProfile result;
  if (decoder->ProducesSamples()) {
    SampleProfileOptions sample_options;
    sample_options.stream_buffers = profile_options.stream_buffers;
    sample_options.observer = options.observer;
    SampleProfileBuilder builder(timeline, buffer_sizes.size(), resolver,
                                 std::move(sample_options));
    HWT_RETURN_IF_ERROR(
        DecodeInto(*decoder, builder, extension.get(), options, buffer_sizes));
    result.profile = builder.Finish();
  } else if (decoder_options.jobs > 1 && options.observer == nullptr &&
             extension == nullptr && !OneSegment(*decoder)) {
    SharedResolver shared(resolver);
    SegmentProfiles segments(timeline, shared, profile_options, options,
                             std::move(stream_base), total);
    HWT_RETURN_IF_ERROR(decoder->DecodeSegments(segments));
    result.profile = segments.Finish();
  } else {
    // An observer sees the stacks in trace order, and an extension the
    // events: one sequential builder.
    profile_options.observer = options.observer;
    ProfileBuilder builder(timeline, resolver, profile_options);
    HWT_RETURN_IF_ERROR(
        DecodeInto(*decoder, builder, extension.get(), options, buffer_sizes));
    result.profile = builder.Finish();
  }
  if (extension != nullptr) {
    HWT_RETURN_IF_ERROR(extension->Finish());
    result.extension = std::move(extension);
  }
  result.streams = decoder->streams();
  result.stats = decoder->stats();
  result.engine_note = decoder->EngineNote();
  return result;
}

}  // namespace hwt::analysis
