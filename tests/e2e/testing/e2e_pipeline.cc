// Implementation of the end-to-end test helpers; see e2e_pipeline.h.
#include "tests/e2e/testing/e2e_pipeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/capture_profile.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/address_space.h"
#include "decoders/insn_walker.h"
#include "decoders/memory_image.h"
#include "nlohmann/json.hpp"
#include "pipeline/symbolizer_resolver.h"
#include "pipeline/timeline_symbolizer.h"
#include "recorder/ground_truth.h"
#include "report/naming/symbolized_profile.h"
#include "report/naming/symbolizer_symbols.h"
#include "report/profile/folded.h"
#include "symbolizer/symbolizer.h"

#ifndef HWT_TEST_PROGRAMS_DIR
#error "HWT_TEST_PROGRAMS_DIR must point at the built testdata/programs"
#endif

namespace hwt::e2e {

std::string TestProgram(const std::string& name) {
  return std::string(HWT_TEST_PROGRAMS_DIR) + "/" + name;
}

absl::StatusOr<Truth> ReadTruth(const std::string& bundle) {
  Truth truth;
  HWT_ASSIGN_OR_RETURN(std::string summary_text,
                       ReadFileToString(bundle + "/truth/summary.json"));
  HWT_ASSIGN_OR_RETURN(truth.folded,
                       ReadFileToString(bundle + "/truth/folded.txt"));
  nlohmann::json summary = nlohmann::json::parse(summary_text, nullptr, false);
  if (summary.is_discarded()) {
    return absl::InvalidArgumentError(bundle + "/truth/summary.json: not JSON");
  }
  truth.instructions = summary.at("instructions").get<uint64_t>();
  truth.digest = summary.at("digest").get<std::string>();
  for (const auto& f : summary.at("functions")) {
    truth.functions[f.at("name").get<std::string>()] = {
        f.at("self").get<uint64_t>(), f.at("total").get<uint64_t>()};
  }
  for (const auto& e : summary.at("call_edges")) {
    truth.call_edges[{e.at("caller").get<std::string>(),
                      e.at("callee").get<std::string>()}] =
        e.at("count").get<uint64_t>();
  }
  return truth;
}

absl::StatusOr<std::unique_ptr<RecordedProgram>> RecordedProgram::Record(
    const std::vector<std::string>& argv, recorder::RecorderKind kind) {
  std::unique_ptr<RecordedProgram> program(new RecordedProgram());
  program->argv_ = argv;
  HWT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("hwt-e2e"));
  program->dir_ = std::make_unique<TempDir>(std::move(dir));
  recorder::EmulateOptions options;
  options.argv = argv;
  options.recorder = kind;
  options.cpu = recorder::DefaultEmulatedCpu();
  options.bundle = program->dir_->path() + "/default.hwt";
  options.stdout_path = "/dev/null";
  options.log = &program->log_;
  HWT_ASSIGN_OR_RETURN(program->result_, recorder::RecordCapture(options));
  program->bundle_ = options.bundle;
  return program;
}

absl::StatusOr<recorder::EmulateResult> RecordedProgram::Encode(
    const std::string& name, const recorder::PtEncoderOptions& encoder,
    const std::string& raw_trace) const {
  recorder::EmulateOptions options;
  options.argv = argv_;
  options.cpu = recorder::DefaultEmulatedCpu();
  options.encoder = encoder;
  options.bundle = dir_->path() + "/" + name + ".hwt";
  options.overwrite = true;
  options.raw_trace = raw_trace;
  options.replay = &log_;
  return recorder::RecordCapture(options);
}

uint64_t Decoded::total_instructions() const {
  uint64_t n = 0;
  for (const StreamStats& s : stats) n += s.instructions;
  return n;
}

uint64_t Decoded::total_errors() const {
  uint64_t n = 0;
  for (const StreamStats& s : stats) n += s.errors;
  return n;
}

uint64_t Decoded::total_overflows() const {
  uint64_t n = 0;
  for (const StreamStats& s : stats) n += s.overflows;
  return n;
}

namespace {

// Expands every block into its instructions as events arrive, following
// each buffer's address space through the trace.
class ExpandingSink : public EventSink {
 public:
  ExpandingSink(const capture::AddressSpaceTimeline& timeline,
                const std::vector<StreamInfo>& streams, Decoded* out)
      : out_(out) {
    auto files = std::make_shared<ImageFileCache>();
    for (const StreamInfo& stream : streams) {
      auto& s = streams_.emplace_back();
      s.memory =
          std::make_unique<MemoryImage>(timeline, stream.buffer_index, files);
      s.walker = std::make_unique<InsnWalker>(*s.memory);
    }
  }

