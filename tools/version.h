// The text of every tool's --version: the hwt version (project() in the top
// CMakeLists.txt, the one place it is set) and the versions of the trace
// libraries, both the ones the tool was built against and, where the
// library can say, the one it runs with.
#ifndef HWT_TOOLS_VERSION_H_
#define HWT_TOOLS_VERSION_H_

#include <string>

namespace hwt::tools {

// The hwt version alone, e.g. "0.1.0".
const char* HwtVersion();

// Lines of the form
//   hwt-report 0.1.0
//   libipt 2.0.5 (built with 2.0.5)
//   OpenCSD 1.3.3 (built with 1.3.3)
//   LLVM 19.1.7 (built with)
// for the tool named `tool`.
std::string VersionText(const std::string& tool);

}  // namespace hwt::tools

#endif  // HWT_TOOLS_VERSION_H_
