// The shared profile of a sampling trace (SPE): every kSample event weighs
// one sample on the same frame tree the control-flow backends fill, so that
// every shared output, filter, diff, merge and saved profile works on it.
// A sample records no call stack, so its stack is one frame, the function
// its PC lies in; the sampled instruction is a block of one instruction
// (so that per-address outputs place it: pprof's locations, --annotate,
// inline frames), and its latency, when it has one, is its time weight.
// What only the backend records (SPE: data sources, data addresses,
// events, operation types, latency distributions) is its extension's
// (analysis/profile_extension.h), built from the same decode.
//
// Addresses are placed with the address-space timeline as the samples
// arrive (SampleAddressMap); functions come from a FunctionResolver, asked
// once per unique sampled address. Memory grows with unique addresses,
// never with the number of samples.
#ifndef HWT_ANALYSIS_SAMPLE_PROFILE_H_
#define HWT_ANALYSIS_SAMPLE_PROFILE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "analysis/function_resolver.h"
#include "analysis/profile.h"
#include "analysis/profile_builder.h"
#include "analysis/sample_address_map.h"
#include "capture/address_space.h"
#include "decoders/event.h"

namespace hwt::analysis {

struct SampleProfileOptions {
  // Stream id -> buffer index (manifest().buffers), for the address lookups.
  // Empty: stream i is buffer i.
  std::vector<size_t> stream_buffers;
  // Sees every sample as a one-instruction block on its one-frame stack, and
  // every gap (the call timelines of speedscope and the Chrome trace).
  ProfileObserver* observer = nullptr;
};

class SampleProfileBuilder : public EventSink {
 public:
  // `timeline` (with changes for `buffer_count` buffers) and `resolver` must
  // outlive the builder.
  SampleProfileBuilder(const capture::AddressSpaceTimeline& timeline,
                       size_t buffer_count, FunctionResolver& resolver,
                       SampleProfileOptions options = {});
  ~SampleProfileBuilder() override;

  // kSample events are samples, kGap events gaps; other kinds are counted
  // as events and otherwise ignored.
  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;

  // The canonical profile (Profile::counts is kSamples). Call once.
  Profile Finish();

 private:
  class Stacks;
  struct Node {
    uint64_t self = 0;  // samples
    uint64_t time = 0;  // latency
    uint64_t gaps = 0;
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> blocks;  // count, time
  };
  using Tree = std::map<FrameKey, Node>;  // the frames under the root
  struct Sampled {
    uint32_t block = 0;
    FrameKey frame;
  };

  void AddSample(uint32_t stream, const Event& sample);
  void AddGap(uint32_t stream, const Event& gap);
  const Sampled& Place(uint32_t stream, const Event& sample);
  CallTree Finished(const Tree& tree,
                    const std::vector<uint32_t>& block_order) const;

  const capture::AddressSpaceTimeline& timeline_;
  FunctionResolver& resolver_;
  SampleProfileOptions options_;
  SampleAddressMap addresses_;
  std::unique_ptr<Stacks> stacks_;
  // By (image, vaddr); kNoImage: by the raw address.
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, Sampled> sampled_;
  std::vector<BlockStats> blocks_;    // in order of first sample
  std::map<uint32_t, Tree> threads_;  // by stream
  Tree merged_;
  ProfileStats stats_;
  bool has_time_ = false;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_SAMPLE_PROFILE_H_
