// hwt-import: converts a capture any tool can read (a Linux perf.data file,
// an OpenCSD snapshot, a bundle) into a capture bundle with the images it
// maps copied in, so that it can be analysed on another machine. A thin front
// end over capture/capture_export.h.
#include <cstdio>

#include "CLI/CLI.hpp"
#include "capture/capture_export.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-import";

constexpr char kDescription[] =
    "Converts a capture into a capture bundle: a Linux perf.data file (perf "
    "or simpleperf, file or pipe form; Intel PT, CoreSight ETM/ETE, Arm "
    "SPE), an OpenCSD snapshot or a bundle. The images the capture maps are "
    "found by build-id (--image without a bias, --symfs/--sysroot, the perf "
    "build-id cache ~/.debug or $PERF_BUILDID_DIR) and copied in; what the "
    "import found missing or lost is kept in the bundle and reported again "
    "by every tool that reads it. OUTPUT is a directory (NAME.hwt) or, when "
    "it ends in .tar, .tar.zst or .tar.gz, one packed file. Nothing is "
    "written unless all of it is.\n\n"
    "Examples:\n"
    "  hwt-import perf.data -o run.hwt\n"
    "  hwt-import perf.data -o run.hwt --symfs /srv/rootfs\n"
    "  hwt-import perf.data -o run.tar.zst --image ./a.out\n\n"
    "Exit status: 0 written, 1 written but the input had problems (reported "
    "on stderr: truncation, lost data), 2 bad usage, unreadable input or "
    "nothing to write, 3 failure to write.";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, kTool};
  app.get_formatter()->column_width(34);
  hwt::tools::InputFlags input;
  std::string output;
  bool force = false;
  bool quiet = false;
  hwt::tools::AddInputFlags(app, &input);
  app.add_option("-o,--output", output,
                 "bundle to write: NAME.hwt directory, or .tar/.tar.zst/"
                 ".tar.gz file")
      ->required();
  app.add_flag("--force", force, "replace an existing bundle at OUTPUT");
  app.add_flag("-q,--quiet", quiet, "no warnings, no summary");
  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  auto opened = hwt::tools::OpenInput(input, kTool, quiet);
  if (!opened.ok()) return hwt::tools::Fail(kTool, opened.status());
  auto summary = hwt::capture::ExportBundle(*opened->capture, opened->timeline,
                                            output, force);
  if (!summary.ok()) return hwt::tools::Fail(kTool, summary.status());
  for (const std::string& image : summary->not_carried) {
    fprintf(stderr,
            "%s: warning: %s: given with --image but no recorded mapping "
            "names it, so the bundle does not map it; give it again when "
            "reading the bundle\n",
            kTool, image.c_str());
  }
  if (!quiet) {
    fprintf(stderr,
            "%s: wrote %s: %s trace, %zu buffer%s (%llu bytes), %zu "
            "records, %zu image%s copied, %zu import problem%s\n",
            kTool, output.c_str(),
            std::string(
                hwt::capture::BackendName(opened->capture->manifest().backend))
                .c_str(),
            summary->buffers, summary->buffers == 1 ? "" : "s",
            static_cast<unsigned long long>(summary->trace_bytes),
            summary->records, summary->images_copied,
            summary->images_copied == 1 ? "" : "s", summary->import_problems,
            summary->import_problems == 1 ? "" : "s");
  }
  const int code = summary->not_carried.empty() ? hwt::tools::kExitOk
                                                : hwt::tools::kExitDecodeErrors;
  return hwt::tools::ImportExitCode(*opened->capture, code);
}
