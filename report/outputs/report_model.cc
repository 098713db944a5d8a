// The model the outputs render; see report_model.h.
#include "report/outputs/report_model.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "report/common/text_util.h"
#include "report/export/saved_export_input.h"
#include "report/naming/saved_symbols.h"
#include "report/profile/speedscope.h"
#include "report/tree/profile_diff.h"

namespace hwt::report {

ProfileNames& ReportModel::names() {
  if (names_ == nullptr) {
    names_ = std::make_unique<ProfileNames>(*symbols, source_lines);
  }
  return *names_;
}

const analysis::BlockExpansion& ReportModel::expansion() {
  if (!expansion_) expansion_ = analysis::ExpandBlocks(*profile, *code);
  return *expansion_;
}

bool ReportModel::inline_frames() const {
  return !flags->no_inline && unit.weight == Weight::kInstructions;
}

const NamedTreeOptions& ReportModel::tree_options() {
  if (!tree_options_) {
    NamedTreeOptions options;
    options.weight = unit.weight;
    options.inline_frames = inline_frames();
    options.profile = profile;
    options.expansion = options.inline_frames ? &expansion() : nullptr;
    tree_options_ = options;
  }
  return *tree_options_;
}

const NamedTree& ReportModel::named_tree() {
  if (!named_) named_ = BuildNamedTree(tree, names(), tree_options());
  return *named_;
}

std::string ReportModel::Subtitle() {
  const analysis::ProfileStats& stats = profile->stats;
  std::string subtitle = absl::StrCat(
      name, ": ",
      ScaledCount(
          unit.weight == Weight::kTime ? stats.time : stats.instructions,
          unit.scale),
      " ", unit.name, ", ", profile->threads.size(),
      profile->threads.size() == 1 ? " thread" : " threads");
  if (!filters.empty()) {
    absl::StrAppend(&subtitle, " (", absl::StrJoin(filters, ", "), ")");
  }
  return subtitle;
}

FlameOptions ReportModel::FlameFromFlags(const std::string& title,
                                         const std::string& icicle_title,
                                         const std::string& count_name) const {
  return FlameOptionsFromFlags(*flags, min_width_px, title, icicle_title,
                               count_name);
}

FlameOptions FlameOptionsFromFlags(const ReportFlags& flags,
                                   double min_width_px,
                                   const std::string& title,
                                   const std::string& icicle_title,
                                   const std::string& count_name) {
  FlameOptions flame;
  flame.title = !flags.title.empty() ? flags.title
                : flags.icicle       ? icicle_title
                                     : title;
  flame.count_name = flags.count_name.empty() ? count_name : flags.count_name;
  flame.inverted = flags.icicle;
  flame.min_width = min_width_px;
  return flame;
}

const CallTimeline* ReportModel::call_timeline() {
  if (!timelines_done_) {
    timelines_done_ = true;
    if (recorder != nullptr) {
      // A sampled profile's time is its samples' latency, not a clock: its
      // timeline counts samples whatever the weight.
      timeline_ = recorder->Finish(unit.weight == Weight::kTime && !sampled());
      if (timeline_->truncated) {
        warnings.push_back(absl::StrCat(
            "the call timeline stops after ", flags->max_events,
            " events (--max-events); the sampled profile is complete"));
      }
    }
    thread_names_ = SpeedscopeThreadNames(
        timeline_ ? *timeline_ : CallTimeline(), streams, cpu_mode);
  }
  return timeline_ ? &*timeline_ : nullptr;
}

const std::vector<std::string>& ReportModel::thread_names() {
  call_timeline();
  return thread_names_;
}

const CallTimeline* ReportModel::chrome_timeline() {
  if (recorder == nullptr) return nullptr;
  if (!chrome_timeline_) {
    // A sampled profile's time is its samples' latency, not a clock: its
    // timeline counts samples.
    const bool by_time = profile->has_time && !sampled();
    chrome_timeline_ = recorder->Finish(by_time, /*untraced=*/true);
  }
  return &*chrome_timeline_;
}

HotOptions ReportModel::Hot() const {
  HotOptions hot;
  hot.rows = flags->rows;
  if (!image_match && !function_match) return hot;
  hot.keep_function = [this](const analysis::FunctionId& fn) {
    if (fn.kind != analysis::FrameKind::kFunction &&
        fn.kind != analysis::FrameKind::kUnknownCode) {
      return false;
    }
    const analysis::FrameKey key{fn.kind, fn.image, fn.start};
    if (image_match && !image_match(key)) return false;
    if (function_match &&
        (fn.kind != analysis::FrameKind::kFunction || !function_match(key))) {
      return false;
    }
    return true;
  };
  return hot;
}

ExportInput& ReportModel::export_input() {
  if (export_input_ == nullptr) {
    if (saved != nullptr) {
      export_input_ =
          std::make_unique<SavedExportInput>(*saved, expansion(), *symbols);
    } else {
      export_input_ = std::make_unique<LiveExportInput>(
          *profile, expansion(), *timeline, *symbolizer, *symbols);
    }
  }
  return *export_input_;
}

namespace {

// A saved profile's merged tree, named, with inline frames.
NamedTree DiffTree(const ReportFlags& flags, const analysis::SavedProfile& p,
                   ProfileNames& names) {
  SavedCodeReader code(p);
  const analysis::BlockExpansion x = analysis::ExpandBlocks(p.profile, code);
  NamedTreeOptions tree_options;
  tree_options.inline_frames = !flags.no_inline;
  tree_options.profile = &p.profile;
  tree_options.expansion = &x;
  return BuildNamedTree(p.profile.merged, names, tree_options);
}

}  // namespace

DiffReportModel::DiffReportModel(const ReportFlags& flags, double min_width_px,
                                 const analysis::SavedProfile& base,
                                 const analysis::SavedProfile& now)
    : flags_(flags), min_width_px_(min_width_px), base_(base), now_(now) {
  base_symbols_ = std::make_unique<SavedProfileSymbols>(base, !flags.no_inline,
                                                        !flags.no_demangle);
  new_symbols_ = std::make_unique<SavedProfileSymbols>(now, !flags.no_inline,
                                                       !flags.no_demangle);
  base_names_ = std::make_unique<ProfileNames>(*base_symbols_);
  new_names_ = std::make_unique<ProfileNames>(*new_symbols_);
  base_tree_ = DiffTree(flags, base, *base_names_);
  new_tree_ = DiffTree(flags, now, *new_names_);
}

DiffReportModel::~DiffReportModel() = default;

std::string DiffReportModel::base_name() const {
  return BaseName(flags_.diff[0]);
}
std::string DiffReportModel::new_name() const {
  return BaseName(flags_.diff[1]);
}

std::vector<int64_t> DiffReportModel::Deltas() {
  return StackDeltas(new_tree_, new_names_->frames(), base_tree_,
                     base_names_->frames(), flags_.absolute);
}

}  // namespace hwt::report
