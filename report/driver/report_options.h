// hwt-report's flags and its option table (report/driver/option_table.h):
// one row per option, from which tools/option_cli.h builds the parser and
// --help. RunReport (report_run.h) takes the parsed flags.
#ifndef HWT_REPORT_DRIVER_REPORT_OPTIONS_H_
#define HWT_REPORT_DRIVER_REPORT_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/driver/option_table.h"
#include "report/driver/tool_input.h"

namespace hwt::report {

// The field initialisers equal the table's defaults (ApplyDefaults sets
// them again before parsing).
struct ReportFlags {
  InputFlags input;  // input.input: the first INPUT (names default files)
  // Every INPUT: captures and saved profiles (.hwtprof), merged.
  std::vector<std::string> inputs;
  std::string save;               // --save FILE.hwtprof
  std::vector<std::string> diff;  // --diff BASE NEW
  bool absolute = false;          // --diff: raw counts, not shares
  // The outputs whose option takes a file (--flame[=FILE], --pprof, ...),
  // by the name of their output (report/outputs/): given = requested; the
  // value is the file ("-" = the shared destination: -o or stdout), or
  // --callgraph's choice. The other outputs (--top N, --hot, --annotate
  // FUNC) have fields of their own below.
  std::map<std::string, std::string, std::less<>> outputs;
  bool icicle = false;
  std::string title;
  std::string count_name;
  std::string min_width = "0.1";
  size_t top = 0;
  bool hot = false;
  std::string annotate;
  std::string format = "text";
  std::string output;
  size_t rows = 20;
  double min_percent = -1;  // callgraph: default per format
  // Filters.
  std::optional<uint32_t> thread;
  std::string image;  // --only-image
  std::string function;
  std::string range;
  std::string time;
  std::string weight = "instructions";
  bool no_inline = false;
  bool no_demangle = false;
  int jobs = 0;                  // 0: all usable cores
  std::string decoder = "fast";  // --decoder
  bool fast = false;             // --fast: --decoder fast
  bool engine_stats = false;     // --stats
  size_t max_events = 5'000'000;
  bool quiet = false;
};

const OptionTable<ReportFlags>& ReportOptionTable();

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_REPORT_OPTIONS_H_
