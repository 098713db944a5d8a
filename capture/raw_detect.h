// Detects which trace a bare raw file holds (hwt(8) writes raw buffers with no
// header) from its bytes alone:
//   - Intel PT: a PSB packet (02 82 repeated 8 times) early in the file;
//   - CoreSight formatted (ETR/ETF/ETB): 16-byte frames whose ID bytes name a
//     few valid trace IDs; TPIU: frame syncs (ff ff ff 7f);
//   - CoreSight unformatted (TRBE, single source): an ETMv4/ETE alignment sync
//     (eleven 00 then 80), or a PTM/ETMv3 one (five 00 then 80) at the start;
//   - ARM SPE: a run of valid SPE packets forming records ended by END or
//     TIMESTAMP, with (almost) no invalid headers.
// Only strong evidence counts: random bytes are never claimed.
#ifndef HWT_CAPTURE_RAW_DETECT_H_
#define HWT_CAPTURE_RAW_DETECT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "capture/manifest.h"

namespace hwt::capture {

struct RawDetection {
  Backend backend = Backend::kUnknown;
  std::string reason;  // what was recognised and where, for messages
  // CoreSight only.
  bool coresight_formatted = false;
  bool coresight_fsyncs = false;
  std::vector<uint32_t> coresight_trace_ids;  // IDs seen in formatted frames
};

// One detector's verdict: a detection, or why the bytes are not that trace.
struct DetectorResult {
  std::optional<RawDetection> detection;
  std::string rejection;
};

// How far each detector looks.
inline constexpr size_t kPsbSearchLimit = size_t{16} << 20;
inline constexpr size_t kFrameCheckLimit = size_t{64} << 10;
inline constexpr size_t kSpeCheckLimit = size_t{256} << 10;

DetectorResult DetectPt(absl::Span<const uint8_t> bytes);
DetectorResult DetectCoreSightFormatted(absl::Span<const uint8_t> bytes);
DetectorResult DetectCoreSightFrameSyncs(absl::Span<const uint8_t> bytes);
DetectorResult DetectCoreSightUnformatted(absl::Span<const uint8_t> bytes);
DetectorResult DetectSpe(absl::Span<const uint8_t> bytes);
// The CoreSight detectors in DetectRawBackend's order (a sync at the start,
// formatted frames, frame syncs, a sync anywhere early): how a file known to
// hold CoreSight trace is laid out.
DetectorResult DetectCoreSight(absl::Span<const uint8_t> bytes);

// Runs the detectors (PT first: a PSB is conclusive) and returns the first
// that recognises the bytes. FailedPrecondition when none does: the message
// names `where`, says what was tried and asks for --backend.
absl::StatusOr<RawDetection> DetectRawBackend(absl::Span<const uint8_t> bytes,
                                              std::string_view where);

}  // namespace hwt::capture

#endif  // HWT_CAPTURE_RAW_DETECT_H_
