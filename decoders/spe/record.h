// One SPE record: the packets of one sampled operation, from the first packet
// after the previous record up to its END or TIMESTAMP packet, with every
// payload decoded. Plain value type (no heap), delivered in batches.
#ifndef HWT_DECODERS_SPE_RECORD_H_
#define HWT_DECODERS_SPE_RECORD_H_

#include <cstdint>
#include <string_view>

#include "decoders/spe/op_type.h"

namespace hwt::spe {

// Why a record is incomplete. Partial records are counted and delivered
// (flagged) but never silently glued to their neighbours.
enum class PartialReason : uint8_t {
  kNone,
  kCutAtEnd,        // the chunk/buffer ended (or a packet was truncated)
                    // before the record's END/TIMESTAMP
  kInvalidBytes,    // undecodable bytes interrupted the record
  kRepeatedPacket,  // a packet kind it already had started a new record: the
                    // END was lost (records cut at a half-buffer boundary in
                    // a file without framing)
  kNoPc,            // it ended without a PC address: its start was lost
};
inline constexpr int kNumPartialReasons = 5;
std::string_view PartialReasonName(PartialReason reason);

// Bits of Record::fields: which packets the record had.
enum RecordField : uint32_t {
  kFieldPc = 1u << 0,
  kFieldBranchTarget = 1u << 1,
  kFieldDataVirtual = 1u << 2,
  kFieldDataPhysical = 1u << 3,
  kFieldPrevBranchTarget = 1u << 4,
  kFieldTotalLatency = 1u << 5,
  kFieldIssueLatency = 1u << 6,
  kFieldTranslationLatency = 1u << 7,
  kFieldEvents = 1u << 8,
  kFieldOpType = 1u << 9,
  kFieldDataSource = 1u << 10,
  kFieldContextEl1 = 1u << 11,
  kFieldContextEl2 = 1u << 12,
  kFieldTimestamp = 1u << 13,
};

struct Record {
  uint64_t offset = 0;      // first byte of its first packet (buffer file)
  uint64_t end_offset = 0;  // one past its last packet
  // Instruction addresses: sign-extended from bit 55 (see address.h).
  uint64_t pc = 0;
  uint64_t branch_target = 0;
  uint64_t prev_branch_target = 0;
  uint64_t data_va = 0;      // top byte rebuilt as Linux does; tag in va_tag
  uint64_t data_pa = 0;      // bits [55:0]
  uint64_t events = 0;       // event packet bits
  uint64_t data_source = 0;  // raw implementation-defined value
  uint64_t timestamp = 0;
  uint32_t fields = 0;           // RecordField bits
  uint32_t context_el1 = 0;      // CONTEXTIDR_EL1
  uint32_t context_el2 = 0;      // CONTEXTIDR_EL2
  uint32_t other_addresses = 0;  // bit i: an address packet of index i >= 5
  uint32_t other_counters = 0;   // bit i: a counter packet of index i >= 3
  uint16_t total_latency = 0;    // cycles
  uint16_t issue_latency = 0;
  uint16_t translation_latency = 0;
  uint8_t pc_el = 0;
  uint8_t target_el = 0;
  uint8_t prev_target_el = 0;
  uint8_t va_tag = 0;
  uint8_t pa_pat = 0;
  uint8_t op_class = 0;          // OpClass value (valid with kFieldOpType)
  uint8_t op_payload = 0;        // operation subclass byte
  uint8_t data_source_size = 0;  // payload bytes of the data source packet
  bool pc_ns = false;
  bool target_ns = false;
  bool prev_target_ns = false;
  bool pa_ns = false;
  bool pa_ch = false;
  PartialReason partial = PartialReason::kNone;

  bool has(uint32_t field) const { return (fields & field) != 0; }
  bool complete() const { return partial == PartialReason::kNone; }
  bool has_event(int bit) const { return (events >> bit) & 1; }
  OpCategory op_category() const {
    return has(kFieldOpType) ? CategorizeOp(op_class, op_payload)
                             : OpCategory::kNone;
  }
};

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_RECORD_H_
