// What the tools share below their command lines: the exit codes scripts
// rely on, "TOOL: MESSAGE" errors with the exit code a status maps to, and
// the input flags (INPUT, --backend, --cpu, --image, --sysroot) opened into
// a capture with its address-space timeline. tools/tool_common.h binds the
// input flags to CLI11 for the tools without an option table.
#ifndef HWT_REPORT_DRIVER_TOOL_INPUT_H_
#define HWT_REPORT_DRIVER_TOOL_INPUT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "pipeline/open_capture.h"

namespace hwt::report {

// Exit codes scripts can rely on (documented in README.md).
enum ExitCode : int {
  kExitOk = 0,            // clean
  kExitDecodeErrors = 1,  // finished, but the trace had errors (reported)
  kExitUsage = 2,         // bad usage or unreadable input
  kExitInternal = 3,      // a bug or an I/O failure while writing output
};

// Prints "TOOL: MESSAGE" to stderr.
void PrintError(const std::string& tool, const std::string& message);
// Exit code for a failed status: usage/input problems -> 2, others -> 3.
int ExitCodeFor(const absl::Status& status);
// PrintError(tool, status's message), then ExitCodeFor(status).
int Fail(const std::string& tool, const absl::Status& status);

struct InputFlags {
  std::string input;
  std::string backend;
  std::string cpu;
  std::vector<std::string> images;
  std::string sysroot;
};

// The capture::InputOptions the flags give (errors: a bad --backend, --cpu
// or --image value).
absl::StatusOr<capture::InputOptions> InputOptionsFromFlags(
    const InputFlags& flags);

// The pipeline's open stage (pipeline/open_capture.h).
using OpenedInput = pipeline::OpenedCapture;

// Opens the input and builds its timeline; import and timeline warnings go
// to stderr prefixed with the tool name (unless quiet).
absl::StatusOr<OpenedInput> OpenInput(const InputFlags& flags,
                                      const std::string& tool, bool quiet);

// The input's import warnings, then its timeline's (what --stats lists).
std::vector<std::string> InputWarnings(const OpenedInput& input);

// `exit_code`, made kExitDecodeErrors when it is kExitOk but the input had
// import problems (a perf.data file truncated or with lost data: the
// capture's import_warnings(), which OpenInput printed).
int ImportExitCode(const capture::Capture& capture, int exit_code);

// The sizes of the capture's trace buffers, in manifest order (what the
// progress sinks count against).
std::vector<uint64_t> BufferSizes(const capture::Capture& capture);
// Their sum: the total for a progress line.
uint64_t TotalTraceBytes(const capture::Capture& capture);

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_TOOL_INPUT_H_
