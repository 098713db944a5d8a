// hwt-report's run: from the parsed flags (report_options.h) to the
// outputs written and the exit status. The capture, saved-profile and
// --diff paths and the SPE reports are report_run.cc, report_saved.cc and
// report_spe.cc; the profile outputs are report_render.cc.
#ifndef HWT_REPORT_DRIVER_REPORT_RUN_H_
#define HWT_REPORT_DRIVER_REPORT_RUN_H_

#include "report/driver/report_options.h"

namespace hwt::report {

struct ReportEnvironment {
  // SVG, HTML and JSON then go to NAME.SUFFIX files, not to the terminal.
  bool stdout_is_terminal = false;
};

// Runs hwt-report; errors, warnings and notes go to stderr (notes and
// warnings not with --quiet). Returns the exit code (tool_input.h).
int RunReport(const ReportFlags& flags, const ReportEnvironment& env);

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_REPORT_RUN_H_
