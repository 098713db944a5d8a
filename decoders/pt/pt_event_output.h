// Delivers one PT stream's events to an EventSink in batches and decides
// the outcome of blocks that end in a conditional branch: such a block is
// held back until an event says where execution went (the next block's ip,
// a disable's ip or `at`, an interrupt's from, an asynchronous paging
// event's ip): equal to the block's next_ip -> kCondNotTaken, equal to the
// branch target -> kCondTaken; when a gap or a restart (kSync) comes first,
// or the stream ends, the outcome is unknown: kNone.
#ifndef HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_
#define HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "decoders/event.h"

namespace hwt::pt {

class EventOutput {
 public:
  // `sink_mutex` (may be null) serialises calls into `sink`.
  EventOutput(EventSink* sink, std::mutex* sink_mutex, uint32_t stream,
              size_t batch_size);

  void Add(const Event& event) {
    if (pending_ == kNone && events_.size() + 1 < batch_size_) {
      events_.push_back(event);  // the common case
      return;
    }
    AddSlow(event);
  }
  // A block whose last instruction is a conditional branch to `target`
  // (0 = unknown).
  void AddCondBlock(const Event& block, uint64_t target);
  // Delivers everything and calls OnStreamEnd().
  void Finish();

 private:
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();

  void AddSlow(const Event& event);
  static std::optional<uint64_t> LocationOf(const Event& event);
  void Resolve(std::optional<uint64_t> location);
  void MaybeFlush();
  void Flush(size_t count);

  EventSink* sink_;
  std::mutex* sink_mutex_;
  uint32_t stream_;
  size_t batch_size_;
  std::vector<Event> events_;
  size_t pending_ = kNone;  // index of the undecided block in events_
  uint64_t pending_target_ = 0;
};

}  // namespace hwt::pt

#endif  // HWT_DECODERS_PT_PT_EVENT_OUTPUT_H_
