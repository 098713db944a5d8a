// What the parts of hwt-report's run share (report_run.cc, report_saved.cc,
// report_render.cc): the run's context, the outputs the command line asks
// for, and how they are written.
#ifndef HWT_REPORT_DRIVER_REPORT_INTERNAL_H_
#define HWT_REPORT_DRIVER_REPORT_INTERNAL_H_

#include <string>
#include <utility>
#include <vector>

#include "decoders/decoder.h"
#include "report/driver/report_options.h"
#include "report/driver/report_run.h"
#include "report/outputs/output.h"
#include "report/outputs/report_model.h"

namespace hwt::report::driver {

inline constexpr char kTool[] = "hwt-report";

// One requested output with its renderer.
struct Requested {
  OutputRequest request;
  Renderer* renderer = nullptr;
};

struct RunContext {
  const ReportFlags& flags;
  ReportEnvironment env;
  double min_width_px = 0;  // --min-width in pixels of a 1200-pixel graph
  // The outputs the options ask for, in the table's order (empty: the
  // default output of the input).
  std::vector<Requested> outputs;
  // What they need, together.
  OutputNeeds needs;
};

// The files the renderers add, in order.
class OutputCollector : public OutputSink {
 public:
  void Add(OutputFile file) override { files.push_back(std::move(file)); }
  std::vector<OutputFile> files;
};

// Prints the usage error; returns kExitUsage.
int Usage(const std::string& message);
// The PT flow engine --decoder (or --fast) chooses.
DecoderEngine ChooseDecoderEngine(const ReportFlags& options);
void PrintWarnings(const std::vector<std::string>& warnings, bool quiet);
// Exit 1 when the trace had decode errors or a stream of which no byte
// could be decoded (as hwt-decode); bytes skipped before a stream's first
// sync point are only a note.
int DecodeExit(const std::vector<StreamStats>& streams, bool quiet);
// Resolves where each output goes (-o, =FILE, stdout, or a file next to
// the input's name when stdout is a terminal) and writes them atomically.
int WriteOutputs(std::vector<OutputFile>& outputs, const RunContext& run);

// Why an output that needs exact counts refuses a sampled profile.
std::string SampledInputRefused(const std::string& output);

// The model's outputs (the requested ones, or its default), after the
// --only-image and --function filters, written; returns the exit code.
int Render(const RunContext& run, ReportModel& model);

// Saved profiles and captures merged (several INPUTs, a .hwtprof, --save).
int RunProfiles(const RunContext& run);
// --diff BASE NEW.
int RunDiff(const RunContext& run);

}  // namespace hwt::report::driver

#endif  // HWT_REPORT_DRIVER_REPORT_INTERNAL_H_
