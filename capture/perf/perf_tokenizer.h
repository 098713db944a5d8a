// The perf.data tokenizer: reads the bytes of a Linux perf.data file (the
// file form with its header, attribute and feature sections, or the pipe form
// `perf record -o -` writes, whose attributes and features are records in the
// stream) and hands every attribute, feature section and record to a visitor,
// in file order. COMPRESSED records (`perf record -z`) are decompressed (zstd)
// and the records inside them visited in place. AUXTRACE and TRACING_DATA
// records come with the payload that follows them.
//
// The tokenizer knows sizes and framing only; what records mean is the
// parser's (perf_import.h). Every error names the file and the offset. A file
// that ends early (a killed `perf record`, a truncated copy) is read up to the
// last whole record and the loss is reported in the summary's warnings; a
// record whose header is impossible (size below 8, a payload size past any
// limit) is an error: nothing after it can be framed.
#ifndef HWT_CAPTURE_PERF_PERF_TOKENIZER_H_
#define HWT_CAPTURE_PERF_PERF_TOKENIZER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hwt::capture::perf {

// Where a record was read: the file offset of its header, and for a record
// that came out of COMPRESSED records, the COMPRESSED record's offset plus the
// record's offset in the decompressed stream.
struct PerfOffset {
  uint64_t file = 0;
  std::optional<uint64_t> decompressed;
};
// "offset 0x2e8", or "offset 0x1a40 (COMPRESSED data, decompressed byte
// 0x3c8)".
std::string DescribeOffset(const PerfOffset& offset);

// struct perf_event_attr, the fields the importer uses, plus its event ids.
struct PerfAttr {
  uint64_t offset = 0;  // where it was read
  uint32_t type = 0;
  uint32_t size = 0;  // as the writer declared it
  uint64_t config = 0;
  uint64_t sample_period = 0;
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  uint64_t flags = 0;  // the bit-field word (disabled, inherit, ...)
  uint64_t config1 = 0;
  uint64_t config2 = 0;
  std::vector<uint64_t> ids;
};

struct RawRecord {
  uint32_t type = 0;
  uint16_t misc = 0;
  uint16_t size = 0;  // header.size: header plus body
  PerfOffset offset;
  absl::Span<const uint8_t> body;  // size - 8 bytes after the header
  // AUXTRACE: the AUX data; HEADER_TRACING_DATA: the tracing data. Possibly
  // shorter than declared when the file ends early (payload_truncated).
  absl::Span<const uint8_t> payload;
  uint64_t payload_declared = 0;
  bool payload_truncated = false;
};

class PerfVisitor {
 public:
  virtual ~PerfVisitor() = default;
  // File form: every attribute first; pipe form: each HEADER_ATTR record.
  virtual absl::Status OnAttr(const PerfAttr& attr) = 0;
  // File form: each feature section (after the attributes, before the
  // records); pipe form: each HEADER_FEATURE record, and each HEADER_BUILD_ID
  // record as a one-entry kFeatBuildId section.
  virtual absl::Status OnFeature(int feature, absl::Span<const uint8_t> data,
                                 uint64_t offset) = 0;
  // Every other record in order (HEADER_ATTR/HEADER_FEATURE/HEADER_BUILD_ID
  // and COMPRESSED are consumed by the tokenizer).
  virtual absl::Status OnRecord(const RawRecord& record) = 0;
};

struct TokenizeSummary {
  bool pipe = false;
  uint64_t data_offset = 0;  // where records start
  uint64_t data_end = 0;     // where they end (as read)
  uint64_t records = 0;      // visited (including those in COMPRESSED data)
  uint64_t compressed_records = 0;
  uint64_t decompressed_bytes = 0;
  // Data the file promised but does not hold (truncation), each with where.
  std::vector<std::string> warnings;
};

// Limits that keep a hostile file from exhausting memory.
inline constexpr uint64_t kMaxAttrs = 4096;
inline constexpr uint64_t kMaxIdsPerAttr = 1u << 20;
inline constexpr uint64_t kMaxDecompressedPending = uint64_t{256} << 20;

// Tokenizes `bytes` (the whole file; `where` names it in messages).
absl::StatusOr<TokenizeSummary> TokenizePerfData(
    absl::Span<const uint8_t> bytes, const std::string& where,
    PerfVisitor* visitor);

// Whether `bytes` start like a perf.data file (either form, either byte
// order, or the legacy PERFFILE magic): enough to route an input here.
bool LooksLikePerfData(absl::Span<const uint8_t> bytes);

}  // namespace hwt::capture::perf

#endif  // HWT_CAPTURE_PERF_PERF_TOKENIZER_H_
