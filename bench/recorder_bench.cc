// recorder_bench: how fast hwt-emulate records, on a static and a dynamically
// linked program of at least 50 M instructions (testdata/programs/fib.c),
// and where the time goes. For each program, in the same process on the
// same run:
//   run       the program under valgrind with the hwttrace tool, its trace
//             read and discarded (the floor: valgrind's own cost);
//   record    RecordWithValgrind into a sink that keeps nothing (+ parsing);
//   emulate   RecordCapture: record, ground truth, PT encoding, bundle write
//             (what `hwt-emulate -o x.hwt -- PROG` does);
//   ptrace    the ptrace recorder on the first --ptrace-instructions of the
//             same program (its rate; the ratio is emulate's rate over it).
// Wall-clock seconds (valgrind runs in a grandchild, so the CPU time of
// children would miss it); the load average is printed with them.
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/progress.h"
#include "recorder/emulate.h"
#include "recorder/ptrace_recorder.h"
#include "recorder/valgrind_recorder.h"

namespace hwt::recorder {
namespace {

// Wall seconds of `body`.
double Time(const std::function<void()>& body) {
  auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Discard : ExecutionSink {
  void OnMapping(const MappingEvent&) override {}
  void OnInstructions(absl::Span<const uint64_t>) override {}
};

void Fail(const std::string& what, const absl::Status& status) {
  fprintf(stderr, "recorder_bench: %s: %s\n", what.c_str(),
          std::string(status.message()).c_str());
  exit(3);
}

void Print(const char* what, double seconds, uint64_t instructions) {
  printf("  %-8s %8.2f s  %8.2f M instructions/s\n", what, seconds,
         instructions / seconds / 1e6);
}

void Bench(const std::string& program, const std::string& argument,
           uint64_t ptrace_instructions, const std::string& dir) {
  const std::vector<std::string> argv = {
      absl::StrCat(HWT_TEST_PROGRAMS_DIR, "/", program), argument};
  ValgrindRecorderOptions valgrind;
  valgrind.argv = argv;
  valgrind.stdout_path = "/dev/null";
  double run = Time([&] {
    auto status = RunUnderValgrind(valgrind);
    if (!status.ok()) Fail(program, status.status());
  });
  RecordingStats recorded;
  double record = Time([&] {
    Discard sink;
    auto stats = RecordWithValgrind(valgrind, sink);
    if (!stats.ok()) Fail(program, stats.status());
    recorded = *stats;
  });
  EmulateOptions options;
  options.argv = argv;
  options.recorder = RecorderKind::kValgrind;
  options.cpu = DefaultEmulatedCpu();
  options.stdout_path = "/dev/null";
  options.bundle = dir + "/" + program + ".hwt";
  EmulateResult result;
  double emulate = Time([&] {
    auto r = RecordCapture(options);
    if (!r.ok()) Fail(program, r.status());
    result = *r;
  });
  PtraceRecorderOptions ptrace;
  ptrace.argv = argv;
  ptrace.stdout_path = "/dev/null";
  ptrace.max_instructions = ptrace_instructions;
  double stepped = Time([&] {
    Discard sink;
    auto stats = RecordWithPtrace(ptrace, sink);
    if (!stats.ok()) Fail(program, stats.status());
  });

  const uint64_t n = result.truth_instructions;
  printf(
      "%s %s: %llu instructions (%s)%s\n", program.c_str(), argument.c_str(),
      static_cast<unsigned long long>(n),
      FormatBytes(result.encoder.bytes).c_str(),
      n < 50'000'000 ? "  [below the 50 M instructions the figures need]" : "");
  Print("run", run, recorded.instructions);
  Print("record", record, recorded.instructions);
  Print("emulate", emulate, n);
  Print("ptrace", stepped, ptrace_instructions);
  printf(
      "  the recorder's own part (emulate - run): %.0f%%; emulate/ptrace: "
      "%.0fx\n",
      100.0 * (emulate - run) / emulate,
      (n / emulate) / (ptrace_instructions / stepped));
}

}  // namespace
}  // namespace hwt::recorder

int main(int argc, char** argv) {
  std::string argument = argc > 1 ? argv[1] : "31";
  uint64_t ptrace_instructions = 200'000;
  auto dir = hwt::TempDir::Create("hwt-recorder-bench");
  if (!dir.ok()) hwt::recorder::Fail("temporary directory", dir.status());
  auto load = hwt::ReadFileToString("/proc/loadavg");
  printf("load average: %s", load.ok() ? load->c_str() : "unknown\n");
  for (const char* program : {"fib_static", "fib_dynamic"}) {
    hwt::recorder::Bench(program, argument, ptrace_instructions, dir->path());
  }
  return 0;
}
