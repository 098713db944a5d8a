// SpeStats bookkeeping; see stats.h.
#include "decoders/spe/stats.h"

namespace hwt::spe {

std::string_view SkipReasonName(SkipReason reason) {
  switch (reason) {
    case SkipReason::kInvalidHeader:
      return "invalid header";
    case SkipReason::kTruncatedPacket:
      return "truncated packet";
  }
  return "?";
}

std::string_view PartialReasonName(PartialReason reason) {
  switch (reason) {
    case PartialReason::kNone:
      return "complete";
    case PartialReason::kCutAtEnd:
      return "cut at end of data";
    case PartialReason::kInvalidBytes:
      return "interrupted by invalid bytes";
    case PartialReason::kRepeatedPacket:
      return "end lost (repeated packet)";
    case PartialReason::kNoPc:
      return "start lost (no PC)";
  }
  return "?";
}

void SpeStats::AddSkipped(uint64_t offset, uint64_t length, SkipReason reason) {
  if (length == 0) return;
  bytes_skipped += length;
  bool adjacent = offset == last_skip_end;
  last_skip_end = offset + length;
  if (adjacent) {
    if (skipped_ranges == skipped.size()) skipped.back().length += length;
    return;
  }
  ++skipped_ranges;
  if (skipped.size() < kMaxListedSkips) {
    skipped.push_back({offset, length, reason});
  }
}

void SpeStats::Merge(const SpeStats& other) {
  bytes += other.bytes;
  bytes_decoded += other.bytes_decoded;
  bytes_skipped += other.bytes_skipped;
  packets += other.packets;
  for (size_t i = 0; i < packets_by_type.size(); ++i) {
    packets_by_type[i] += other.packets_by_type[i];
  }
  unknown_index_packets += other.unknown_index_packets;
  records += other.records;
  partial_records += other.partial_records;
  for (size_t i = 0; i < partial_by_reason.size(); ++i) {
    partial_by_reason[i] += other.partial_by_reason[i];
  }
  for (size_t i = 0; i < op_categories.size(); ++i) {
    op_categories[i] += other.op_categories[i];
  }
  for (size_t i = 0; i < events.size(); ++i) events[i] += other.events[i];
  for (const auto& [value, count] : other.data_sources) {
    data_sources[value] += count;
  }
  records_without_data_source += other.records_without_data_source;
  chunks += other.chunks;
  chunks_partial_record += other.chunks_partial_record;
  chunks_data_lost_before += other.chunks_data_lost_before;
  chunks_final += other.chunks_final;
  skipped_ranges += other.skipped_ranges;
  for (const SkippedRange& range : other.skipped) {
    if (skipped.size() >= kMaxListedSkips) break;
    skipped.push_back(range);
  }
}

uint64_t SpeStats::op_group(std::string_view group) const {
  uint64_t total = 0;
  for (int i = 0; i < kNumOpCategories; ++i) {
    if (OpCategoryGroup(static_cast<OpCategory>(i)) == group) {
      total += op_categories[i];
    }
  }
  return total;
}

}  // namespace hwt::spe
