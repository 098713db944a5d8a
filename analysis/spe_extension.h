// SPE's extension of the shared profile (analysis/profile_extension.h): the
// SPE aggregations (analysis/spe_profile.h: samples per function and
// instruction with their latency distributions, events, operation types and
// data sources; data-address hot spots) built from each sample's full
// record, which SPE's decoder delivers beside its kSample events
// (decoders/spe/sample_sink.h), in the same decode that fills the shared
// profile; and SPE's own decode statistics. The reports that only SPE has
// (report/spe/) read it; every other output reads the shared profile.
#ifndef HWT_ANALYSIS_SPE_EXTENSION_H_
#define HWT_ANALYSIS_SPE_EXTENSION_H_

#include <memory>
#include <string_view>

#include "analysis/profile_extension.h"
#include "analysis/spe_profile.h"

namespace hwt::analysis {

class SpeExtension : public ProfileExtension {
 public:
  // Null when the context's decoder is not SPE's.
  static std::unique_ptr<ProfileExtension> Create(
      const ExtensionContext& context);

  std::string_view name() const override { return "spe"; }
  EventSink& Wrap(EventSink& shared) override;
  absl::Status Finish() override;

  // After Finish().
  const SpeCaptureProfile& result() const { return result_; }

 private:
  class RecordTee;
  SpeExtension(const ExtensionContext& context, const spe::CaptureStats& stats);

  const spe::CaptureStats& stats_;  // the decoder's, complete after decoding
  std::function<bool(uint32_t, const Event&)> keep_;
  std::unique_ptr<SampleAddressMap> addresses_;
  std::unique_ptr<SpeProfileBuilder> builder_;
  std::unique_ptr<RecordTee> tee_;
  SpeCaptureProfile result_;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SPE_EXTENSION_H_
