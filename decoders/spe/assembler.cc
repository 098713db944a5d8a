// Out-of-line parts of the record assembler; see assembler.h.
#include "decoders/spe/assembler.h"

namespace hwt::spe {

RecordAssembler::RecordAssembler(SpeStats* stats, RecordOutput* output,
                                 bool deliver_partial, size_t batch_size)
    : stats_(stats),
      output_(output),
      deliver_partial_(deliver_partial),
      batch_size_(batch_size == 0 ? 1 : batch_size) {
  if (output_ != nullptr) batch_.reserve(batch_size_);
}

RecordAssembler::~RecordAssembler() = default;

void RecordAssembler::OnSkipped(uint64_t offset, uint64_t length,
                                SkipReason reason) {
  stats_->AddSkipped(offset, length, reason);
  if (in_record_) {
    FlushPartial(reason == SkipReason::kTruncatedPacket
                     ? PartialReason::kCutAtEnd
                     : PartialReason::kInvalidBytes);
  }
}

void RecordAssembler::FlushPartial(PartialReason reason) { Emit(reason); }

void RecordAssembler::EndChunk() {
  if (in_record_) FlushPartial(PartialReason::kCutAtEnd);
}

void RecordAssembler::FlushBatch() {
  if (output_ != nullptr && !batch_.empty()) {
    output_->OnRecords(absl::MakeConstSpan(batch_));
  }
  batch_.clear();
}

void RecordAssembler::Flush() {
  FlushBatch();
  for (size_t value = 0; value < small_data_sources_.size(); ++value) {
    if (small_data_sources_[value] != 0) {
      stats_->data_sources[value] += small_data_sources_[value];
      small_data_sources_[value] = 0;
    }
  }
}

}  // namespace hwt::spe
