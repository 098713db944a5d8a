// From a capture to its profile in one call: create the decoder for the
// capture's backend, stream its events into a ProfileBuilder (control flow)
// or a SampleProfileBuilder (samples) and into the backend's profile
// extension, and return the profile with the decoder's per-stream
// statistics. The pipeline (pipeline/capture_pipeline.h) runs it for
// hwt-report and hwt-batch.
//
// With options.jobs > 1 the decoder cuts the trace into segments decoded on
// worker threads (TraceDecoder::DecodeSegments); every segment gets its own
// ProfileBuilder (segment mode: stacks relative to the unknown stack it
// starts from) and the segments are merged in trace order (ProfileMerger),
// which gives exactly the profile of jobs = 1. The FunctionResolver is then
// called from several threads: ProfileCapture serialises the calls and asks
// it once per unique address.
#ifndef HWT_ANALYSIS_CAPTURE_PROFILE_H_
#define HWT_ANALYSIS_CAPTURE_PROFILE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/function_resolver.h"
#include "analysis/profile.h"
#include "analysis/profile_builder.h"
#include "analysis/profile_extension.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"

namespace hwt::analysis {

struct CaptureProfileOptions {
  int jobs = 1;              // worker threads; 0 = one per core
  size_t segment_bytes = 0;  // per parallel segment; 0 = automatic
  // Called now and then with (trace bytes done, total trace bytes).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Events for which this returns false are dropped before profiling (the
  // report filters by stream, trace position and time). Called from the
  // decoding threads: it must be thread-safe (a pure function of its
  // arguments).
  std::function<bool(uint32_t stream, const Event& event)> keep;
  // Sees every block and gap with its stack (see ProfileObserver). Needs
  // one builder that sees the events in order: with an observer the profile
  // is built sequentially whatever `jobs` says.
  ProfileObserver* observer = nullptr;
  // ProfileOptions::hot_paths: off when the output shows no hot paths.
  bool hot_paths = true;
  // The image files, mapped once: pass the cache block expansion reads
  // through (ImageCodeReader) so both map each file once; null: the decoder
  // maps its own.
  std::shared_ptr<ImageFileCache> files;
  // Which engine follows PT flow: the fast path (default; libipt per
  // segment where it gives up) or libipt throughout. Every output is the
  // same either way (tests/pt/differential_test.cc).
  DecoderEngine engine = DecoderEngine::kFast;
  // Called once the decoder is chosen, before anything is decoded, with
  // whether its events are samples (TraceDecoder::ProducesSamples): an error
  // ends the run there (an output that needs exact counts refuses a
  // sampling trace before it is decoded).
  std::function<absl::Status(bool samples)> before_decode;
};

struct CaptureProfile {
  Profile profile;
  // What only the capture's backend has, from the same decode
  // (profile_extension.h); null when no extension took its decoder.
  std::shared_ptr<const ProfileExtension> extension;
  std::vector<StreamInfo> streams;
  std::vector<StreamStats> stats;  // per stream, as the decoder counted
  std::string engine_note;  // how the decoder's engine went (may be empty)
};

// Decodes the whole capture and profiles it: control flow into call trees
// and blocks (ProfileBuilder), samples into the same frame tree weighted by
// samples (SampleProfileBuilder), and alongside into the extension of the
// decoder's backend when one is registered. `resolver` gives function
// boundaries (the symbolizer). Decode errors are in the stats and as [gap]
// frames in the profile, not a failed status.
absl::StatusOr<CaptureProfile> ProfileCapture(
    const capture::Capture& capture,
    const capture::AddressSpaceTimeline& timeline, FunctionResolver& resolver,
    const CaptureProfileOptions& options = {});

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_CAPTURE_PROFILE_H_
