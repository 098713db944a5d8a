// The benchmark suite's main program (scripts/bench.sh runs it): for every
// trace, the bare libipt block decoder (baseline: shared image section
// cache, no output) and then our pipelines on the same data in the same
// process, each repeated and reported by its best wall time: MiB/s,
// M instructions/s, instructions per trace byte, peak memory and the speed
// ratio against the baseline. Parallel results are checked against jobs 1
// (the folded stacks must be byte-identical) and the program fails on a
// mismatch. Also CoreSight: on a snapshot, the bare OpenCSD library decode
// (baseline) and on the same data our decode and profile, and OpenCSD's
// trc_pkt_lister as a process.
//
//   hwt_bench [--data DIR] [--synthetic-mib N]... [--capture PATH]...
//             [--coresight SNAPSHOT_DIR] [--reps N] [--jobs N] [--only TEXT]
//             [--engine fast|libipt]
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/threads.h"
#include "bench/bare_opencsd.h"
#include "bench/bench_pipeline.h"
#include "capture/address_space.h"
#include "capture/capture.h"
#include "decoders/pt/pt_decoder.h"
#include "pipeline/symbolizer_resolver.h"
#include "pipeline/timeline_symbolizer.h"
#include "recorder/synthetic_capture.h"

extern char** environ;

