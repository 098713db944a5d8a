// hwt-import: converts a capture any tool can read (a Linux perf.data file,
// an OpenCSD snapshot, a bundle) into a capture bundle with the images it
// maps copied in, so that it can be analysed on another machine. A thin front
// end over capture/capture_export.h; its options are report/driver's table.
#include <cstdio>

#include "capture/capture_export.h"
#include "report/driver/import_options.h"
#include "tools/option_cli.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-import";

}  // namespace

int main(int argc, char** argv) {
  hwt::report::ImportFlags flags;
  hwt::tools::OptionCli cli(hwt::report::ImportOptionTable(), &flags);
  int exit_code = 0;
  if (!cli.Parse(argc, argv, &exit_code)) return exit_code;
  const std::string& output = flags.output;
  const bool quiet = flags.quiet;
  auto opened = hwt::tools::OpenInput(flags.input, kTool, quiet);
  if (!opened.ok()) return hwt::tools::Fail(kTool, opened.status());
  auto summary = hwt::capture::ExportBundle(*opened->capture, opened->timeline,
                                            output, flags.force);
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
