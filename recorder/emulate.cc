// Implementation of RecordCapture(); see emulate.h.
#include "recorder/emulate.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/bundle_writer.h"
#include "recorder/code_map.h"
#include "recorder/execution.h"
#include "recorder/ground_truth.h"
#include "recorder/ptrace_recorder.h"
#include "recorder/valgrind_recorder.h"

namespace hwt::recorder {
namespace {

// Keeps the encoder's CodeMap in step with the mapping events. It must come
// before the encoder in the tee: the encoder reads code through the map.
class MappingFollower : public ExecutionSink {
 public:
  explicit MappingFollower(CodeMap* map) : map_(map) {}
  void OnMapping(const MappingEvent& event) override {
    absl::Status status = map_->Apply(event);
    if (!status.ok() && status_.ok()) status_ = status;
  }
  void OnInstructions(absl::Span<const uint64_t>) override {}
  const absl::Status& status() const { return status_; }

 private:
  CodeMap* map_;
  absl::Status status_;
};

// The creation time; SOURCE_DATE_EPOCH (seconds) replaces the clock, as in
// reproducible builds, so that a committed capture can be made again
// byte for byte (scripts/make-demo.sh).
std::string NowRfc3339() {
  time_t now = time(nullptr);
  if (const char* epoch = getenv("SOURCE_DATE_EPOCH")) {
    int64_t seconds = 0;
    if (absl::SimpleAtoi(epoch, &seconds)) now = static_cast<time_t>(seconds);
  }
  struct tm tm;
  gmtime_r(&now, &tm);
  char text[32];
  strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string HostDescription() {
  struct utsname u;
  if (uname(&u) != 0) return "";
  return absl::StrFormat("%s %s %s", u.sysname, u.release, u.machine);
}

std::string HostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

capture::Manifest BuildManifest(const EmulateOptions& options,
                                const PtEncoder& encoder,
                                const std::string& recorder_name) {
  capture::Manifest m;
  m.backend = capture::Backend::kPt;
  m.mode = capture::TraceMode::kThread;
  m.command = absl::StrJoin(options.argv, " ");
  m.hostname = HostName();
  m.os = HostDescription();
  m.created = NowRfc3339();
  m.recorder = "hwt-emulate (" + recorder_name + ")";
  m.cpu = options.cpu;
  const PtTimingOptions& timing = options.encoder.timing;
  if (timing.any()) {
    m.cpu.cpuid_15_eax = timing.cpuid_15_eax;
    m.cpu.cpuid_15_ebx = timing.cpuid_15_ebx;
  }
  m.pt = encoder.pt_config();
  return m;
}

}  // namespace

void ExecutionLog::Replay(ExecutionSink& sink) const {
  sink.OnStart(info_);
  const bool with_lengths = lengths_.size() == instructions_.size();
  auto deliver = [&](size_t from, size_t to) {
    if (to <= from) return;
    auto ips = absl::MakeConstSpan(instructions_).subspan(from, to - from);
    if (with_lengths) {
      sink.OnInstructionsWithLengths(
          ips, absl::MakeConstSpan(lengths_).subspan(from, to - from));
    } else {
      sink.OnInstructions(ips);
    }
  };
  size_t done = 0;
  for (const Mapping& mapping : mappings_) {
    deliver(done, mapping.before);
    done = std::max(done, mapping.before);
    sink.OnMapping(mapping.event);
  }
  deliver(done, instructions_.size());
  if (exit_status_) sink.OnExit(*exit_status_);
}

capture::CpuIdentity DefaultEmulatedCpu() {
  capture::CpuIdentity cpu;
  cpu.arch = "x86_64";
  cpu.vendor = "GenuineIntel";
  cpu.family = 6;
  cpu.model = 85;
  cpu.stepping = 4;
  return cpu;
}

namespace {

absl::StatusOr<EmulateResult> RecordWith(const EmulateOptions& options);

void Notify(const EmulateOptions& options, const std::string& message) {
  if (options.notify) options.notify(message);
}

}  // namespace

absl::StatusOr<EmulateResult> RecordCapture(const EmulateOptions& options) {
  if (options.replay != nullptr || options.recorder != RecorderKind::kAuto) {
    return RecordWith(options);
  }
  EmulateOptions chosen = options;
  absl::Status valgrind = ValgrindRecorderAvailable();
  if (!valgrind.ok()) {
    Notify(options, absl::StrCat("recording with ptrace single-stepping (about "
                                 "20k instructions/s): the valgrind recorder "
                                 "is not available: ",
                                 valgrind.message()));
    chosen.recorder = RecorderKind::kPtrace;
    return RecordWith(chosen);
  }
  Notify(options,
         "recording with valgrind (the hwttrace tool: exact, millions of "
         "instructions/s)");
  chosen.recorder = RecorderKind::kValgrind;
  absl::StatusOr<EmulateResult> result = RecordWith(chosen);
  if (result.ok() || !PtraceCanRecordInstead(result.status())) return result;
  Notify(options, absl::StrCat(result.status().message(),
                               "; recording again with ptrace "
                               "single-stepping (the program runs again)"));
  if (options.log != nullptr) options.log->Clear();
  chosen.recorder = RecorderKind::kPtrace;
  return RecordWith(chosen);
}

namespace {

absl::StatusOr<EmulateResult> RecordWith(const EmulateOptions& options) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("no program to record");
  }
  if (options.bundle.empty()) {
    return absl::InvalidArgumentError("no output bundle given");
  }
  HWT_ASSIGN_OR_RETURN(TempDir work, TempDir::Create("hwt-emulate"));
  const std::string vdso_dump = work.path() + "/vdso.so";

