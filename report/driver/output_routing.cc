// Where hwt-report's outputs go and how the run ends: usage errors,
// warnings, the decode exit status, atomic writes to -o, =FILE, stdout or
// the default NAME.SUFFIX file; see report_internal.h.
#include <unistd.h>

#include <cstdio>

#include "base/output.h"
#include "report/driver/report_internal.h"
#include "report/listing/decode_stats.h"

namespace hwt::report::driver {

int Usage(const std::string& message) {
  PrintError(kTool, message);
  return kExitUsage;
}

void PrintWarnings(const std::vector<std::string>& warnings, bool quiet) {
  if (quiet) return;
  for (const std::string& w : warnings) {
    fprintf(stderr, "%s: warning: %s\n", kTool, w.c_str());
  }
}

int DecodeExit(const std::vector<StreamStats>& streams, bool quiet) {
  if (DecodeFailed(streams)) {
    PrintError(kTool, DecodeFailureMessage(streams));
    return kExitDecodeErrors;
  }
  const std::string message = DecodeErrorMessage(TotalStats(streams));
  if (!message.empty() && !quiet) {
    fprintf(stderr, "%s: note: %s\n", kTool, message.c_str());
  }
  return kExitOk;
}

namespace {

// Gives the outputs without a file of their own (=FILE) theirs: -o (only
// one may share it), stdout, or NAME.SUFFIX for SVG/HTML/JSON when stdout
// is a terminal.
bool ResolveFiles(std::vector<OutputSpec>& outputs, const RunContext& run) {
  std::vector<OutputSpec*> shared;
  for (OutputSpec& o : outputs) {
    if (o.file == "-" || o.file.empty()) shared.push_back(&o);
  }
  if (!run.flags.output.empty()) {
    if (shared.size() > 1) return false;
    if (shared.size() == 1) shared[0]->file = run.flags.output;
    return true;
  }
  for (OutputSpec* o : shared) {
    if (run.env.stdout_is_terminal && o->binary) {
      o->file = DefaultOutputName(run.flags.input.input, o->suffix);
    } else {
      o->file = "";
    }
  }
  return true;
}

}  // namespace

int WriteOutputs(std::vector<OutputSpec>& outputs, const RunContext& run) {
  if (!ResolveFiles(outputs, run)) {
    return Usage(
        "-o FILE with several outputs: give each its own file "
        "(--flame=FILE, --speedscope=FILE, ...)");
  }
  bool first_stdout = true;
  for (OutputSpec& o : outputs) {
    auto out = Output::Open(o.file);
    if (!out.ok()) {
      PrintError(kTool, std::string(out.status().message()));
      return kExitInternal;
    }
    if (out->is_stdout() && !first_stdout) out->Write("\n");
    if (out->is_stdout()) first_stdout = false;
    out->Write(o.content);
    absl::Status status = out->Commit();
    if (!status.ok()) {
      PrintError(kTool, std::string(status.message()));
      return kExitInternal;
    }
    if (!out->is_stdout() && !run.flags.quiet) {
      fprintf(stderr, "%s: wrote %s (%s)\n", kTool, o.file.c_str(),
              o.what.c_str());
    }
  }
  return kExitOk;
}

FlameOptions FlameFromFlags(const RunContext& run, const std::string& title,
                            const std::string& icicle_title,
                            const std::string& count_name) {
  const ReportFlags& options = run.flags;
  FlameOptions flame;
  flame.title = !options.title.empty() ? options.title
                : options.icicle       ? icicle_title
                                       : title;
  flame.count_name =
      options.count_name.empty() ? count_name : options.count_name;
  flame.inverted = options.icicle;
  flame.min_width = run.min_width_px;
  return flame;
}

}  // namespace hwt::report::driver
