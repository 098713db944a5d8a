// hwt-import's flags and its option table (report/driver/option_table.h),
// from which tools/option_cli.h builds the parser and --help, as for
// hwt-decode and hwt-report.
#ifndef HWT_REPORT_DRIVER_IMPORT_OPTIONS_H_
#define HWT_REPORT_DRIVER_IMPORT_OPTIONS_H_

#include <string>

#include "report/driver/option_table.h"
#include "report/driver/tool_input.h"

namespace hwt::report {

// The field initialisers equal the table's defaults.
struct ImportFlags {
  InputFlags input;
  std::string output;  // the bundle to write (required)
  bool force = false;
  bool quiet = false;
};

const OptionTable<ImportFlags>& ImportOptionTable();

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_IMPORT_OPTIONS_H_
