// ProfileBuilder: one streaming pass over decoded events (an EventSink) that
// rebuilds every thread's call stack by docs/call-stacks.md and aggregates
// the profile: call trees, unique blocks with exact counts, block
// successions, intra-procedural paths, timing. Work is per block event (a
// few hash lookups, no per-instruction work); memory grows with unique
// blocks, stacks and paths, never with trace length.
//
// Parallel decoding: a builder with `segment = true` takes the events of a
// stretch of trace that starts in the middle of a stream (a PSB segment). It
// does not know the stack the stream had there, so it records what it does
// to that unknown stack; ProfileMerger applies the segments in order and
// yields exactly the profile a sequential builder gives.
//
// A builder is not thread-safe: each decoding worker has its own. The
// FunctionResolver is called from the builder's thread, once per image
// (HasFunctions) and once per unique address of an image with functions per
// builder; share one between workers only if it is thread-safe.
#ifndef HWT_ANALYSIS_PROFILE_BUILDER_H_
#define HWT_ANALYSIS_PROFILE_BUILDER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "analysis/function_resolver.h"
#include "analysis/profile.h"
#include "capture/address_space.h"
#include "decoders/event.h"

namespace hwt::analysis {

// The stacks a ProfileObserver is told about: stack ids name root-first
// paths of frames, valid for the builder's lifetime.
class StackTable {
 public:
  static constexpr uint32_t kNoStack = 0xffffffffu;
  virtual ~StackTable() = default;
  // The stack without its top frame; kNoStack for a root frame's stack.
  virtual uint32_t Parent(uint32_t stack) const = 0;
  // The top frame of the stack.
  virtual FrameKey TopFrame(uint32_t stack) const = 0;
};

// Sees every block with the stack its instructions are attributed to, and
// every gap, in the order the builder applies them: what a call/return
// timeline needs (report/'s speedscope evented profiles). Sequential
// builders only (not with `segment`).
class ProfileObserver {
 public:
  virtual ~ProfileObserver() = default;
  virtual void OnBlock(const StackTable& stacks, uint32_t stream,
                       uint64_t context, uint32_t stack,
                       const Event& block) = 0;
  // A gap ended `stack` (kNoStack when the thread had no stack).
  virtual void OnGap(const StackTable& stacks, uint32_t stream,
                     uint64_t context, uint32_t stack, const Event& gap) = 0;
  // Tracing stopped (a system call, an interrupt, a filter): the profile
  // attributes no time until the next block.
  virtual void OnDisabled(uint32_t stream, uint64_t context,
                          const Event& disabled) {
    (void)stream;
    (void)context;
    (void)disabled;
  }
};

struct ProfileOptions {
  // CPU-mode traces: one stack per (stream, context), switched by kPaging
  // (CR3) and kContext (context ID) events. Thread mode: one per stream.
  bool per_context = false;
  // Stream id -> buffer index (manifest().buffers), for address lookups of
  // events without a region. Empty: stream i is buffer i.
  std::vector<size_t> stream_buffers;
  // The events start in the middle of their streams (see above).
  bool segment = false;
  // Optional; must outlive the builder. Ignored when `segment` is set.
  ProfileObserver* observer = nullptr;
  // Count the hot paths (Profile::paths: block sequences within a frame up
  // to a back edge). Off, `paths` stays empty and the rest of the profile is
  // the same; on, every block costs a lookup of (path so far, block), which
  // is the largest single cost of a folded-stacks run.
  bool hot_paths = true;
};

namespace internal {
struct SegmentData;
}

// The partial result of a segment builder, for ProfileMerger.
class ProfileSegment {
 public:
  ProfileSegment();
  explicit ProfileSegment(std::unique_ptr<internal::SegmentData> data);
  ProfileSegment(ProfileSegment&&) noexcept;
  ProfileSegment& operator=(ProfileSegment&&) noexcept;
  ~ProfileSegment();

  internal::SegmentData& data() { return *data_; }

 private:
  std::unique_ptr<internal::SegmentData> data_;
};

class ProfileBuilder : public EventSink {
 public:
  ProfileBuilder(const capture::AddressSpaceTimeline& timeline,
                 FunctionResolver& resolver, ProfileOptions options = {});
  ~ProfileBuilder() override;

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override;
  void OnStreamEnd(uint32_t stream) override {}

  // The profile of everything seen (options.segment must be false). Call
  // once; the builder is spent afterwards.
  Profile Finish();
  // The segment's partial result (options.segment must be true).
  ProfileSegment FinishSegment();

  // FunctionAt calls made so far (one per unique address of an image whose
  // resolver may know functions there).
  uint64_t resolver_calls() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Folds segments, in trace order per stream, into one profile.
class ProfileMerger {
 public:
  ProfileMerger();
  ~ProfileMerger();
  ProfileMerger(const ProfileMerger&) = delete;
  ProfileMerger& operator=(const ProfileMerger&) = delete;

  // Segments of one stream must come in trace order; segments of different
  // streams are independent.
  void Append(ProfileSegment segment);
  Profile Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hwt::analysis

#endif  // HWT_ANALYSIS_PROFILE_BUILDER_H_
