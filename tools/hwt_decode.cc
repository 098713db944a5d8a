// hwt-decode: decodes a capture and lists what it holds: packets,
// instructions, blocks, branches, the call trace, SPE records, or statistics.
// A thin front end: the options are report/driver's table, the run is
// report::RunDecode.
#include "report/driver/decode_options.h"
#include "report/driver/decode_run.h"
#include "tools/option_cli.h"

int main(int argc, char** argv) {
  hwt::report::DecodeFlags flags;
  hwt::tools::OptionCli cli(hwt::report::DecodeOptionTable(), &flags);
  int exit_code = 0;
  if (!cli.Parse(argc, argv, &exit_code)) return exit_code;
  return hwt::report::RunDecode(flags);
}
