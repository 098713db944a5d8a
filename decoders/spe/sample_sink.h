// How an SPE sample becomes a shared event (decoders/event.h kSample), and
// the sink through which SPE-aware consumers get each sample's full record
// with its event, in the same call: no second decode for the latencies, data
// sources and operation types that only SPE records have.
#ifndef HWT_DECODERS_SPE_SAMPLE_SINK_H_
#define HWT_DECODERS_SPE_SAMPLE_SINK_H_

#include <cstdint>

#include "absl/types/span.h"
#include "decoders/event.h"
#include "decoders/spe/record.h"

namespace hwt::spe {

// The kSample event of a complete record that is records[index] of its
// batch (see EventKind::kSample).
inline Event SampleEvent(const Record& record, uint32_t index) {
  Event event;
  event.kind = EventKind::kSample;
  event.isa = Isa::kA64;
  event.ip = record.pc;
  event.offset = record.offset;
  event.time = record.has(kFieldTimestamp) ? record.timestamp : 0;
  event.value = record.has(kFieldTotalLatency) ? record.total_latency : 0;
  event.code = index;
  return event;
}

// Pass one to an SPE decoder's TraceDecoder::Decode (trace_decoder.h): the
// decoder sees that the sink is one and calls OnSamples, where the record of
// each kSample event e is records[e.code]. Gap events (skipped bytes) come in
// the same batches and have no record. Partial records are no samples: they
// are counted in the SPE statistics, not delivered.
class SampleRecordSink : public EventSink {
 public:
  virtual void OnSamples(uint32_t stream, absl::Span<const Event> events,
                         absl::Span<const Record> records) = 0;

  // Events that came without their records (through a sink in between that
  // knows nothing of them): `records` is empty.
  void OnEvents(uint32_t stream, absl::Span<const Event> events) final {
    OnSamples(stream, events, {});
  }
};

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_SAMPLE_SINK_H_
