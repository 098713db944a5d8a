// What a backend adds to the shared profile from the same decode: the
// aggregations of what only its events carry (SPE's, analysis/
// spe_extension.h: latency distributions, data sources, data addresses,
// events, operation types). A backend's analysis registers a factory
// (RegisterProfileExtension, from a static initializer in a library that is
// linked whole: see analysis/CMakeLists.txt); ProfileCapture offers each
// capture's decoder to the factories and feeds the extension of the one
// that takes it beside the shared profile. Generic code never names a
// backend: a report that shows an extension asks the profile for it by type.
#ifndef HWT_ANALYSIS_PROFILE_EXTENSION_H_
#define HWT_ANALYSIS_PROFILE_EXTENSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "analysis/function_resolver.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "decoders/event.h"

namespace hwt::analysis {

class ProfileExtension {
 public:
  virtual ~ProfileExtension() = default;
  // Its short name, for messages: "spe".
  virtual std::string_view name() const = 0;
  // The sink the decoder writes to (called once, before the decode): it
  // sees every event, with whatever its backend delivers alongside, and
  // passes them all on to `shared`, the shared profile's sink.
  virtual EventSink& Wrap(EventSink& shared) = 0;
  // After the decode: the aggregations are complete.
  virtual absl::Status Finish() = 0;
};

struct ExtensionContext {
  const capture::Capture& capture;
  const capture::AddressSpaceTimeline& timeline;
  const TraceDecoder& decoder;
  FunctionResolver* resolver = nullptr;  // may be null
  // The report's event filter (empty: every event): the extension counts
  // what the shared profile counts.
  std::function<bool(uint32_t stream, const Event& event)> keep;
};

// A factory returns null for a decoder it does not extend.
using ProfileExtensionFactory =
    std::unique_ptr<ProfileExtension> (*)(const ExtensionContext& context);

// Returns true, so that a registration can initialise a static constant.
bool RegisterProfileExtension(ProfileExtensionFactory factory);

// The extension of the first registered factory that takes the context's
// decoder; null when none does.
std::unique_ptr<ProfileExtension> CreateProfileExtension(
    const ExtensionContext& context);

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_PROFILE_EXTENSION_H_
