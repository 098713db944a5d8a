// The model every output renders (output.h): what the driver knows of the
// input after the pipeline ran (a capture's profile with its symbolizer and
// timeline, or a saved profile with its saved names and code; an SPE
// capture's samples with their extension), the tree after --only-image and
// --function, and the parts several outputs share, each built on first use
// and once: the names, the block expansion, the named tree, the call
// timelines, the export input. DiffReportModel is --diff's: two saved
// profiles with their named trees.
#ifndef HWT_REPORT_OUTPUTS_REPORT_MODEL_H_
#define HWT_REPORT_OUTPUTS_REPORT_MODEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/block_expansion.h"
#include "analysis/profile.h"
#include "analysis/profile_extension.h"
#include "analysis/saved/saved_profile.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/decoder.h"
#include "report/driver/report_options.h"
#include "report/export/export_input.h"
#include "report/html/capture_model.h"
#include "report/naming/profile_symbols.h"
#include "report/naming/symbolized_profile.h"
#include "report/naming/weight_unit.h"
#include "report/profile/flame_svg.h"
#include "report/profile/hot_report.h"
#include "report/tree/call_timeline.h"
#include "report/tree/profile_filter.h"
#include "symbolizer/symbolizer.h"

namespace hwt::report {

class ReportModel {
 public:
  // What the driver sets before the renderers run.
  const ReportFlags* flags = nullptr;
  double min_width_px = 0;  // --min-width in pixels of a 1200-pixel graph
  const analysis::Profile* profile = nullptr;
  // What only the capture's backend has (null: nothing); renderers that
  // know it ask with Extension<T>().
  const analysis::ProfileExtension* extension = nullptr;
  analysis::CallTree tree;  // after --only-image and --function
  // The filters applied, for titles: "thread 0", "through libc.so.7", ...
  std::vector<std::string> filters;
  FrameMatcher image_match, function_match;
  WeightUnit unit;       // what the weights are and how they are shown
  WeightUnit time_unit;  // the trace's time, should the profile have any
  ProfileSymbols* symbols = nullptr;
  analysis::CodeReader* code = nullptr;  // the executed blocks' code
  // --annotate disassembles the images; null when none is here (then
  // `annotate_problem` says why).
  symbolizer::Symbolizer* symbolizer = nullptr;
  std::string annotate_problem;
  CallTimelineRecorder* recorder = nullptr;  // when an output asked
  std::vector<StreamInfo> streams;
  std::vector<StreamStats> stream_stats;  // per stream: the exit status
  StreamStats decode;                     // their sum
  bool cpu_mode = false;
  std::string name;           // of the input, in titles
  bool source_lines = false;  // function frames with file:line
  // A capture and its timeline, or a saved profile (the other null).
  const capture::Capture* capture = nullptr;
  const capture::AddressSpaceTimeline* timeline = nullptr;
  const analysis::SavedProfile* saved = nullptr;
  // --html of a saved profile: its captures' rows (a batch's, with the
  // failed ones and the links to their reports, when it is a batch's).
  std::vector<html::CaptureRow> capture_rows;

  const ReportFlags& options() const { return *flags; }
  bool sampled() const {
    return profile->counts == analysis::ProfileCounts::kSamples;
  }
  template <typename T>
  const T* Extension() const {
    return dynamic_cast<const T*>(extension);
  }

  // Built on first use.
  ProfileNames& names();
  const analysis::BlockExpansion& expansion();
  // Whether the named tree splits frames by their inline frames: with
  // instruction (or sample) weights, unless --no-inline.
  bool inline_frames() const;
  const NamedTreeOptions& tree_options();
  const NamedTree& named_tree();
  // "NAME: 79 instructions, 1 thread (FILTERS)".
  std::string Subtitle();
  // The flame graph options of the flags (--title, --icicle, --count-name,
  // --min-width) with these defaults.
  FlameOptions FlameFromFlags(const std::string& title,
                              const std::string& icicle_title,
                              const std::string& count_name) const;
  // The call timeline on the profile's weight (null without a recorder),
  // and its threads' names.
  const CallTimeline* call_timeline();
  const std::vector<std::string>& thread_names();
  // The Chrome trace's: on the trace's time when it has timing, whatever
  // --weight says (a timeline is read against a clock), with the untraced
  // intervals; else on instructions (samples).
  const CallTimeline* chrome_timeline();
  // --hot (and the HTML report's hot spots) follow --function / --only-image.
  HotOptions Hot() const;
  // What the exports read (a capture's: names from its symbolizer,
  // segments from its image files; a saved profile's: everything from the
  // profile).
  ExportInput& export_input();

  // Warnings for stderr (a truncated call timeline), printed by the driver.
  std::vector<std::string> warnings;

 private:
  std::unique_ptr<ProfileNames> names_;
  std::optional<analysis::BlockExpansion> expansion_;
  std::optional<NamedTreeOptions> tree_options_;
  std::optional<NamedTree> named_;
  bool timelines_done_ = false;
  std::optional<CallTimeline> timeline_, chrome_timeline_;
  std::vector<std::string> thread_names_;
  std::unique_ptr<ExportInput> export_input_;
};

// --diff BASE NEW: both profiles, named, with their named trees (inline
// frames expanded unless --no-inline).
class DiffReportModel {
 public:
  DiffReportModel(const ReportFlags& flags, double min_width_px,
                  const analysis::SavedProfile& base,
                  const analysis::SavedProfile& now);
  ~DiffReportModel();

  const ReportFlags& options() const { return flags_; }
  double min_width_px() const { return min_width_px_; }
  const analysis::SavedProfile& base() const { return base_; }
  const analysis::SavedProfile& now() const { return now_; }
  std::string base_name() const;  // the inputs' base names
  std::string new_name() const;
  ProfileNames& base_names() { return *base_names_; }
  ProfileNames& new_names() { return *new_names_; }
  const NamedTree& base_tree() const { return base_tree_; }
  const NamedTree& new_tree() const { return new_tree_; }
  // The change of every stack of the new tree (StackDeltas).
  std::vector<int64_t> Deltas();

 private:
  const ReportFlags& flags_;
  double min_width_px_;
  const analysis::SavedProfile& base_;
  const analysis::SavedProfile& now_;
  std::unique_ptr<ProfileSymbols> base_symbols_, new_symbols_;
  std::unique_ptr<ProfileNames> base_names_, new_names_;
  NamedTree base_tree_, new_tree_;
};

// The flame graph options of `flags` (--title, --icicle, --count-name,
// --min-width as `min_width_px`) with these defaults.
FlameOptions FlameOptionsFromFlags(const ReportFlags& flags,
                                   double min_width_px,
                                   const std::string& title,
                                   const std::string& icicle_title,
                                   const std::string& count_name);

}  // namespace hwt::report

#endif  // HWT_REPORT_OUTPUTS_REPORT_MODEL_H_
