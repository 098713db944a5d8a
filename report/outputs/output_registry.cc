// The registry of hwt-report's outputs; see output_registry.h.
#include "report/outputs/output_registry.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "report/outputs/output.h"

namespace hwt::report {
namespace {

// Filled by static initializers (before main), read afterwards: no lock.
std::map<std::string, std::unique_ptr<Renderer>, std::less<>>& Registry() {
  static auto* registry =
      new std::map<std::string, std::unique_ptr<Renderer>, std::less<>>();
  return *registry;
}

}  // namespace

absl::Status Renderer::RenderDiff(DiffReportModel& model,
                                  const OutputRequest& request,
                                  OutputSink& sink) {
  return absl::InvalidArgumentError("--" + request.name +
                                    " does not compare two profiles (--diff)");
}

bool RegisterOutput(std::string_view name, std::unique_ptr<Renderer> renderer) {
  auto [it, added] = Registry().try_emplace(std::string(name));
  if (!added) {
    fprintf(stderr, "hwt: output '%.*s' registered twice\n",
            static_cast<int>(name.size()), name.data());
    std::abort();
  }
  it->second = std::move(renderer);
  return true;
}

Renderer* FindOutput(std::string_view name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : it->second.get();
}

std::vector<std::string> RegisteredOutputs() {
  std::vector<std::string> names;
  for (const auto& [name, renderer] : Registry()) names.push_back(name);
  return names;
}

}  // namespace hwt::report
