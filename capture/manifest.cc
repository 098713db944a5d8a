// Names of the manifest's enumerations, as the bundle format spells them.
#include "capture/manifest.h"

namespace hwt::capture {

std::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kPt:
      return "pt";
    case Backend::kCoreSight:
      return "coresight";
    case Backend::kSpe:
      return "spe";
    case Backend::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<Backend> ParseBackend(std::string_view name) {
  if (name == "pt" || name == "intel-pt" || name == "ipt") return Backend::kPt;
  if (name == "coresight" || name == "cs" || name == "etm") {
    return Backend::kCoreSight;
  }
  if (name == "spe" || name == "arm-spe") return Backend::kSpe;
  return std::nullopt;
}

std::string_view TraceModeName(TraceMode mode) {
  return mode == TraceMode::kCpu ? "cpu" : "thread";
}

std::string_view MemorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::kAny:
      return "any";
    case MemorySpace::kEL1N:
      return "el1n";
    case MemorySpace::kEL1S:
      return "el1s";
    case MemorySpace::kEL2N:
      return "el2n";
    case MemorySpace::kEL2S:
      return "el2s";
    case MemorySpace::kEL3:
      return "el3";
    case MemorySpace::kNonSecure:
      return "n";
    case MemorySpace::kSecure:
      return "s";
  }
  return "any";
}

std::optional<MemorySpace> ParseMemorySpace(std::string_view name) {
  for (MemorySpace space :
       {MemorySpace::kAny, MemorySpace::kEL1N, MemorySpace::kEL1S,
        MemorySpace::kEL2N, MemorySpace::kEL2S, MemorySpace::kEL3,
        MemorySpace::kNonSecure, MemorySpace::kSecure}) {
    if (MemorySpaceName(space) == name) return space;
  }
  return std::nullopt;
}

}  // namespace hwt::capture
