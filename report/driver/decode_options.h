// hwt-decode's flags and its option table (report/driver/option_table.h),
// from which tools/option_cli.h builds the parser and --help. RunDecode
// (decode_run.h) takes the parsed flags.
#ifndef HWT_REPORT_DRIVER_DECODE_OPTIONS_H_
#define HWT_REPORT_DRIVER_DECODE_OPTIONS_H_

#include <string>

#include "report/driver/option_table.h"
#include "report/driver/tool_input.h"

namespace hwt::report {

// The field initialisers equal the table's defaults.
struct DecodeFlags {
  InputFlags input;
  // What to list: stats, packets, insn, blocks, branches, calls, records
  // (one of the exclusive "modes" rows).
  std::string mode = "stats";
  std::string format = "text";
  std::string output = "-";
  int jobs = 0;  // 0 = all cores
  int stream = -1;
  bool no_symbols = false;
  bool quiet = false;
  bool fast = false;
  std::string decoder = "fast";  // --stats' PT engine
};

const OptionTable<DecodeFlags>& DecodeOptionTable();

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_DECODE_OPTIONS_H_