  void OnEvents(uint32_t stream, absl::Span<const Event> events) override {
    if (stream >= streams_.size()) {
      out_->walk_errors.push_back(
          absl::StrCat("event of unknown stream ", stream));
      return;
    }
    Stream& s = streams_[stream];
    for (const Event& e : events) {
      if (e.kind == EventKind::kGap) out_->gaps.push_back(e);
      if (e.kind != EventKind::kBlock) continue;
      // As the decoder does: a change of the address space applies once the
      // decoder has read a byte at or after its position. A block's offset
      // is where the decoder stood when it began the block (libipt reads
      // ahead), so a change recorded at exactly that offset (an exec right
      // after its system call's TIP.PGD) comes after the block.
      if (e.offset > 0) s.memory->AdvanceTo(e.offset - 1);
      absl::Status status = s.walker->Expand(e, &s.instructions);
      if (!status.ok()) {
        out_->walk_errors.push_back(
            absl::StrCat(DescribeEvent(e), ": ", status.message()));
      }
    }
  }

  void Finish() {
    for (Stream& s : streams_) {
      out_->instructions.insert(out_->instructions.end(),
                                s.instructions.begin(), s.instructions.end());
    }
  }

 private:
  struct Stream {
    std::unique_ptr<MemoryImage> memory;
    std::unique_ptr<InsnWalker> walker;
    std::vector<uint64_t> instructions;
  };
  Decoded* out_;
  std::vector<Stream> streams_;
};

}  // namespace

absl::StatusOr<Decoded> DecodeInstructions(
    const std::string& path, const capture::InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<capture::Capture> capture,
                       capture::OpenCapture(path, options));
  HWT_ASSIGN_OR_RETURN(capture::AddressSpaceTimeline timeline,
                       capture::BuildAddressSpaceTimeline(*capture));
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(*capture, timeline, DecoderOptions{}));
  Decoded decoded;
  ExpandingSink sink(timeline, decoder->streams(), &decoded);
  HWT_RETURN_IF_ERROR(decoder->Decode(sink));
  sink.Finish();
  decoded.stats = decoder->stats();
  if (capture->manifest().backend == capture::Backend::kPt) {
    HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> counter,
                         CreateDecoder(*capture, timeline, DecoderOptions{}));
    std::string note;
    HWT_RETURN_IF_ERROR(counter->CountInstructions(&note));
    decoded.fast_stats = counter->stats();
  }
  return decoded;
}

absl::StatusOr<Profiled> ProfileWithSymbols(
    const std::string& path, const capture::InputOptions& options) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<capture::Capture> capture,
                       capture::OpenCapture(path, options));
  HWT_ASSIGN_OR_RETURN(capture::AddressSpaceTimeline timeline,
                       capture::BuildAddressSpaceTimeline(*capture));
  // Named as hwt-report names them: the timeline's images in a symbolizer,
  // frames through ProfileNames. The truth has real frames only: no inline
  // frames, and no line information is needed.
  symbolizer::SymbolizerOptions symbol_options;
  symbol_options.inline_frames = false;
  symbol_options.line_info = false;
  std::unique_ptr<symbolizer::Symbolizer> symbols =
      symbolizer::Symbolizer::Create(symbol_options);
  const std::vector<std::string> problems =
      pipeline::RegisterTimelineImages(timeline, *symbols);
  if (!problems.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        path,
        ": images the symbolizer cannot use: ", absl::StrJoin(problems, "; ")));
  }
  pipeline::SymbolizerResolver resolver(*symbols);
  HWT_ASSIGN_OR_RETURN(analysis::CaptureProfile captured,
                       analysis::ProfileCapture(*capture, timeline, resolver));

  Profiled out;
  out.stats = std::move(captured.stats);
  out.profile = std::move(captured.profile);
  report::SymbolizerProfileSymbols profile_symbols(symbols.get(), &timeline);
  report::ProfileNames names(profile_symbols);
  auto namer = [&names](const analysis::FrameKey& key) {
    return names.Name(key);
  };
  out.folded = report::FoldedStacks(out.profile.merged, namer);
  for (const analysis::FunctionStats& f : out.profile.functions) {
    if (f.total_insns == 0) continue;
    auto& [self, total] = out.functions[namer(f.frame)];
    self += f.self_insns;
    total += f.total_insns;
  }
  for (const analysis::CallEdge& e : out.profile.call_edges) {
    out.call_edges[{namer(e.caller), namer(e.callee)}] += e.count;
  }
  return out;
}

