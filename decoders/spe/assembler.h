// Assembles SPE packets into records (see record.h): a record ends at END or
// TIMESTAMP; a record interrupted by skipped bytes, by the end of its chunk,
// or by a packet kind it already had is flushed as partial. Records go to the
// caller's RecordOutput in batches; statistics are kept as they pass.
#ifndef HWT_DECODERS_SPE_ASSEMBLER_H_
#define HWT_DECODERS_SPE_ASSEMBLER_H_

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "decoders/spe/address.h"
#include "decoders/spe/packet.h"
#include "decoders/spe/record.h"
#include "decoders/spe/stats.h"

namespace hwt::spe {

// Receives batches of assembled records.
class RecordOutput {
 public:
  virtual ~RecordOutput() = default;
  virtual void OnRecords(absl::Span<const Record> records) = 0;
};

class RecordAssembler {
 public:
  // `output` may be null (statistics only). Partial records are delivered
  // only when `deliver_partial`.
  RecordAssembler(SpeStats* stats, RecordOutput* output, bool deliver_partial,
                  size_t batch_size = 1024);
  ~RecordAssembler();

  // Scanner visitor interface (see scanner.h).
  inline void OnPacket(const Packet& packet);
  void OnSkipped(uint64_t offset, uint64_t length, SkipReason reason);

  // The chunk ended: a record in progress is partial.
  void EndChunk();
  // Delivers the pending batch and folds the local counters into the stats.
  void Flush();

 private:
  inline void Begin(const Packet& packet, uint32_t field);
  // OnPacket() for the packet types with an index saying which field.
  inline void OnAddressPacket(const Packet& packet);
  inline void OnCounterPacket(const Packet& packet);
  inline void OnUnknownIndex(const Packet& packet, uint32_t& seen);
  inline void Emit(PartialReason reason);
  void FlushBatch();
  void FlushPartial(PartialReason reason);

