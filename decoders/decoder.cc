// Shared parts of the decoder interface: statistics bookkeeping.
#include "decoders/decoder.h"

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

}  // namespace hwt
