// hwt-emulate: records a real x86-64 program in software (valgrind with the
// hwttrace tool, or ptrace single-stepping) and writes a genuine Intel PT
// capture bundle with its ground truth. A thin front end: its option table
// (tools/emulate_options.h) into a parser, recorder/emulate.h's
// RecordCapture, a two-line summary out.
#include <cstdio>
#include <string>

#include "recorder/emulate.h"
#include "tools/emulate_options.h"
#include "tools/option_cli.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-emulate";

}  // namespace

int main(int argc, char** argv) {
  hwt::tools::EmulateFlags flags;
  hwt::tools::OptionCli cli(hwt::tools::EmulateOptionTable(), &flags);
  int exit_code = 0;
  if (!cli.Parse(argc, argv, &exit_code)) return exit_code;
  auto options = hwt::tools::EmulateOptionsFromFlags(flags);
  if (!options.ok()) return hwt::tools::Fail(kTool, options.status());
  options->notify = [](const std::string& message) {
    fprintf(stderr, "%s: %s\n", kTool, message.c_str());
  };
  auto result = hwt::recorder::RecordCapture(*options);
  if (!result.ok()) return hwt::tools::Fail(kTool, result.status());
  fputs(hwt::tools::EmulateSummary(*result, kTool).c_str(), stderr);
  return hwt::tools::kExitOk;
}
