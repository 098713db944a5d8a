// The parts of the HTML report's model that every kind of report shares:
// who and what was traced (the capture's identity from its manifest), and
// the model written as text.
#ifndef HWT_REPORT_HTML_CAPTURE_MODEL_H_
#define HWT_REPORT_HTML_CAPTURE_MODEL_H_

#include <string>

#include "capture/capture.h"
#include "nlohmann/json.hpp"

namespace hwt::report::html {

// The model's format; the page's scripts check it.
inline constexpr int kModelVersion = 1;

// Input path, backend, mode, CPU, command, pid, host, OS, creation time,
// recorder, buffers (size, wrap and loss flags) and images of a capture.
nlohmann::json CaptureJson(const capture::Capture& capture);

// Compact JSON text of a model; bytes that are not UTF-8 become U+FFFD
// rather than an error (names come from the input).
std::string ModelText(const nlohmann::json& model);

}  // namespace hwt::report::html

#endif  // HWT_REPORT_HTML_CAPTURE_MODEL_H_