namespace hwt::bench {
namespace {

// ---- measuring ----

double WallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Peak resident memory over a stretch of the run: VmHWM after resetting it
// (includes the pages of the mapped trace and images that were touched,
// which the kernel can drop at will), and the peak of anonymous memory
// (resident minus file-backed, sampled every 10 ms: heap, stacks, caches).
class PeakMemory {
 public:
  PeakMemory() {
    std::ofstream("/proc/self/clear_refs") << "5";
    sampler_ = std::thread([this] {
      while (!stop_) {
        Sample();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  ~PeakMemory() { Stop(); }
  void Stop() {
    if (sampler_.joinable()) {
      stop_ = true;
      sampler_.join();
      Sample();
    }
  }
  double hwm_mib() const { return ReadStatusKib("VmHWM:") / 1024.0; }
  double anon_mib() const { return peak_anon_pages_ * page_kib_ / 1024.0; }

 private:
  void Sample() {
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0, shared = 0;
    statm >> size >> resident >> shared;
    const uint64_t anon = resident > shared ? resident - shared : 0;
    if (anon > peak_anon_pages_) peak_anon_pages_ = anon;
  }
  static uint64_t ReadStatusKib(const std::string& key) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind(key, 0) == 0)
        return std::strtoull(line.c_str() + key.size(), nullptr, 10);
    }
    return 0;
  }
  std::thread sampler_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> peak_anon_pages_{0};
  const double page_kib_ = sysconf(_SC_PAGESIZE) / 1024.0;
};

struct Measurement {
  double wall = 1e30;  // best of the repetitions
  double wall_median = 0;
  double cpu = 0;  // of the best repetition
  uint64_t instructions = 0;
  double hwm_mib = 0;   // max over repetitions
  double anon_mib = 0;  // max over repetitions
};

// Runs `run` (returns instructions, or nullopt on failure) `reps` times.
std::optional<Measurement> Measure(
    int reps, const std::function<std::optional<uint64_t>()>& run) {
  Measurement m;
  std::vector<double> walls;
  for (int i = 0; i < reps; ++i) {
    malloc_trim(0);  // what earlier cases freed does not count here
    PeakMemory peak;
    const double wall0 = WallSeconds(), cpu0 = CpuSeconds();
    const std::optional<uint64_t> instructions = run();
    const double wall = WallSeconds() - wall0, cpu = CpuSeconds() - cpu0;
    peak.Stop();
    if (!instructions) return std::nullopt;
    walls.push_back(wall);
    if (wall < m.wall) {
      m.wall = wall;
      m.cpu = cpu;
    }
    m.instructions = *instructions;
    m.hwm_mib = std::max(m.hwm_mib, peak.hwm_mib());
    m.anon_mib = std::max(m.anon_mib, peak.anon_mib());
  }
  std::sort(walls.begin(), walls.end());
  m.wall_median = walls[walls.size() / 2];
  return m;
}

// ---- the table ----

void PrintHeader() {
  printf("  %-34s %8s %8s %8s %8s %8s %7s %9s %9s %7s\n", "case", "best s",
         "median s", "cpu s", "MiB/s", "Minsn/s", "insn/B", "peakRSS",
         "peakAnon", "vs base");
}

void PrintRow(const std::string& name, const Measurement& m, uint64_t bytes,
              double baseline_wall) {
  const double mib = bytes / 1048576.0;
  printf("  %-34s %8.3f %8.3f %8.3f %8.1f %8.1f %7.2f %8.0fM %8.0fM %6.2fx\n",
         name.c_str(), m.wall, m.wall_median, m.cpu, mib / m.wall,
         m.instructions / m.wall / 1e6,
         static_cast<double>(m.instructions) / std::max<uint64_t>(bytes, 1),
         m.hwm_mib, m.anon_mib, baseline_wall > 0 ? baseline_wall / m.wall : 0);
  fflush(stdout);
}

struct Settings {
  std::string data_dir;  // default: DefaultDataDir()
  std::vector<double> synthetic_mib;
  std::vector<std::string> captures;
  std::string coresight;
  int reps = 3;
  int jobs = 0;
  std::string only;
  // The --stats and --folded cases of one engine only (empty: both), e.g. to
  // profile one with perf; the libipt cases check the fast ones, so they run
  // by default.
  std::string engine;
};

bool Wanted(const Settings& settings, const std::string& name) {
  return settings.only.empty() || name.find(settings.only) != std::string::npos;
}

int failures = 0;

void Fail(const std::string& message) {
  fprintf(stderr, "hwt_bench: %s\n", message.c_str());
  ++failures;
}

// ---- PT ----

struct PtInput {
  std::string name;
  const capture::Capture* capture = nullptr;
  const capture::AddressSpaceTimeline* timeline = nullptr;
  analysis::FunctionResolver* resolver = nullptr;
  report::FrameNamer namer;
};

void RunPtCases(const Settings& settings, const PtInput& input) {
  uint64_t bytes = 0;
  for (const auto& buffer : input.capture->manifest().buffers) {
    bytes += buffer.size;
  }
  // At least 2 by default, so that the parallel cases run in parallel.
  const int jobs =
      settings.jobs > 0 ? settings.jobs : std::max(2, ResolveJobs(0));
  printf("\ntrace %s: %.1f MiB in %zu buffer(s)\n", input.name.c_str(),
         bytes / 1048576.0, input.capture->manifest().buffers.size());
  PrintHeader();

  const auto baseline =
      Measure(settings.reps, [&]() -> std::optional<uint64_t> {
        auto result = BareLibipt(*input.capture, *input.timeline);
        if (!result.ok()) {
          Fail(std::string(result.status().message()));
          return std::nullopt;
        }
        return result->instructions;
      });
  if (!baseline) return;
  PrintRow("libipt block decoder (baseline)", *baseline, bytes, baseline->wall);

  auto check_count = [&](const std::string& name, uint64_t instructions) {
    if (instructions != baseline->instructions) {
      printf("  note: %s counts %llu instructions, bare libipt %llu\n",
             name.c_str(), static_cast<unsigned long long>(instructions),
             static_cast<unsigned long long>(baseline->instructions));
    }
  };
  for (int j : {1, jobs}) {
    const std::string name = absl::StrFormat("decode --stats, jobs %d", j);
    if (!Wanted(settings, "stats") || settings.engine == "fast") break;
    DecoderOptions options;
    options.jobs = j;
    options.segment_bytes = pt::kDecodeSegmentBytes;  // as hwt-decode's
    DecodeResult last;
    const auto m = Measure(settings.reps, [&]() -> std::optional<uint64_t> {
      auto result = DecodeStats(*input.capture, *input.timeline, options);
      if (!result.ok()) {
        Fail(std::string(result.status().message()));
        return std::nullopt;
      }
      last = *result;
      return result->instructions;
    });
    if (!m) continue;
    PrintRow(name, *m, bytes, baseline->wall);
    if (last.segments > 1) {
      printf("  (%llu PSB segments: %llu committed, %llu dropped)\n",
             static_cast<unsigned long long>(last.segments),
             static_cast<unsigned long long>(last.committed),
             static_cast<unsigned long long>(last.dropped));
    }
    check_count(name, m->instructions);
    if (j == jobs) break;
  }
  for (int j : {1, jobs}) {
    // Every event on the fast engine, into nothing: what hwt-decode --stats
    // costs (its default engine).
    if (!Wanted(settings, "stats") || settings.engine == "libipt") break;
    const std::string name =
        absl::StrFormat("decode --stats, jobs %d, fast engine", j);
    DecoderOptions options;
    options.jobs = j;
    options.engine = DecoderEngine::kFast;
    const auto m = Measure(settings.reps, [&]() -> std::optional<uint64_t> {
      auto result = DecodeStats(*input.capture, *input.timeline, options);
      if (!result.ok()) {
        Fail(std::string(result.status().message()));
        return std::nullopt;
      }
      return result->instructions;
    });
    if (m) {
      PrintRow(name, *m, bytes, baseline->wall);
      check_count(name, m->instructions);
    }
    if (j == jobs) break;
  }
  if (Wanted(settings, "fast")) {
    const std::string name = "decode --stats --fast";
    DecodeResult last;
    const auto m = Measure(settings.reps, [&]() -> std::optional<uint64_t> {
      auto result = CountFast(*input.capture, *input.timeline, {});
      if (!result.ok()) {
        Fail(std::string(result.status().message()));
        return std::nullopt;
      }
      last = *result;
      return result->instructions;
    });
    if (m) {
      PrintRow(name, *m, bytes, baseline->wall);
      printf("  (%s)\n", last.fast_note.c_str());
      check_count(name, m->instructions);
    }
  }
  if (!Wanted(settings, "folded") || input.resolver == nullptr) return;
  // hwt-report --folded with `workers` and `engine`: its measurement, and
  // the folded stacks in `folded`.
  auto measure_folded = [&](int workers, DecoderEngine engine,
                            std::string* folded, std::string* note = nullptr) {
    analysis::CaptureProfileOptions options;
    options.jobs = workers;
    options.hot_paths = false;  // as hwt-report --folded
    options.engine = engine;
    return Measure(settings.reps, [&]() -> std::optional<uint64_t> {
      auto result = ProfileFolded(*input.capture, *input.timeline,
                                  *input.resolver, input.namer, options);
      if (!result.ok()) {
        Fail(std::string(result.status().message()));
        return std::nullopt;
      }
      *folded = std::move(result->folded);
      if (note != nullptr) *note = result->engine_note;
      return result->instructions;
    });
  };
  const DecoderEngine default_engine = analysis::CaptureProfileOptions().engine;
  std::string folded_jobs1;
  for (int j : {1, jobs}) {
    if (settings.engine == "libipt") break;
    const std::string name = absl::StrFormat("report --folded, jobs %d", j);
    std::string folded, note;
    const auto m = measure_folded(j, default_engine, &folded, &note);
    if (!m) continue;
    PrintRow(name, *m, bytes, baseline->wall);
    if (!note.empty()) printf("  (%s)\n", note.c_str());
    check_count(name, m->instructions);
    if (j == 1) {
      folded_jobs1 = folded;
      size_t lines = 0, deepest = 0, depth = 1;
      for (char c : folded) {
        if (c == ';') ++depth;
        if (c == '\n') {
          ++lines;
          deepest = std::max(deepest, depth);
          depth = 1;
        }
      }
      printf("  folded stacks: %zu lines, deepest %zu frames\n", lines,
             deepest);
      if (const char* out = getenv("HWT_BENCH_FOLDED_OUT")) {
        std::ofstream(out) << folded;
      }
    } else if (folded != folded_jobs1) {
      Fail(absl::StrFormat("%s: folded stacks of jobs %d differ from jobs 1",
                           input.name, j));
    } else {
      printf("  folded stacks of jobs %d == jobs 1 (%zu bytes)\n", j,
             folded.size());
    }
    if (j == jobs) break;
  }
  if (settings.engine == "fast") return;
  // The same with the libipt engine (hwt-report --decoder libipt): the fast
  // engine's reference, which must give the same folded stacks.
  std::string folded;
  const auto m = measure_folded(1, DecoderEngine::kLibipt, &folded);
  if (!m) return;
  PrintRow("report --folded, jobs 1, --decoder libipt", *m, bytes,
           baseline->wall);
  if (folded_jobs1.empty()) {
    folded_jobs1 = folded;  // --engine libipt: the reference
  } else if (folded != folded_jobs1) {
    Fail(absl::StrFormat("%s: folded stacks of the libipt engine differ",
                         input.name));
  }
  // The libipt engine in parallel segments: what --decoder auto weighs the
  // fast engine against when there are several workers.
  const std::string parallel_name =
      absl::StrFormat("report --folded, jobs %d, --decoder libipt", jobs);
  const auto parallel = measure_folded(jobs, DecoderEngine::kLibipt, &folded);
  if (!parallel) return;
  PrintRow(parallel_name, *parallel, bytes, baseline->wall);
  if (folded != folded_jobs1) {
    Fail(
        absl::StrFormat("%s: folded stacks of the parallel libipt engine "
                        "differ",
                        input.name));
  }
}

void RunSynthetic(const Settings& settings, double mib) {
  const std::string dir =
      absl::StrFormat("%s/synthetic-%gMiB", settings.data_dir, mib);
  recorder::SyntheticCaptureOptions options;
  options.target_bytes = static_cast<uint64_t>(mib * 1048576);
  // A call graph with a bounded number of distinct stacks, like a real
  // program's (the default synthetic program's random call DAG with
  // recursion has a number of distinct stacks that grows with the trace,
  // and so do the profile and the folded output).
  options.program.functions = 12;
  options.program.recursive_functions = 0;
  absl::StatusOr<recorder::SyntheticCapture> synthetic =
      recorder::OpenSyntheticCapture(dir, options.program);
  if (!synthetic.ok()) {
    mkdir(settings.data_dir.c_str(), 0755);
    mkdir(dir.c_str(), 0755);
    printf("\ngenerating a %g MiB synthetic trace in %s ...\n", mib,
           dir.c_str());
    fflush(stdout);
    synthetic = recorder::WriteSyntheticCapture(dir, options);
  }
  if (!synthetic.ok()) {
    Fail(std::string(synthetic.status().message()));
    return;
  }
  RangeResolver resolver = SyntheticResolver(*synthetic->program);
  PtInput input;
  input.resolver = &resolver;
  input.name = absl::StrFormat("synthetic %g MiB", mib);
  input.capture = synthetic->capture.get();
  input.timeline = &synthetic->timeline;
  input.namer = MakeNamer(nullptr, synthetic->timeline);
  RunPtCases(settings, input);
}

void RunCapture(const Settings& settings, const std::string& path) {
  auto capture = capture::OpenCapture(path, capture::InputOptions());
  if (!capture.ok()) {
    Fail(std::string(capture.status().message()));
    return;
  }
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  if (!timeline.ok()) {
    Fail(std::string(timeline.status().message()));
    return;
  }
  std::vector<std::string> warnings;
  auto symbols =
      pipeline::CreateSymbolizerForTimeline(*timeline, {}, &warnings);
  if (!symbols.ok()) {
    Fail(std::string(symbols.status().message()));
    return;
  }
  if ((*capture)->manifest().backend != capture::Backend::kPt) {
    Fail(path + ": not an Intel PT capture");
    return;
  }
  PtInput input;
  input.name = path;
  input.capture = capture->get();
  input.timeline = &*timeline;
  pipeline::SymbolizerResolver resolver(**symbols);
  input.resolver = &resolver;
  input.namer = MakeNamer(symbols->get(), *timeline);
  RunPtCases(settings, input);
}

// ---- CoreSight ----

// Wall seconds of a command with its output thrown away.
std::optional<double> TimeCommand(const std::vector<std::string>& argv) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const double start = WallSeconds();
  pid_t pid = 0;
  const int error =
      posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return std::nullopt;
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return WallSeconds() - start;
}

// CoreSight: the bare OpenCSD decode (baseline, bare_opencsd.h), then on
// the same data in the same process hwt-decode --stats and hwt-report
// --folded (jobs 1 and N), and OpenCSD's trc_pkt_lister as a process.
void RunCoreSight(const Settings& settings) {
  auto capture =
      capture::OpenCapture(settings.coresight, capture::InputOptions());
  if (!capture.ok()) {
    Fail(std::string(capture.status().message()));
    return;
  }
  auto timeline = capture::BuildAddressSpaceTimeline(**capture);
  if (!timeline.ok()) {
    Fail(std::string(timeline.status().message()));
    return;
  }
  uint64_t bytes = 0;
  for (const auto& buffer : (*capture)->manifest().buffers)
    bytes += buffer.size;
  const int jobs =
      settings.jobs > 0 ? settings.jobs : std::max(2, ResolveJobs(0));
  printf("\nCoreSight snapshot %s: %.2f MiB of trace\n",
         settings.coresight.c_str(), bytes / 1048576.0);
  PrintHeader();
  BareOpenCsdResult bare_last;
  const auto baseline =
      Measure(settings.reps, [&]() -> std::optional<uint64_t> {
        auto result = BareOpenCsd(**capture, *timeline);
        if (!result.ok()) {
          Fail(std::string(result.status().message()));
          return std::nullopt;
        }
        bare_last = *result;
        return result->instructions;
      });
  if (!baseline) return;
  PrintRow("bare OpenCSD C API (baseline)", *baseline, bytes, baseline->wall);
  printf(
      "  (%llu elements, %llu memory accessors, %llu overlapping ones "
      "refused, %llu fatal responses)\n",
      static_cast<unsigned long long>(bare_last.elements),
      static_cast<unsigned long long>(bare_last.regions),
      static_cast<unsigned long long>(bare_last.overlapping),
      static_cast<unsigned long long>(bare_last.fatal));
  auto check_count = [&](const std::string& name, uint64_t instructions) {
    if (instructions != baseline->instructions) {
      printf("  note: %s counts %llu instructions, bare OpenCSD %llu\n",
             name.c_str(), static_cast<unsigned long long>(instructions),
             static_cast<unsigned long long>(baseline->instructions));
    }
  };
  if (Wanted(settings, "stats")) {
    DecoderOptions options;
    options.jobs = 1;
    const auto ours = Measure(settings.reps, [&]() -> std::optional<uint64_t> {
      auto result = DecodeStats(**capture, *timeline, options);
      if (!result.ok()) {
        Fail(std::string(result.status().message()));
        return std::nullopt;
      }
      return result->instructions;
    });
    if (ours) {
      PrintRow("decode --stats, jobs 1", *ours, bytes, baseline->wall);
      check_count("decode --stats", ours->instructions);
    }
  }
  if (Wanted(settings, "folded")) {
    // hwt-report --folded as it runs on the snapshot: the symbolizer over
    // the timeline's images names the frames and gives the functions.
    std::vector<std::string> warnings;
    auto symbols =
        pipeline::CreateSymbolizerForTimeline(*timeline, {}, &warnings);
    if (!symbols.ok()) {
      Fail(std::string(symbols.status().message()));
      return;
    }
    pipeline::SymbolizerResolver resolver(**symbols);
    const report::FrameNamer namer = MakeNamer(symbols->get(), *timeline);
    std::string folded_jobs1;
    for (int j : {1, jobs}) {
      analysis::CaptureProfileOptions options;
      options.jobs = j;
      options.hot_paths = false;  // as hwt-report --folded
      std::string folded;
      const auto m = Measure(settings.reps, [&]() -> std::optional<uint64_t> {
        auto result =
            ProfileFolded(**capture, *timeline, resolver, namer, options);
        if (!result.ok()) {
          Fail(std::string(result.status().message()));
          return std::nullopt;
        }
        folded = std::move(result->folded);
        return result->instructions;
      });
      if (!m) break;
      const std::string name = absl::StrFormat("report --folded, jobs %d", j);
      PrintRow(name, *m, bytes, baseline->wall);
      check_count(name, m->instructions);
      if (j == 1) {
        folded_jobs1 = folded;
        printf("  folded stacks: %zu lines\n",
               static_cast<size_t>(
                   std::count(folded.begin(), folded.end(), '\n')));
      } else if (folded != folded_jobs1) {
        Fail(absl::StrFormat("%s: folded stacks of jobs %d differ from jobs 1",
                             settings.coresight, j));
      }
      if (j == jobs) break;
    }
  }
  if (!Wanted(settings, "lister")) return;
  Measurement lister;
  std::vector<double> walls;
  for (int i = 0; i < settings.reps; ++i) {
    const auto wall =
        TimeCommand({"trc_pkt_lister", "-ss_dir", settings.coresight, "-decode",
                     "-no_time_print", "-logfilename", "/dev/null"});
    if (!wall) break;
    walls.push_back(*wall);
  }
  if (walls.empty()) {
    printf("  trc_pkt_lister not available or failed: no reference time\n");
    return;
  }
  std::sort(walls.begin(), walls.end());
  lister.wall = walls.front();
  lister.wall_median = walls[walls.size() / 2];
  lister.instructions = baseline->instructions;
  PrintRow("trc_pkt_lister -decode (process)", lister, bytes, baseline->wall);
  printf(
      "  (trc_pkt_lister: wall time of the process, output to /dev/null;"
      " its instruction count taken from the baseline)\n");
}

// bench-data/ of the build tree this program was built in (bench/hwt_bench
// sits in BUILD/bench/), where scripts/bench.sh keeps the inputs too: no
// fixed folder outside the build tree that two checkouts would share.
std::string DefaultDataDir() {
  std::error_code error;
  const std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "bench-data";
  return (exe.parent_path().parent_path() / "bench-data").string();
}

int Main(int argc, char** argv) {
  Settings settings;
  settings.data_dir = DefaultDataDir();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "hwt_bench: %s needs a value\n", arg.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (arg == "--data") {
      settings.data_dir = value();
    } else if (arg == "--synthetic-mib") {
      settings.synthetic_mib.push_back(std::atof(value().c_str()));
    } else if (arg == "--capture") {
      settings.captures.push_back(value());
    } else if (arg == "--coresight") {
      settings.coresight = value();
    } else if (arg == "--reps") {
      settings.reps = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--jobs") {
      settings.jobs = std::atoi(value().c_str());
    } else if (arg == "--only") {
      settings.only = value();
    } else if ((arg == "--engine" || arg == "--folded-engine") &&
               (i + 1 < argc && (std::string(argv[i + 1]) == "fast" ||
                                 std::string(argv[i + 1]) == "libipt"))) {
      settings.engine = value();
    } else {
      fprintf(stderr,
              "usage: hwt_bench [--data DIR] [--synthetic-mib N]... "
              "[--capture PATH]... [--coresight SNAPSHOT] [--reps N] "
              "[--jobs N] [--only TEXT] [--engine fast|libipt]\n");
      return 2;
    }
  }
  if (settings.synthetic_mib.empty() && settings.captures.empty() &&
      settings.coresight.empty()) {
    settings.synthetic_mib.push_back(16);
  }
  printf(
      "hwt_bench: %u cores, %d repetitions per case (best and median wall "
      "time; MiB/s and Minsn/s from the best), vs base = baseline wall / "
      "case wall\n",
      std::thread::hardware_concurrency(), settings.reps);
  for (double mib : settings.synthetic_mib) RunSynthetic(settings, mib);
  for (const std::string& path : settings.captures) RunCapture(settings, path);
  if (!settings.coresight.empty()) RunCoreSight(settings);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hwt::bench

int main(int argc, char** argv) { return hwt::bench::Main(argc, argv); }
