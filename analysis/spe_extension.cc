// SPE's extension of the shared profile; see spe_extension.h. Registered
// with the profile extensions when the library is linked (whole, see
// analysis/CMakeLists.txt).
#include "analysis/spe_extension.h"

#include <utility>

#include "decoders/spe/sample_sink.h"
#include "decoders/spe/trace_decoder.h"

namespace hwt::analysis {

// The sink SPE's decoder writes to: each kept sample's record into the SPE
// aggregations, every event on to the shared profile.
class SpeExtension::RecordTee : public spe::SampleRecordSink {
 public:
  RecordTee(SpeExtension& extension, EventSink& shared)
      : extension_(extension), shared_(shared) {}

  void OnSamples(uint32_t stream, absl::Span<const Event> events,
                 absl::Span<const spe::Record> records) override {
    for (const Event& event : events) {
      if (event.kind != EventKind::kSample) continue;
      if (extension_.keep_ && !extension_.keep_(stream, event)) continue;
      if (event.code >= records.size()) {
        missing_records_ = true;
        continue;
      }
      extension_.builder_->Add(stream, records[event.code]);
    }
    shared_.OnEvents(stream, events);
  }
  void OnStreamEnd(uint32_t stream) override { shared_.OnStreamEnd(stream); }

  bool missing_records() const { return missing_records_; }

 private:
  SpeExtension& extension_;
  EventSink& shared_;
  bool missing_records_ = false;
};

std::unique_ptr<ProfileExtension> SpeExtension::Create(
    const ExtensionContext& context) {
  const spe::CaptureStats* stats = spe::SpeCaptureStatsOf(context.decoder);
  if (stats == nullptr) return nullptr;
  return std::unique_ptr<ProfileExtension>(new SpeExtension(context, *stats));
}

SpeExtension::SpeExtension(const ExtensionContext& context,
                           const spe::CaptureStats& stats)
    : stats_(stats), keep_(context.keep) {
  // Streams are the capture's buffers, as the address map counts them.
  addresses_ = std::make_unique<SampleAddressMap>(
      &context.timeline, context.capture.manifest().buffers.size(),
      SampleAddressMap::LoadImageSegments(context.timeline));
  builder_ = std::make_unique<SpeProfileBuilder>(addresses_.get(),
                                                 context.resolver, stats.cpu);
}

EventSink& SpeExtension::Wrap(EventSink& shared) {
  tee_ = std::make_unique<RecordTee>(*this, shared);
  return *tee_;
}

absl::Status SpeExtension::Finish() {
  if (tee_ != nullptr && tee_->missing_records()) {
    return absl::InternalError("SPE samples came without their records");
  }
  result_.profile = builder_->Finish();
  // Partial records are no samples: the decoder counts them, and so does
  // the profile.
  result_.profile.partial_records = stats_.total.partial_records;
  result_.stats = stats_;
  return absl::OkStatus();
}

namespace {

[[maybe_unused]] const bool kSpeExtensionRegistered =
    RegisterProfileExtension(&SpeExtension::Create);

}  // namespace

}  // namespace hwt::analysis
