// hwt-decode --stats: the decoder's per-stream statistics as a text summary or
// as JSON (per stream, per buffer and in total; errors with their offsets),
// the format scripts read: `hwt-decode --stats --format json CAPTURE`.
#ifndef HWT_REPORT_LISTING_DECODE_STATS_H_
#define HWT_REPORT_LISTING_DECODE_STATS_H_

#include <string>
#include <vector>

#include "capture/capture.h"
#include "decoders/decoder.h"

namespace hwt::report {

struct DecodeSummary {
  const capture::Capture* capture = nullptr;
  std::vector<StreamInfo> streams;
  std::vector<StreamStats> stats;  // per stream
  std::vector<std::string> warnings;
  // False for a fast count (hwt-decode --fast): blocks are not counted.
  bool blocks_counted = true;
  std::vector<std::string> notes;  // printed as "note: ..."
};

std::string FormatDecodeStatsText(const DecodeSummary& summary);
// "3 decode errors, 120 bytes lost: see hwt-decode --stats" for the total
// over all streams (TotalStats); empty when there were none. The tools'
// one-line summary of decode problems.
std::string DecodeErrorMessage(const StreamStats& total);
std::string FormatDecodeStatsJson(const DecodeSummary& summary);

// Whether a decode failed, for exit statuses and batch rows: it had decode
// errors, or a stream had trace of which no byte could be decoded (no sync
// point at all: every byte lost). Bytes skipped before a stream's first
// sync point are not a failure when the stream decoded afterwards.
bool DecodeFailed(const std::vector<StreamStats>& streams);
// What failed, in one line ("" when nothing did): DecodeErrorMessage, or
// "stream 0: none of its 4,096 trace bytes could be decoded (no sync
// point)".
std::string DecodeFailureMessage(const std::vector<StreamStats>& streams);

}  // namespace hwt::report

#endif  // HWT_REPORT_LISTING_DECODE_STATS_H_
