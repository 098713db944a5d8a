// hwt-decode's run: from the parsed flags (decode_options.h) to the listing
// or statistics written and the exit status.
#ifndef HWT_REPORT_DRIVER_DECODE_RUN_H_
#define HWT_REPORT_DRIVER_DECODE_RUN_H_

#include "report/driver/decode_options.h"

namespace hwt::report {

// Runs hwt-decode; errors and warnings go to stderr (warnings not with
// --quiet). Returns the exit code (tool_input.h).
int RunDecode(const DecodeFlags& flags);

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_DECODE_RUN_H_
