// The parts of the HTML report's model that every kind of report shares:
// who and what was traced (the capture's identity from its manifest), and
// the model written as text.
#ifndef HWT_REPORT_HTML_CAPTURE_MODEL_H_
#define HWT_REPORT_HTML_CAPTURE_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/saved/saved_profile.h"
#include "capture/capture.h"
#include "nlohmann/json.hpp"

namespace hwt::report::html {

// The model's format; the page's scripts check it.
inline constexpr int kModelVersion = 1;

// Input path, backend, mode, CPU, command, pid, host, OS, creation time,
// recorder, buffers (size, wrap and loss flags) and images of a capture.
nlohmann::json CaptureJson(const capture::Capture& capture);

// The same for a capture known from a saved profile: no buffers (the
// profile keeps decode streams, not buffer files); the images are the
// profile's.
nlohmann::json CaptureJson(const analysis::CaptureSource& source,
                           const std::vector<analysis::SavedImage>& images);

// One capture of a saved profile or a batch, for the report's table of
// captures: its identity, how it went and, when there is one, the path of
// its own report relative to this one.
struct CaptureRow {
  std::string name, path, backend, command, hostname, created;
  std::string status;  // "ok", "decode-errors", "failed" (docs/batch.md)
  std::string error;   // why it failed
  uint64_t trace_bytes = 0, bytes_lost = 0, instructions = 0, errors = 0;
  std::string report;  // relative link; "" = none
};
// A saved capture's row: "ok", or "decode-errors" when its decode failed
// (DecodeFailed, as batch rows say).
CaptureRow RowOfSource(const analysis::CaptureSource& source);
nlohmann::json CapturesJson(const std::vector<CaptureRow>& rows);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_CAPTURE_MODEL_H_