  SpeStats* stats_;
  RecordOutput* output_;
  bool deliver_partial_;
  size_t batch_size_;
  std::vector<Record> batch_;
  Record record_;
  bool in_record_ = false;
  uint64_t last_end_ = 0;  // end offset of the last packet of the record
  std::array<uint64_t, 16> small_data_sources_{};
};

inline void RecordAssembler::Begin(const Packet& packet, uint32_t field) {
  if (in_record_) {
    if ((record_.fields & field) == 0) {
      record_.fields |= field;
      last_end_ = packet.offset + packet.size;
      return;
    }
    // The record already had this packet: its END was lost.
    FlushPartial(PartialReason::kRepeatedPacket);
  }
  record_ = Record();
  record_.offset = packet.offset;
  record_.fields = field;
  in_record_ = true;
  last_end_ = packet.offset + packet.size;
}

inline void RecordAssembler::OnPacket(const Packet& packet) {
  ++stats_->packets;
  ++stats_->packets_by_type[static_cast<size_t>(packet.type)];
  stats_->bytes_decoded += packet.size;
  switch (packet.type) {
    case PacketType::kPad:
    case PacketType::kAlignment:
      return;
    case PacketType::kEnd:
      if (in_record_) {
        last_end_ = packet.offset + packet.size;
        Emit(PartialReason::kNone);
      }
      return;
    case PacketType::kTimestamp:
      Begin(packet, kFieldTimestamp);
      record_.timestamp = packet.payload;
      Emit(PartialReason::kNone);
      return;
    case PacketType::kEvents:
      Begin(packet, kFieldEvents);
      record_.events = packet.payload;
      return;
    case PacketType::kDataSource:
      Begin(packet, kFieldDataSource);
      record_.data_source = packet.payload;
      record_.data_source_size = packet.payload_size;
      return;
    case PacketType::kContext:
      if (packet.index == 0) {
        Begin(packet, kFieldContextEl1);
        record_.context_el1 = static_cast<uint32_t>(packet.payload);
      } else if (packet.index == 1) {
        Begin(packet, kFieldContextEl2);
        record_.context_el2 = static_cast<uint32_t>(packet.payload);
      } else {
        ++stats_->unknown_index_packets;
        Begin(packet, 0);
      }
      return;
    case PacketType::kOpType:
      if (packet.index == 3) ++stats_->unknown_index_packets;
      Begin(packet, kFieldOpType);
      record_.op_class = packet.index;
      record_.op_payload = static_cast<uint8_t>(packet.payload);
      return;
    case PacketType::kAddress:
      OnAddressPacket(packet);
      return;
    case PacketType::kCounter:
      OnCounterPacket(packet);
      return;
  }
}

inline void RecordAssembler::OnAddressPacket(const Packet& packet) {
  switch (packet.index) {
    case kAddressPc: {
      Begin(packet, kFieldPc);
      DecodedAddress a = DecodeInstructionAddress(packet.payload);
      record_.pc = a.address;
      record_.pc_el = a.el;
      record_.pc_ns = a.ns;
      return;
    }
    case kAddressBranchTarget: {
      Begin(packet, kFieldBranchTarget);
      DecodedAddress a = DecodeInstructionAddress(packet.payload);
      record_.branch_target = a.address;
      record_.target_el = a.el;
      record_.target_ns = a.ns;
      return;
    }
    case kAddressDataVirtual: {
      Begin(packet, kFieldDataVirtual);
      DecodedAddress a = DecodeDataVirtualAddress(packet.payload);
      record_.data_va = a.address;
      record_.va_tag = a.tag;
      return;
    }
    case kAddressDataPhysical: {
      Begin(packet, kFieldDataPhysical);
      DecodedAddress a = DecodeDataPhysicalAddress(packet.payload);
      record_.data_pa = a.address;
      record_.pa_ns = a.ns;
      record_.pa_ch = a.ch;
      record_.pa_pat = a.pat;
      return;
    }
    case kAddressPrevBranchTarget: {
      Begin(packet, kFieldPrevBranchTarget);
      DecodedAddress a = DecodeInstructionAddress(packet.payload);
      record_.prev_branch_target = a.address;
      record_.prev_target_el = a.el;
      record_.prev_target_ns = a.ns;
      return;
    }
    default:
      OnUnknownIndex(packet, record_.other_addresses);
      return;
  }
}

// An address or counter index without a field of its own: only which ones
// the record had is kept, as bits of `seen`; a repeat starts a new record.
inline void RecordAssembler::OnUnknownIndex(const Packet& packet,
                                            uint32_t& seen) {
  ++stats_->unknown_index_packets;
  const uint32_t bit = uint32_t{1} << (packet.index & 31);
  if (in_record_ && (seen & bit)) {
    FlushPartial(PartialReason::kRepeatedPacket);
  }
  Begin(packet, 0);
  seen |= bit;
}

inline void RecordAssembler::OnCounterPacket(const Packet& packet) {
  uint16_t value = static_cast<uint16_t>(packet.payload);
  switch (packet.index) {
    case kCounterTotalLatency:
      Begin(packet, kFieldTotalLatency);
      record_.total_latency = value;
      return;
    case kCounterIssueLatency:
      Begin(packet, kFieldIssueLatency);
      record_.issue_latency = value;
      return;
    case kCounterTranslationLatency:
      Begin(packet, kFieldTranslationLatency);
      record_.translation_latency = value;
      return;
    default:
      OnUnknownIndex(packet, record_.other_counters);
      return;
  }
}

inline void RecordAssembler::Emit(PartialReason reason) {
  record_.end_offset = last_end_;
  if (reason == PartialReason::kNone && !(record_.fields & kFieldPc)) {
    reason = PartialReason::kNoPc;
  }
  record_.partial = reason;
  in_record_ = false;
  if (reason == PartialReason::kNone) {
    ++stats_->records;
    ++stats_->op_categories[static_cast<size_t>(record_.op_category())];
    for (uint64_t bits = record_.events; bits != 0; bits &= bits - 1) {
      ++stats_->events[std::countr_zero(bits)];
    }
    if (record_.fields & kFieldDataSource) {
      if (record_.data_source < small_data_sources_.size()) {
        ++small_data_sources_[record_.data_source];
      } else {
        ++stats_->data_sources[record_.data_source];
      }
    } else {
      ++stats_->records_without_data_source;
    }
  } else {
    ++stats_->partial_records;
    ++stats_->partial_by_reason[static_cast<size_t>(reason)];
    if (!deliver_partial_) return;
  }
  if (output_ == nullptr) return;
  batch_.push_back(record_);
  if (batch_.size() >= batch_size_) FlushBatch();
}

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_ASSEMBLER_H_
