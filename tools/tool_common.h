// What every hwt command-line tool shares: CLI11 bindings of the input flags
// (INPUT, --backend, --cpu, --image, --sysroot) for the tools without an
// option table, and CLI11 parsing that exits 2 on bad usage. The exit codes,
// errors and opening the input are report/driver/tool_input.h's (named here
// too, so the tools keep saying hwt::tools::kExitOk).
#ifndef HWT_TOOLS_TOOL_COMMON_H_
#define HWT_TOOLS_TOOL_COMMON_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "report/driver/tool_input.h"

namespace hwt::tools {

using report::ExitCode;
using report::kExitDecodeErrors;
using report::kExitInternal;
using report::kExitOk;
using report::kExitUsage;

using report::BufferSizes;
using report::ExitCodeFor;
using report::Fail;
using report::ImportExitCode;
using report::InputFlags;
using report::InputOptionsFromFlags;
using report::InputWarnings;
using report::OpenedInput;
using report::OpenInput;
using report::PrintError;
using report::TotalTraceBytes;

// Adds INPUT and the input options to `app`.
void AddInputFlags(CLI::App& app, InputFlags* flags);
// The input options only (--backend, --cpu, --image, --sysroot), for tools
// that take their inputs another way.
void AddInputOptions(CLI::App& app, InputFlags* flags);
// Parses argv; on --help prints and returns kExitOk through `exit_code`, on a
// usage error prints the message and a hint and returns kExitUsage. Returns
// true when the tool should go on.
bool ParseCommandLine(CLI::App& app, int argc, char** argv, int* exit_code);

}  // namespace hwt::tools

#endif  // HWT_TOOLS_TOOL_COMMON_H_
