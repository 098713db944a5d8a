// hwt-emulate's command line as data: its flags, its option table
// (report/driver/option_table.h; the parser, --help and option_cli_test's
// checks come from it) and their conversion into the recorder's options.
// Here in tools/ because the table type lives in report/ and the options in
// recorder/, two layers that do not know each other.
#ifndef HWT_TOOLS_EMULATE_OPTIONS_H_
#define HWT_TOOLS_EMULATE_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "recorder/emulate.h"
#include "report/driver/option_table.h"

namespace hwt::tools {

struct EmulateFlags {
  std::string output;
  bool force = false;
  std::string raw;
  std::string recorder;
  std::string cpu;
  uint64_t psb_period = 0;
  bool no_return_compression = false;
  bool long_tnt = false;
  std::string timing;
  std::vector<std::string> overflows;  // FIRST[:COUNT]
  uint64_t max_instructions = 0;
  bool no_images = false;
  std::string stdin_path;
  std::string program_output;
  std::vector<std::string> labels;  // KEY=VALUE
  std::vector<std::string> program;
};

const report::OptionTable<EmulateFlags>& EmulateOptionTable();

// The recorder's options; InvalidArgument naming the option for a value
// the parser cannot check (--cpu, --timing, --overflow, --label).
absl::StatusOr<recorder::EmulateOptions> EmulateOptionsFromFlags(
    const EmulateFlags& flags);

// The two lines hwt-emulate prints when it is done.
std::string EmulateSummary(const recorder::EmulateResult& result,
                           const std::string& tool);

}  // namespace hwt::tools

#endif  // HWT_TOOLS_EMULATE_OPTIONS_H_