absl::StatusOr<std::vector<uint64_t>> ExecPositions(const std::string& path) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<capture::Capture> capture,
                       capture::OpenCapture(path, {}));
  HWT_ASSIGN_OR_RETURN(capture::AddressSpaceTimeline timeline,
                       capture::BuildAddressSpaceTimeline(*capture));
  std::vector<uint64_t> positions;
  if (timeline.buffer_count() == 0) return positions;
  for (const capture::AddressSpaceChange& c : timeline.changes(0)) {
    if (c.kind == capture::AddressSpaceChange::Kind::kResetUser) {
      positions.push_back(c.position);
    }
  }
  return positions;
}

absl::StatusOr<std::vector<uint64_t>> PacketOffsets(const std::string& path,
                                                    const std::string& prefix) {
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<capture::Capture> capture,
                       capture::OpenCapture(path, {}));
  HWT_ASSIGN_OR_RETURN(capture::AddressSpaceTimeline timeline,
                       capture::BuildAddressSpaceTimeline(*capture));
  HWT_ASSIGN_OR_RETURN(std::unique_ptr<TraceDecoder> decoder,
                       CreateDecoder(*capture, timeline, DecoderOptions{}));
  class Collect : public PacketSink {
   public:
    explicit Collect(const std::string& prefix) : prefix_(prefix) {}
    void OnPacket(uint32_t, uint64_t offset, std::string_view text) override {
      if (text.substr(0, prefix_.size()) == prefix_) offsets.push_back(offset);
    }
    std::vector<uint64_t> offsets;

   private:
    const std::string& prefix_;
  } sink(prefix);
  HWT_RETURN_IF_ERROR(decoder->ListPackets(sink));
  return sink.offsets;
}

std::string SequenceDifference(const std::vector<uint64_t>& actual,
                               const std::vector<uint64_t>& expected) {
  auto [a, e] = std::mismatch(actual.begin(), actual.end(), expected.begin(),
                              expected.end());
  if (a == actual.end() && e == expected.end()) return "";
  const size_t at = a - actual.begin();
  std::string out =
      absl::StrFormat("instruction %d differs (%d decoded, %d recorded):", at,
                      actual.size(), expected.size());
  for (size_t i = at >= 3 ? at - 3 : 0; i < at + 4; ++i) {
    absl::StrAppendFormat(
        &out, "\n  %d: decoded %s recorded %s%s", i,
        i < actual.size() ? absl::StrFormat("0x%x", actual[i]) : "-",
        i < expected.size() ? absl::StrFormat("0x%x", expected[i]) : "-",
        i == at ? "  <--" : "");
  }
  return out;
}

std::string TextDifference(const std::string& actual,
                           const std::string& expected) {
  if (actual == expected) return "";
  std::vector<std::string> a = absl::StrSplit(actual, '\n');
  std::vector<std::string> e = absl::StrSplit(expected, '\n');
  for (size_t i = 0; i < std::max(a.size(), e.size()); ++i) {
    const std::string got = i < a.size() ? a[i] : "(end)";
    const std::string want = i < e.size() ? e[i] : "(end)";
    if (got != want) {
      return absl::StrFormat("line %d:\n  actual:   %s\n  expected: %s", i + 1,
                             got, want);
    }
  }
  return "texts differ";
}

std::vector<uint64_t> WithoutLost(
    const std::vector<uint64_t>& instructions,
    const std::vector<recorder::PtLostRange>& lost) {
  std::vector<uint64_t> out;
  size_t next = 0;
  for (const recorder::PtLostRange& range : lost) {
    const size_t first = std::min<size_t>(range.first, instructions.size());
    if (first > next) {
      out.insert(out.end(), instructions.begin() + next,
                 instructions.begin() + first);
    }
    next = std::max<size_t>(
        next, std::min<size_t>(range.first + range.count, instructions.size()));
  }
  if (next < instructions.size()) {
    out.insert(out.end(), instructions.begin() + next, instructions.end());
  }
  return out;
}

}  // namespace hwt::e2e