  CodeMapOptions map_options;
  map_options.path_aliases["[vdso]"] = vdso_dump;
  CodeMap code_map(map_options);
  MappingFollower follower(&code_map);
  std::string trace;
  PtEncoder encoder(&code_map, options.encoder, StringWriter(&trace));
  GroundTruth truth(map_options);
  std::vector<ExecutionSink*> sinks = {&follower, &encoder, &truth};
  if (options.log != nullptr) sinks.push_back(options.log);
  TeeExecutionSink tee(std::move(sinks));

  EmulateResult result;
  std::string recorder_name;
  if (options.replay != nullptr) {
    recorder_name = options.replay->info().recorder;
    if (!options.replay->vdso.empty()) {
      HWT_RETURN_IF_ERROR(WriteFileAtomically(vdso_dump, options.replay->vdso));
    }
    options.replay->Replay(tee);
    result.recording = options.replay->stats;
  } else if (options.recorder == RecorderKind::kPtrace) {
    recorder_name = "ptrace-singlestep";
    PtraceRecorderOptions ptrace;
    ptrace.argv = options.argv;
    ptrace.vdso_dump_path = vdso_dump;
    ptrace.stdin_path = options.stdin_path;
    ptrace.stdout_path = options.stdout_path;
    ptrace.max_instructions = options.max_instructions;
    HWT_ASSIGN_OR_RETURN(result.recording, RecordWithPtrace(ptrace, tee));
  } else {
    recorder_name = "valgrind-hwttrace";
    ValgrindRecorderOptions valgrind;
    valgrind.argv = options.argv;
    valgrind.stdin_path = options.stdin_path;
    valgrind.stdout_path = options.stdout_path;
    valgrind.cpu = options.cpu;
    valgrind.max_instructions = options.max_instructions;
    HWT_ASSIGN_OR_RETURN(result.recording, RecordWithValgrind(valgrind, tee));
  }
  result.recorder = recorder_name;
  if (options.log != nullptr) {
    options.log->stats = result.recording;
    auto vdso = ReadFileToString(vdso_dump);
    if (vdso.ok()) options.log->vdso = std::move(*vdso);
  }
  HWT_RETURN_IF_ERROR(follower.status());
  HWT_RETURN_IF_ERROR(encoder.Finish());
  HWT_RETURN_IF_ERROR(truth.status());
  result.encoder = encoder.stats();
  result.truth_instructions = truth.instructions();

  capture::BundleContents contents;
  contents.manifest = BuildManifest(options, encoder, recorder_name);
  contents.records = encoder.records();
  capture::BufferContents buffer;
  buffer.info.id = 0;
  buffer.info.thread = 0;
  buffer.data = trace;
  contents.buffers.push_back(std::move(buffer));
  if (options.copy_images) {
    std::set<std::string> seen;
    for (const MappedImage& image : code_map.images()) {
      if (!seen.insert(image.recorded_path).second) continue;
      capture::ImageToBundle copy;
      copy.source_file = image.file;
      copy.original_path = image.recorded_path;
      contents.images.push_back(std::move(copy));
    }
  }
  contents.extra_files.emplace_back("truth/summary.json", truth.SummaryJson());
  contents.extra_files.emplace_back("truth/folded.txt", truth.FoldedStacks());
  if (!encoder.stats().lost.empty()) {
    std::string lost = "first_instruction count\n";
    for (const PtLostRange& range : encoder.stats().lost) {
      lost += absl::StrFormat("%u %u\n", range.first, range.count);
    }
    contents.extra_files.emplace_back("truth/lost.txt", lost);
  }
  HWT_RETURN_IF_ERROR(
      capture::WriteBundle(options.bundle, contents, options.overwrite));
  if (!options.raw_trace.empty()) {
    HWT_RETURN_IF_ERROR(WriteFileAtomically(options.raw_trace, trace));
  }
  result.bundle = options.bundle;
  return result;
}

}  // namespace

}  // namespace hwt::recorder
