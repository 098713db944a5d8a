// Walks a CoreSight formatted trace buffer (16-byte frames of the trace
// formatter, memory aligned as ETB/ETF/ETR store them, or with FSYNC/HSYNC
// as a TPIU delivers them) and counts the payload bytes of every trace ID,
// unpacking frames exactly as OpenCSD's deformatter does. The decoder uses
// it to know, before decoding, which trace IDs a buffer holds (its streams),
// how many bytes each carries (per-stream trace_bytes), and which IDs have
// no configured trace source.
#ifndef HWT_DECODERS_CORESIGHT_FRAME_SCANNER_H_
#define HWT_DECODERS_CORESIGHT_FRAME_SCANNER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace hwt::coresight {

struct FrameScanResult {
  struct IdBytes {
    uint64_t bytes = 0;
    uint64_t first_offset = 0;  // raw-file offset of the first payload byte
  };
  std::map<uint8_t, IdBytes> ids;  // valid trace IDs 0x01..0x6f
  uint64_t null_id_bytes = 0;      // ID 0x00: padding
  uint64_t reserved_id_bytes = 0;  // IDs 0x70..0x7f
  uint64_t unknown_id_bytes = 0;   // data before the first ID of a frame run
  uint64_t frame_bytes = 0;        // ID, flag and sync bytes
  uint64_t unsynced_bytes = 0;     // before the first FSYNC (TPIU)
  struct Error {
    uint64_t offset = 0;
    uint64_t bytes = 0;  // bytes that cannot be unpacked
    std::string message;
  };
  std::vector<Error> errors;
};

class FrameScanner {
 public:
  // `deformatter_flags`: OCSD_DFRMTR_* as given to ocsd_create_dcd_tree.
  explicit FrameScanner(uint32_t deformatter_flags);

  // Bytes per ocsd_dt_process_data block the deformatter accepts: 16 for
  // memory-aligned frames, 4 with FSYNCs, 2 with HSYNCs.
  uint32_t alignment() const { return alignment_; }

  // Forgets the frame state (a discontinuity: OCSD_OP_RESET).
  void Reset();
  // Scans `data`, which starts at raw-file `offset` and continues the data
  // scanned before (unless Reset()). Only whole alignment() units are
  // scanned; the caller reports a trailing remainder.
  void Scan(absl::Span<const uint8_t> data, uint64_t offset,
            FrameScanResult* out);

 private:
  void UnpackFrame(uint64_t frame_offset, FrameScanResult* out);
  void AddData(uint8_t id, uint64_t offset, uint64_t n, FrameScanResult* out);

  uint32_t flags_;
  uint32_t alignment_;
  bool synced_ = false;
  uint8_t current_id_ = 0xff;  // OCSD_BAD_CS_SRC_ID: no ID seen yet
  uint8_t frame_[16] = {};
  int frame_fill_ = 0;
  uint64_t frame_offset_ = 0;
};

}  // namespace hwt::coresight

#endif  // HWT_DECODERS_CORESIGHT_FRAME_SCANNER_H_
