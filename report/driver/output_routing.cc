// Where hwt-report's outputs go and how the run ends: usage errors,
// warnings, the decode exit status, atomic writes to -o, =FILE, stdout or
// the default NAME.SUFFIX file; see report_internal.h.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
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

// NAME.SUFFIX in the current directory for input .../NAME.hwt (or NAME.tar,
// NAME.tar.zst, NAME/, NAME.raw): where SVG/JSON goes when stdout is a
// terminal.
std::string DefaultOutputName(const std::string& input,
                              const std::string& suffix) {
  std::string name = input;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (name == "." || name == ".." || absl::EndsWith(name, "/.") ||
      absl::EndsWith(name, "/..")) {
    // A snapshot directory given as ".": its real name.
    std::error_code error;
    const std::filesystem::path path =
        std::filesystem::weakly_canonical(name, error);
    if (!error) name = path.string();
  }
  name = BaseName(name);
  for (const char* ext :
       {".tar.zst", ".tzst", ".tar", ".hwt", ".raw", ".bin"}) {
    if (absl::EndsWith(name, ext) && name.size() > strlen(ext)) {
      name.resize(name.size() - strlen(ext));
      break;
    }
  }
  if (name.empty() || name == "." || name == "..") name = "trace";
  return absl::StrCat(name, ".", suffix);
}

// Gives the outputs without a file of their own (=FILE) theirs: -o (only
// one may share it), stdout, or NAME.SUFFIX for SVG/HTML/JSON when stdout
// is a terminal.
bool ResolveFiles(std::vector<OutputFile>& outputs, const RunContext& run) {
  std::vector<OutputFile*> shared;
  for (OutputFile& o : outputs) {
    if (o.file == "-" || o.file.empty()) shared.push_back(&o);
  }
  if (!run.flags.output.empty()) {
    if (shared.size() > 1) return false;
    if (shared.size() == 1) shared[0]->file = run.flags.output;
    return true;
  }
  for (OutputFile* o : shared) {
    if (run.env.stdout_is_terminal && o->binary) {
      o->file = DefaultOutputName(run.flags.input.input, o->suffix);
    } else {
      o->file = "";
    }
  }
  return true;
}

}  // namespace

int WriteOutputs(std::vector<OutputFile>& outputs, const RunContext& run) {
  if (!ResolveFiles(outputs, run)) {
    return Usage(
        "-o FILE with several outputs: give each its own file "
        "(--flame=FILE, --speedscope=FILE, ...)");
  }
  bool first_stdout = true;
  for (OutputFile& o : outputs) {
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

}  // namespace hwt::report::driver
