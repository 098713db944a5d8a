// The renderers of hwt-report's outputs, by the name their option row
// requests (OptionInfo::requests in report/driver/report_options.cc). Each
// output's file registers its renderer from a static initializer:
//
//   HWT_REGISTER_OUTPUT("folded", FoldedOutput);
//
// and the library of the outputs is linked whole (report/outputs/
// CMakeLists.txt), so that a registration nobody calls stays in. A test can
// register a renderer of its own the same way.
#ifndef HWT_REPORT_OUTPUTS_OUTPUT_REGISTRY_H_
#define HWT_REPORT_OUTPUTS_OUTPUT_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "report/outputs/output.h"

namespace hwt::report {

// Registers `renderer` under `name`; returns true (for a static
// initializer). A second registration of a name is a programming error and
// aborts.
bool RegisterOutput(std::string_view name, std::unique_ptr<Renderer> renderer);

// The renderer registered under `name`, or null.
Renderer* FindOutput(std::string_view name);

// Every registered name, sorted.
std::vector<std::string> RegisteredOutputs();

}  // namespace hwt::report

#define HWT_REGISTER_OUTPUT(name, Type)                             \
  [[maybe_unused]] static const bool hwt_output_registered_##Type = \
      ::hwt::report::RegisterOutput(name, std::make_unique<Type>())

#endif  // HWT_REPORT_OUTPUTS_OUTPUT_REGISTRY_H_
