// What every output of hwt-report is: a Renderer registered under the name
// its option row requests (output_registry.h), which renders the model of
// the input (report_model.h: a capture's profile, a saved or merged one, an
// SPE capture's samples with their extension, or the two profiles of a
// --diff) into output files. The driver (report/driver) finds the rows that
// were given, asks their renderers what they need before the decode, runs
// the pipeline once, and hands every renderer the same model; the files
// they add go where the options say (-o, =FILE, stdout, NAME.SUFFIX).
// docs/architecture.md walks through adding one.
#ifndef HWT_REPORT_OUTPUTS_OUTPUT_H_
#define HWT_REPORT_OUTPUTS_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace hwt::report {

struct ReportFlags;
class ReportModel;
class DiffReportModel;

// One rendered file and where it goes.
struct OutputFile {
  std::string what;     // for "wrote FILE (WHAT)": "flame graph"
  std::string file;     // "-" or "": the shared destination (-o, stdout)
  bool binary = false;  // SVG, HTML, JSON, gzip: not for a terminal
  std::string suffix;   // of NAME.SUFFIX, where it goes from a terminal
  std::string content;
};

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual void Add(OutputFile file) = 0;
};

// An output the command line asked for: the name of its row's output and
// the row's value as given ("-" when bare, =FILE, the choice of
// --callgraph=dot; "-" for rows whose value is a number or a flag, which
// renderers read from the flags).
struct OutputRequest {
  std::string name;
  std::string value = "-";
};

// What an output needs from the run, known before the decode.
struct OutputNeeds {
  // The call/return timeline, recorded while the capture is profiled
  // (speedscope's evented profiles, the Chrome trace).
  bool call_timeline = false;
  // ... and nothing without it: inputs that have no timeline (saved
  // profiles, merges) are refused.
  bool requires_call_timeline = false;
  // The hot intra-procedural paths (--hot, the HTML report).
  bool hot_paths = false;
  // Function frames with their source file:line.
  bool source_lines = false;
  // Exact execution counts: a sampled profile (SPE) is refused.
  bool exact_counts = false;
};

class Renderer {
 public:
  virtual ~Renderer() = default;

  // Checks the request and the flags before anything is decoded (a bad
  // --callgraph value): InvalidArgument is a usage error.
  virtual absl::Status Check(const OutputRequest& request,
                             const ReportFlags& flags) const {
    return absl::OkStatus();
  }
  virtual OutputNeeds Needs(const OutputRequest& request,
                            const ReportFlags& flags) const {
    return {};
  }

  // The output of a profile. Errors: InvalidArgument/FailedPrecondition for
  // what the input cannot give (exit 2), others internal (exit 3).
  virtual absl::Status Render(ReportModel& model, const OutputRequest& request,
                              OutputSink& sink) = 0;

  // Whether it renders --diff BASE NEW, and how.
  virtual bool RendersDiff() const { return false; }
  virtual absl::Status RenderDiff(DiffReportModel& model,
                                  const OutputRequest& request,
                                  OutputSink& sink);

  // With no output requested, the renderer with the highest priority for
  // the model runs (0: never by default). The flame graph's is 1.
  virtual int DefaultPriority(const ReportModel& model) const { return 0; }
};

}  // namespace hwt::report

#endif  // HWT_REPORT_OUTPUTS_OUTPUT_H_
