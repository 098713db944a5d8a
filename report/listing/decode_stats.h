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

}  // namespace hwt::report

#endif  // HWT_REPORT_LISTING_DECODE_STATS_H_
