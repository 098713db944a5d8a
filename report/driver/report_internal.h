// What the parts of hwt-report's run share (report_run.cc, report_saved.cc,
// report_spe.cc, report_render.cc): the run's context, the outputs and
// their routing, and the subject the profile outputs are made from.
#ifndef HWT_REPORT_DRIVER_REPORT_INTERNAL_H_
#define HWT_REPORT_DRIVER_REPORT_INTERNAL_H_

#include <string>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "analysis/saved/saved_profile.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "report/driver/report_options.h"
#include "report/driver/report_run.h"
#include "report/driver/tool_input.h"
#include "report/html/capture_model.h"
#include "report/profile/call_timeline.h"
#include "report/profile/flame_svg.h"
#include "report/profile/report_support.h"
#include "report/profile/symbolized_profile.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report::driver {

inline constexpr char kTool[] = "hwt-report";

struct RunContext {
  const ReportFlags& flags;
  ReportEnvironment env;
  double min_width_px = 0;  // --min-width in pixels of a 1200-pixel graph
};

// One requested output and where it goes.
struct OutputSpec {
  std::string what;     // "flame", "folded", ...
  std::string file;     // "" = stdout
  bool binary = false;  // SVG or JSON: not for a terminal
  std::string suffix;   // default file name suffix (NAME.SUFFIX)
  std::string content;
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
int WriteOutputs(std::vector<OutputSpec>& outputs, const RunContext& run);

// The flame graph options every backend sets the same way from the flags.
FlameOptions FlameFromFlags(const RunContext& run, const std::string& title,
                            const std::string& icicle_title,
                            const std::string& count_name);

// What the outputs are made from: a capture's profile with the symbolizer,
// or a saved (merged) profile with its saved names and code.
struct Subject {
  const analysis::Profile* profile = nullptr;
  analysis::CallTree tree;  // before --only-image / --function
  StreamStats decode;
  std::vector<StreamStats> stream_stats;  // for the exit status
  WeightUnit unit;
  ProfileSymbols* symbols = nullptr;
  analysis::CodeReader* code = nullptr;  // for the block expansion
  // --annotate disassembles the images; null when none is here (then
  // `annotate_problem` says why).
  symbolizer::Symbolizer* symbolizer = nullptr;
  std::string annotate_problem;
  CallTimelineRecorder* recorder = nullptr;  // --speedscope
  std::vector<StreamInfo> streams;
  bool cpu_mode = false;
  std::string name;                  // of the input, in titles
  std::vector<std::string> filters;  // thread, range, time
  // The capture and its address-space timeline (--html, the exports); null
  // for saved profiles.
  const capture::Capture* capture = nullptr;
  const capture::AddressSpaceTimeline* timeline = nullptr;
  // The saved profile (--html, the exports); null for captures.
  const analysis::SavedProfile* saved = nullptr;
  // --html of a saved profile: its captures' rows (a batch's, with the
  // failed ones and the links to their reports, when it is a batch's).
  std::vector<html::CaptureRow> capture_rows;
};

// The profile outputs of a subject, written; returns the exit code.
int Render(const RunContext& run, Subject& subject);

// Saved profiles and captures merged (several INPUTs, a .hwtprof, --save).
int RunProfiles(const RunContext& run);
// --diff BASE NEW.
int RunDiff(const RunContext& run);
// The SPE reports of an SPE capture.
int RunSpe(const RunContext& run, const OpenedInput& input,
           symbolizer::Symbolizer& symbolizer);

}  // namespace hwt::report::driver

#endif  // HWT_REPORT_DRIVER_REPORT_INTERNAL_H_
