// Implementation of the shared tool status and input plumbing; see
// tool_input.h.
#include "report/driver/tool_input.h"

#include <cstdio>

#include "base/status_macros.h"

namespace hwt::report {

absl::StatusOr<capture::InputOptions> InputOptionsFromFlags(
    const InputFlags& flags) {
  capture::InputOptions options;
  if (!flags.backend.empty()) {
    auto backend = capture::ParseBackend(flags.backend);
    if (!backend) {
      return absl::InvalidArgumentError(
          "--backend: expected pt, coresight or spe, got '" + flags.backend +
          "'");
    }
    options.backend = *backend;
  }
  if (!flags.cpu.empty()) {
    HWT_ASSIGN_OR_RETURN(options.cpu, capture::ParseCpuSpec(flags.cpu));
  }
  for (const std::string& image : flags.images) {
    HWT_ASSIGN_OR_RETURN(capture::ImageSpec spec,
                         capture::ParseImageSpec(image));
    options.images.push_back(std::move(spec));
  }
  options.sysroot = flags.sysroot;
  return options;
}

absl::StatusOr<OpenedInput> OpenInput(const InputFlags& flags,
                                      const std::string& tool, bool quiet) {
  HWT_ASSIGN_OR_RETURN(capture::InputOptions options,
                       InputOptionsFromFlags(flags));
  HWT_ASSIGN_OR_RETURN(OpenedInput opened,
                       pipeline::OpenCaptureInput(flags.input, options));
  if (!quiet) {
    for (const std::string& warning : InputWarnings(opened)) {
      fprintf(stderr, "%s: warning: %s\n", tool.c_str(), warning.c_str());
    }
  }
  return opened;
}

std::vector<std::string> InputWarnings(const OpenedInput& input) {
  return pipeline::OpenWarnings(input);
}

int ImportExitCode(const capture::Capture& capture, int exit_code) {
  if (exit_code == kExitOk && !capture.import_warnings().empty()) {
    return kExitDecodeErrors;
  }
  return exit_code;
}

void PrintError(const std::string& tool, const std::string& message) {
  fprintf(stderr, "%s: %s\n", tool.c_str(), message.c_str());
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kDataLoss:
      return kExitUsage;
    default:
      return kExitInternal;
  }
}

int Fail(const std::string& tool, const absl::Status& status) {
  PrintError(tool, std::string(status.message()));
  return ExitCodeFor(status);
}

std::vector<uint64_t> BufferSizes(const capture::Capture& capture) {
  std::vector<uint64_t> sizes;
  for (const auto& buffer : capture.manifest().buffers) {
    sizes.push_back(buffer.size);
  }
  return sizes;
}

uint64_t TotalTraceBytes(const capture::Capture& capture) {
  uint64_t total = 0;
  for (const auto& buffer : capture.manifest().buffers) total += buffer.size;
  return total;
}

}  // namespace hwt::report
