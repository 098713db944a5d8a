// How hwt-batch's subcommands report a failure: one line on stderr,
// "hwt-batch: MESSAGE", and the exit code the command then returns.
#ifndef HWT_BATCH_TOOL_ERROR_H_
#define HWT_BATCH_TOOL_ERROR_H_

#include "absl/strings/string_view.h"

namespace hwt::batch {

// The name every hwt-batch message starts with.
inline constexpr char kBatchTool[] = "hwt-batch";

// Prints "hwt-batch: MESSAGE" on stderr and returns `exit_code`, so that a
// command can `return ReportError(2, ...)`.
int ReportError(int exit_code, absl::string_view message);

}  // namespace hwt::batch

#endif  // HWT_BATCH_TOOL_ERROR_H_
