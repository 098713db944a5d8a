// Decode statistics of SPE trace, per buffer and in total: every input byte is
// either in a decoded packet or skipped (bytes == bytes_decoded +
// bytes_skipped), every record is complete or partial, and complete records
// are counted per operation category, event bit and data source.
#ifndef HWT_DECODERS_SPE_STATS_H_
#define HWT_DECODERS_SPE_STATS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "decoders/spe/midr.h"
#include "decoders/spe/op_type.h"
#include "decoders/spe/packet.h"
#include "decoders/spe/record.h"

namespace hwt::spe {

enum class SkipReason : uint8_t {
  kInvalidHeader,    // no packet starts with this byte
  kTruncatedPacket,  // a packet header whose packet runs past the chunk end
};
std::string_view SkipReasonName(SkipReason reason);

// A run of skipped bytes (consecutive undecodable bytes are one range; the
// reason is that of its first byte).
struct SkippedRange {
  uint64_t offset = 0;  // in the buffer's raw file
  uint64_t length = 0;
  SkipReason reason = SkipReason::kInvalidHeader;
};

struct SpeStats {
  static constexpr size_t kMaxListedSkips = 1000;

  uint64_t bytes = 0;          // input bytes (all chunks)
  uint64_t bytes_decoded = 0;  // bytes inside decoded packets
  uint64_t bytes_skipped = 0;  // bytes skipped while resynchronising
  uint64_t packets = 0;
  std::array<uint64_t, kNumPacketTypes> packets_by_type{};
  // Address packets with index >= 5, counters >= 3, contexts >= 2, operation
  // class 3: decoded, kept raw, counted here.
  uint64_t unknown_index_packets = 0;
  uint64_t records = 0;  // complete records
  uint64_t partial_records = 0;
  std::array<uint64_t, kNumPartialReasons> partial_by_reason{};
  // Complete records only.
  std::array<uint64_t, kNumOpCategories> op_categories{};
  std::array<uint64_t, 64> events{};
  std::map<uint64_t, uint64_t> data_sources;  // raw value -> records
  uint64_t records_without_data_source = 0;
  uint64_t chunks = 0;
  uint64_t chunks_partial_record = 0;    // flagged "partial record"
  uint64_t chunks_data_lost_before = 0;  // flagged "data lost before"
  uint64_t chunks_final = 0;
  uint64_t skipped_ranges = 0;            // number of ranges (all of them)
  std::vector<SkippedRange> skipped;      // the first kMaxListedSkips
  uint64_t last_skip_end = ~uint64_t{0};  // internal: merges adjacent runs

  // Records a skipped run, merging it with the previous one when adjacent.
  void AddSkipped(uint64_t offset, uint64_t length, SkipReason reason);
  void Merge(const SpeStats& other);
  uint64_t op_group(std::string_view group) const;  // "load", "store", ...
};

// Statistics of a whole capture.
struct CaptureStats {
  CpuModel cpu;
  SpeStats total;
  std::vector<SpeStats> buffers;          // per manifest buffer
  std::vector<std::string> buffer_names;  // "buffer 0 (cpu 0)"
};

}  // namespace hwt::spe

#endif  // HWT_DECODERS_SPE_STATS_H_
