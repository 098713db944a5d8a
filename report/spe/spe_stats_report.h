// SPE decode statistics (hwt-decode --stats) as text and JSON: bytes decoded
// and skipped (with the skipped runs' offsets), packets by type, complete and
// partial records (by reason), chunks, operations, events and data sources,
// in total and per buffer.
#ifndef HWT_REPORT_SPE_SPE_STATS_REPORT_H_
#define HWT_REPORT_SPE_SPE_STATS_REPORT_H_

#include <string>

#include "decoders/spe/stats.h"
#include "nlohmann/json.hpp"

namespace hwt::report {

std::string FormatSpeStatsText(const spe::CaptureStats& stats);
nlohmann::json SpeStatsJson(const spe::SpeStats& stats,
                            const spe::CpuModel& cpu);
nlohmann::json SpeCaptureStatsJson(const spe::CaptureStats& stats);
// Pretty-printed SpeCaptureStatsJson plus a newline.
std::string FormatSpeStatsJson(const spe::CaptureStats& stats);

}  // namespace hwt::report

#endif  // HWT_REPORT_SPE_SPE_STATS_REPORT_H_
