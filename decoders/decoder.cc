// Shared parts of the decoder interface: statistics bookkeeping.
#include "decoders/decoder.h"

#include <map>

namespace hwt {

void StreamStats::AddError(DecodeErrorInfo error) {
  ++errors;
  if (error.reason == GapReason::kOverflow) ++overflows;
  if (error_list.size() < kMaxListedErrors) {
    error_list.push_back(std::move(error));
  }
}

void StreamStats::Merge(const StreamStats& other) {
  trace_bytes += other.trace_bytes;
  bytes_decoded += other.bytes_decoded;
  bytes_lost += other.bytes_lost;
  packets += other.packets;
  instructions += other.instructions;
  blocks += other.blocks;
  errors += other.errors;
  overflows += other.overflows;
  for (const auto& e : other.error_list) {
    if (error_list.size() >= kMaxListedErrors) break;
    error_list.push_back(e);
  }
}

StreamStats TotalStats(const std::vector<StreamStats>& stats) {
  StreamStats total;
  for (const StreamStats& s : stats) total.Merge(s);
  return total;
}

namespace {

// One segment per stream, committed when the stream ends.
class WholeStreamSegments : public EventSink {
 public:
  explicit WholeStreamSegments(SegmentConsumer& consumer)
      : consumer_(consumer) {}

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    auto it = segments_.find(stream);
    if (it == segments_.end()) {
      it = segments_.emplace(stream, consumer_.StartSegment(stream)).first;
    }
    it->second->OnEvents(stream, events);
  }
  void OnStreamEnd(uint32_t stream) override {
    auto it = segments_.find(stream);
    std::unique_ptr<EventSink> segment = it != segments_.end()
                                             ? std::move(it->second)
                                             : consumer_.StartSegment(stream);
    if (it != segments_.end()) segments_.erase(it);
    consumer_.CommitSegment(stream, std::move(segment));
    consumer_.EndStream(stream);
  }

 private:
  SegmentConsumer& consumer_;
  std::map<uint32_t, std::unique_ptr<EventSink>> segments_;
};

}  // namespace

absl::Status TraceDecoder::CountInstructions(std::string* note) {
  return absl::UnimplementedError(
      "fast instruction counting (--fast) is for Intel PT traces only");
}

absl::Status TraceDecoder::DecodeSegments(SegmentConsumer& consumer) {
  WholeStreamSegments sink(consumer);
  return Decode(sink);
}

}  // namespace hwt
