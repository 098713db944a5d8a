// hwt-batch's error line on stderr; see tool_error.h.
#include "batch/tool_error.h"

#include <cstdio>

namespace hwt::batch {

int ReportError(int exit_code, absl::string_view message) {
  fprintf(stderr, "%s: %.*s\n", kBatchTool, static_cast<int>(message.size()),
          message.data());
  return exit_code;
}

}  // namespace hwt::batch
