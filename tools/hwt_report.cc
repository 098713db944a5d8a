// hwt-report: profiles of a capture or of saved profiles (flame graph,
// folded stacks, speedscope, call graphs, top functions, hot
// blocks/branches/paths/loops, annotated disassembly, the HTML report, the
// exports, --save and --diff), with thread, image, function, trace-position
// and time filters; of SPE captures the same from their samples and the SPE
// sample report. A thin front end: the options are report/driver's table,
// the run is report::RunReport.
#include <unistd.h>

#include "report/driver/report_options.h"
#include "report/driver/report_run.h"
#include "tools/option_cli.h"

int main(int argc, char** argv) {
  hwt::report::ReportFlags flags;
  hwt::tools::OptionCli cli(hwt::report::ReportOptionTable(), &flags);
  int exit_code = 0;
  if (!cli.Parse(argc, argv, &exit_code)) return exit_code;
  hwt::report::ReportEnvironment env;
  env.stdout_is_terminal = isatty(STDOUT_FILENO) != 0;
  return hwt::report::RunReport(flags, env);
}
