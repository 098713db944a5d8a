// The input options every tool that opens a capture has (--backend, --cpu,
// --image, --sysroot): their option-table rows, once, for the tables of
// hwt-report and hwt-decode and for the tools that bind them to CLI11
// themselves (tools/tool_common.h's AddInputOptions).
#ifndef HWT_REPORT_DRIVER_INPUT_OPTIONS_H_
#define HWT_REPORT_DRIVER_INPUT_OPTIONS_H_

#include <cstddef>
#include <vector>

#include "report/driver/option_table.h"
#include "report/driver/tool_input.h"

namespace hwt::report {

// The help of a tool's capture INPUT (one capture, in any form a reader
// opens), for hwt-decode's table and the tools that bind it themselves.
inline constexpr const char kCaptureInputHelp[] =
    "capture bundle (NAME.hwt/), packed bundle (.tar, .tar.zst), OpenCSD "
    "snapshot directory, Linux perf.data file, or raw trace file";

// The rows' descriptions, in --help order.
const std::vector<OptionInfo>& InputOptionInfos();
// The field of `flags` the i-th of InputOptionInfos() fills.
OptionTarget InputOptionTarget(InputFlags& flags, size_t i);

// The rows for a tool's table whose flags hold their InputFlags in member
// `kInput`.
template <typename Flags, InputFlags Flags::*kInput>
std::vector<OptionRow<Flags>> InputOptionRows() {
  std::vector<OptionRow<Flags>> rows;
  const std::vector<OptionInfo>& infos = InputOptionInfos();
  // A row's target is a plain function: one per index.
  OptionTarget (*const targets[])(Flags&) = {
      [](Flags& f) { return InputOptionTarget(f.*kInput, 0); },
      [](Flags& f) { return InputOptionTarget(f.*kInput, 1); },
      [](Flags& f) { return InputOptionTarget(f.*kInput, 2); },
      [](Flags& f) { return InputOptionTarget(f.*kInput, 3); },
  };
  for (size_t i = 0; i < infos.size(); ++i) {
    rows.push_back({infos[i], targets[i]});
  }
  return rows;
}

}  // namespace hwt::report

#endif  // HWT_REPORT_DRIVER_INPUT_OPTIONS_H_
