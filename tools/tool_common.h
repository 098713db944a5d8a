// What every hwt command-line tool shares: the input flags (INPUT, --backend,
// --cpu, --image, --sysroot), opening the input with its address-space
// timeline, exit codes, and CLI11 parsing that exits 2 on bad usage.
#ifndef HWT_TOOLS_TOOL_COMMON_H_
#define HWT_TOOLS_TOOL_COMMON_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"

namespace hwt::tools {

// Exit codes scripts can rely on (documented in README.md).
enum ExitCode : int {
  kExitOk = 0,            // clean
  kExitDecodeErrors = 1,  // finished, but the trace had errors (reported)
  kExitUsage = 2,         // bad usage or unreadable input
  kExitInternal = 3,      // a bug or an I/O failure while writing output
};

struct InputFlags {
  std::string input;
  std::string backend;
  std::string cpu;
  std::vector<std::string> images;
  std::string sysroot;
};

// Adds INPUT and the input options to `app`.
void AddInputFlags(CLI::App& app, InputFlags* flags);
// The input options only (--backend, --cpu, --image, --sysroot), for tools
// that take their inputs another way.
void AddInputOptions(CLI::App& app, InputFlags* flags);
// The capture::InputOptions the flags give (errors: a bad --backend, --cpu
// or --image value).
absl::StatusOr<capture::InputOptions> InputOptionsFromFlags(
    const InputFlags& flags);

struct OpenedInput {
  std::unique_ptr<capture::Capture> capture;
  capture::AddressSpaceTimeline timeline;
};

// Opens the input and builds its timeline; timeline warnings go to stderr
// prefixed with the tool name (unless quiet).
absl::StatusOr<OpenedInput> OpenInput(const InputFlags& flags,
                                      const std::string& tool, bool quiet);

// The input's import warnings, then its timeline's (what --stats lists).
std::vector<std::string> InputWarnings(const OpenedInput& input);

// `exit_code`, made kExitDecodeErrors when it is kExitOk but the input had
// import problems (a perf.data file truncated or with lost data: the
// capture's import_warnings(), which OpenInput printed).
int ImportExitCode(const capture::Capture& capture, int exit_code);

// Parses argv; on --help prints and returns kExitOk through `exit_code`, on a
// usage error prints the message and a hint and returns kExitUsage. Returns
// true when the tool should go on.
bool ParseCommandLine(CLI::App& app, int argc, char** argv, int* exit_code);

// Prints "TOOL: MESSAGE" to stderr.
void PrintError(const std::string& tool, const std::string& message);

// Exit code for a failed status: usage/input problems -> 2, others -> 3.
int ExitCodeFor(const absl::Status& status);
// PrintError(tool, status's message), then ExitCodeFor(status).
int Fail(const std::string& tool, const absl::Status& status);

// The sizes of the capture's trace buffers, in manifest order (what the
// progress sinks count against).
std::vector<uint64_t> BufferSizes(const capture::Capture& capture);
// Their sum: the total for a progress line.
uint64_t TotalTraceBytes(const capture::Capture& capture);

}  // namespace hwt::tools

#endif  // HWT_TOOLS_TOOL_COMMON_H_
