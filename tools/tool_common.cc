// Implementation of the shared tool plumbing; see tool_common.h.
#include "tools/tool_common.h"

#include <cstdio>

#include "base/status_macros.h"

namespace hwt::tools {

void AddInputFlags(CLI::App& app, InputFlags* flags) {
  app.add_option("INPUT", flags->input,
                 "capture bundle (NAME.hwt/), packed bundle (.tar, .tar.zst), "
                 "OpenCSD snapshot directory, Linux perf.data file, or raw "
                 "trace file")
      ->required();
  AddInputOptions(app, flags);
}

void AddInputOptions(CLI::App& app, InputFlags* flags) {
  app.add_option("--backend", flags->backend,
                 "backend of a raw trace file: pt, coresight, spe "
                 "(detected when omitted)");
  app.add_option("--cpu", flags->cpu,
                 "CPU of a raw PT trace as FAMILY/MODEL[/STEPPING] (decimal, "
                 "e.g. 6/85/4); overrides the capture's");
  app.add_option("--image", flags->images,
                 "ELF image FILE[@BIAS] mapped at load bias BIAS (0 for "
                 "non-PIE); without @BIAS an image whose build-id a recorded "
                 "mapping names (perf.data) serves that mapping; raw memory "
                 "FILE@ADDRESS; a page cache STEM.addr/STEM.dump (kAFL, "
                 "libxdc); repeatable")
      ->allow_extra_args(false);
  app.add_option("--sysroot,--symfs", flags->sysroot,
                 "prefix for image paths recorded in the capture (like "
                 "hwt(8) -R and perf's --symfs)");
}

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
  OpenedInput opened;
  HWT_ASSIGN_OR_RETURN(opened.capture,
                       capture::OpenCapture(flags.input, options));
  HWT_ASSIGN_OR_RETURN(opened.timeline,
                       capture::BuildAddressSpaceTimeline(*opened.capture));
  if (!quiet) {
    for (const std::string& warning : opened.capture->import_warnings()) {
      fprintf(stderr, "%s: warning: %s\n", tool.c_str(), warning.c_str());
    }
    for (const std::string& warning : opened.timeline.warnings()) {
      fprintf(stderr, "%s: warning: %s\n", tool.c_str(), warning.c_str());
    }
  }
  return opened;
}

std::vector<std::string> InputWarnings(const OpenedInput& input) {
  std::vector<std::string> out = input.capture->import_warnings();
  const auto& timeline = input.timeline.warnings();
  out.insert(out.end(), timeline.begin(), timeline.end());
  return out;
}

int ImportExitCode(const capture::Capture& capture, int exit_code) {
  if (exit_code == kExitOk && !capture.import_warnings().empty()) {
    return kExitDecodeErrors;
  }
  return exit_code;
}

bool ParseCommandLine(CLI::App& app, int argc, char** argv, int* exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::CallForAllHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::CallForVersion& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n",
            app.get_name().c_str(), e.what(), app.get_name().c_str());
    *exit_code = kExitUsage;
    return false;
  }
  return true;
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

}  // namespace hwt::tools
