// The registry of profile extensions; see profile_extension.h.
#include "analysis/profile_extension.h"

#include <vector>

namespace hwt::analysis {
namespace {

// Filled by static initializers (before main), read afterwards: no lock.
std::vector<ProfileExtensionFactory>& Factories() {
  static auto* factories = new std::vector<ProfileExtensionFactory>();
  return *factories;
}

}  // namespace

bool RegisterProfileExtension(ProfileExtensionFactory factory) {
  Factories().push_back(factory);
  return true;
}

std::unique_ptr<ProfileExtension> CreateProfileExtension(
    const ExtensionContext& context) {
  for (ProfileExtensionFactory factory : Factories()) {
    if (std::unique_ptr<ProfileExtension> extension = factory(context)) {
      return extension;
    }
  }
  return nullptr;
}

}  // namespace hwt::analysis
