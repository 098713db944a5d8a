// batch_bench: how fast hwt-batch runs and merges (issue 13 §6), measured
// as a user sees it: the real hwt-batch binary started with posix_spawn,
// its wall time, its CPU time and peak resident memory from wait4 (which
// include the worker processes it has reaped: their CPU is added, their
// peak RSS is the largest of the processes). scripts/bench.sh --batch runs
// it. Cases, each repeated, best and median reported:
//   run   a directory of many tiny captures (hard-linked copies of one
//         recording: the per-capture overhead) and of a few large ones,
//         each with --jobs 1 and --jobs 2, into a fresh OUTDIR every time
//         (a rerun over an existing OUTDIR would resume, not analyse), and
//         two independent --jobs 1 batches over half the large ones each,
//         started together: the machine's ceiling for two processes;
//   merge `hwt-batch merge` of 1, 10, 100 and 1,000 saved profiles of one
//         program, and of each result alone: memory follows the merged
//         profile, not the number of inputs.
// The per-capture overhead is the tiny batch's wall time over its count
// minus the analysis of that capture timed in this process (the same call
// a worker makes, pipeline::AnalyseCapture, best of many), so what is left is
// worker start, job and row traffic, the profile write, and the final merge
// and summary, per capture. Every run is checked: exit status 0, every
// capture "ok" and none resumed; every merge holds as many captures as it
// was given.
//
//   batch_bench --tiny CAPTURE --large CAPTURE [--data DIR] [--reps N]
//               [--small-count N] [--large-count N] [--merge-count N]
//               [--hwt-batch PATH] [--only run|merge]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "analysis/saved/profile_file.h"
#include "nlohmann/json.hpp"
#include "pipeline/capture_analysis.h"

extern char** environ;

namespace hwt::bench {
namespace {

namespace fs = std::filesystem;

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double Best(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

int failures = 0;

void Fail(const std::string& message) {
  fprintf(stderr, "batch_bench: %s\n", message.c_str());
  ++failures;
}

// ---- a child process ----

struct ChildRun {
  double wall = 0;      // s, spawn to reaped
  double cpu = 0;       // s, user + system, reaped descendants included
  double rss_mib = 0;   // ru_maxrss: the largest of it and its reaped ones
  bool ok = false;      // exited with status 0
  std::string message;  // why not, with the end of its stderr
};

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

// Commands started together and waited for together: `wall` is from the
// first start to the last end, `cpu` and `rss_mib` of all of them (sum,
// largest). Each has stdout to /dev/null and stderr to its `err_paths`
// entry.
ChildRun RunAll(const std::vector<std::vector<std::string>>& commands,
                const std::vector<std::string>& err_paths) {
  ChildRun r;
  r.ok = true;
  std::vector<pid_t> pids;
  const double start = Now();
  for (size_t i = 0; i < commands.size(); ++i) {
    const std::vector<std::string>& argv = commands[i];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, err_paths[i].c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int error =
        posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) {
      r.ok = false;
      r.message =
          absl::StrFormat("cannot start %s: %s", argv[0], std::strerror(error));
      pid = -1;
    }
    pids.push_back(pid);
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    if (pids[i] < 0) continue;
    int status = 0;
    rusage usage{};
    while (wait4(pids[i], &status, 0, &usage) < 0 && errno == EINTR) {
    }
    auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
    r.cpu += seconds(usage.ru_utime) + seconds(usage.ru_stime);
    // KiB on Linux and FreeBSD.
    r.rss_mib = std::max(r.rss_mib, usage.ru_maxrss / 1024.0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      const std::vector<std::string>& argv = commands[i];
      r.ok = false;
      r.message = absl::StrFormat(
          "%s %s: %s\n%s", argv[0], argv.size() > 1 ? argv[1] : "",
          WIFEXITED(status) ? absl::StrFormat("exit %d", WEXITSTATUS(status))
                            : absl::StrFormat("signal %d", WTERMSIG(status)),
          Tail(err_paths[i]));
    }
  }
  r.wall = Now() - start;
  return r;
}

ChildRun Run(const std::vector<std::string>& argv,
             const std::string& err_path) {
  return RunAll({argv}, {err_path});
}

// ---- inputs ----

// DIR/PREFIXnnnn.hwt for i < count, each a copy of `capture` (hard links
// where the file system allows: the same bytes, distinct paths, so distinct
// captures to hwt-batch). Kept between runs; extra entries are removed.
bool MakeCopies(const std::string& capture, const std::string& dir, int count,
                std::vector<std::string>* paths) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::vector<std::string> wanted;
  for (int i = 0; i < count; ++i) {
    wanted.push_back(absl::StrFormat("%s/c%04d.hwt", dir, i));
  }
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (std::find(wanted.begin(), wanted.end(), e.path().string()) ==
        wanted.end()) {
      fs::remove_all(e.path(), ec);
    }
  }
  for (const std::string& path : wanted) {
    if (fs::exists(path)) continue;
    const std::string tmp = path + ".tmp";
    fs::remove_all(tmp, ec);
    fs::copy(capture, tmp,
             fs::copy_options::recursive | fs::copy_options::create_hard_links,
             ec);
    if (ec) {  // another file system: copy the bytes
      fs::remove_all(tmp, ec);
      ec.clear();
      fs::copy(capture, tmp, fs::copy_options::recursive, ec);
    }
    if (!ec) fs::rename(tmp, path, ec);
    if (ec) {
      Fail(absl::StrFormat("cannot copy %s to %s: %s", capture, path,
                           ec.message()));
      return false;
    }
  }
  if (paths != nullptr) *paths = wanted;
  return true;
}

uint64_t TreeBytes(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return fs::file_size(path, ec);
  uint64_t total = 0;
  for (const fs::directory_entry& e :
       fs::recursive_directory_iterator(path, ec)) {
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  }
  return total;
}

// ---- hwt-batch run ----

struct Settings {
  std::string hwt_batch;
  std::string data;  // --data; default $TMPDIR (or /tmp)/hwt-batch-bench
  std::string tiny, large;
  int reps = 3;
  int small_count = 200;
  int large_count = 8;
  int merge_count = 1000;
  std::string only;  // "run" or "merge"; empty: both
};

// Whether OUTDIR's summary says every one of `count` captures was analysed
// now and is ok; `row_wall` receives the mean of the rows' wall_s (the
// workers' own timing of one capture: analysis and profile write).
bool CheckSummary(const std::string& outdir, int count, double* row_wall) {
  std::ifstream in(outdir + "/summary.json");
  auto json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded() || !json.contains("rows")) {
    Fail(outdir + "/summary.json: missing or not JSON");
    return false;
  }
  const auto& rows = json["rows"];
  int ok = 0;
  double wall = 0;
  for (const auto& row : rows) {
    if (row.value("status", "") == "ok" && !row.value("resumed", true)) ++ok;
    wall += row.value("wall_s", 0.0);
  }
  if (static_cast<int>(rows.size()) != count || ok != count) {
    Fail(absl::StrFormat("%s: %d rows, %d ok and analysed now; expected %d",
                         outdir, rows.size(), ok, count));
    return false;
  }
  if (row_wall != nullptr) *row_wall = wall / count;
  return true;
}

struct Series {
  std::vector<double> walls;
  double cpu_of_best = 0;
  double row_wall_of_best = 0;
  double rss_mib = 0;  // max over repetitions
  void Add(const ChildRun& r, double row_wall) {
    if (walls.empty() || r.wall < Best(walls)) {
      cpu_of_best = r.cpu;
      row_wall_of_best = row_wall;
    }
    walls.push_back(r.wall);
    rss_mib = std::max(rss_mib, r.rss_mib);
  }
};

// `hwt-batch run --jobs J` over each of `inputs` (a directory or @FILE)
// into its own fresh OUTDIR, all started at once; `counts` are how many
// captures each must hold.
bool RunBatches(const Settings& s, const std::vector<std::string>& inputs,
                const std::vector<int>& counts, int jobs, Series* series) {
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> outdirs, errs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    outdirs.push_back(absl::StrFormat("%s/out%d", s.data, i));
    errs.push_back(absl::StrFormat("%s/stderr%d.txt", s.data, i));
    std::error_code ec;
    fs::remove_all(outdirs.back(), ec);  // fresh: nothing to resume
    commands.push_back({s.hwt_batch, "run", "-q", "--no-progress", "--jobs",
                        std::to_string(jobs), "-o", outdirs.back(), inputs[i]});
  }
  const ChildRun r = RunAll(commands, errs);
  if (!r.ok) {
    Fail(r.message);
    return false;
  }
  double row_wall = 0;
  int total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    double wall = 0;
    if (!CheckSummary(outdirs[i], counts[i], &wall)) return false;
    row_wall += wall * counts[i];
    total += counts[i];
  }
  if (series != nullptr) series->Add(r, row_wall / total);
  return true;
}

bool RunBatch(const Settings& s, const std::string& inputs, int count, int jobs,
              Series* series) {
  return RunBatches(s, {inputs}, {count}, jobs, series);
}

void PrintRunHeader() {
  printf("  %-30s %8s %8s %8s %9s %10s %10s\n", "case", "best s", "median s",
         "cpu s", "peakRSS", "ms/capture", "worker ms");
}

void PrintRunRow(const std::string& name, const Series& m, int count) {
  printf("  %-30s %8.3f %8.3f %8.3f %8.0fM %10.2f %10.2f\n", name.c_str(),
         Best(m.walls), Median(m.walls), m.cpu_of_best, m.rss_mib,
         1000 * Best(m.walls) / count, 1000 * m.row_wall_of_best);
  fflush(stdout);
}

// The analysis of one capture in this process, as a worker does it (one
// thread), and the profile write; best of `reps`.
struct InProcess {
  double analyse = 1e30, write = 1e30;
};

std::optional<InProcess> TimeAnalysis(const Settings& s, int reps) {
  InProcess t;
  pipeline::AnalyseOptions options;
  options.jobs = 1;
  options.save.name = "bench";
  options.save.fingerprint = "bench";
  options.save.writer = "batch_bench";
  const std::string out = s.data + "/one.hwtprof";
  for (int i = 0; i < reps; ++i) {
    const double t0 = Now();
    auto analysed = pipeline::AnalyseCapture(s.tiny, options);
    const double t1 = Now();
    if (!analysed.ok()) {
      Fail(std::string(analysed.status().message()));
      return std::nullopt;
    }
    absl::Status written = analysis::WriteProfileFile(out, analysed->profile);
    const double t2 = Now();
    if (!written.ok()) {
      Fail(std::string(written.message()));
      return std::nullopt;
    }
    t.analyse = std::min(t.analyse, t1 - t0);
    t.write = std::min(t.write, t2 - t1);
  }
  return t;
}

void RunCases(const Settings& s) {
  const std::string small = s.data + "/small", large = s.data + "/large";
  std::vector<std::string> large_paths;
  if (!MakeCopies(s.tiny, small, s.small_count, nullptr) ||
      !MakeCopies(s.large, large, s.large_count, &large_paths)) {
    return;
  }
  // The machine's own ceiling for two processes: two independent batches
  // with --jobs 1, each over half of the large captures (@FILE lists),
  // started at once. What --jobs 2 loses beyond that is hwt-batch's.
  std::vector<std::string> halves;
  std::vector<int> half_counts;
  for (int h = 0; h < 2; ++h) {
    const std::string list = absl::StrFormat("%s/large-half%d.list", s.data, h);
    std::ofstream out(list);
    int n = 0;
    for (size_t i = h; i < large_paths.size(); i += 2, ++n) {
      out << large_paths[i] << "\n";
    }
    halves.push_back("@" + list);
    half_counts.push_back(n);
  }
  printf(
      "\nhwt-batch run: %d copies of %s (%.1f KiB of PT each), %d of %s "
      "(%.1f KiB of PT each); fresh OUTDIR per run\n",
      s.small_count, s.tiny.c_str(), TreeBytes(s.tiny + "/buffers") / 1024.0,
      s.large_count, s.large.c_str(), TreeBytes(s.large + "/buffers") / 1024.0);
  // Warm the page cache and the binaries (not timed).
  if (!RunBatch(s, small, s.small_count, 2, nullptr) ||
      !RunBatch(s, large, s.large_count, 2, nullptr)) {
    return;
  }
  Series small1, small2, large1, large2, large_pair;
  // Cases interleaved, so that a change of load on a shared machine
  // touches every case alike.
  for (int rep = 0; rep < s.reps; ++rep) {
    if (!RunBatch(s, small, s.small_count, 1, &small1) ||
        !RunBatch(s, small, s.small_count, 2, &small2) ||
        !RunBatch(s, large, s.large_count, 1, &large1) ||
        !RunBatch(s, large, s.large_count, 2, &large2) ||
        (s.large_count >= 2 &&
         !RunBatches(s, halves, half_counts, 1, &large_pair))) {
      return;
    }
  }
  const auto one = TimeAnalysis(s, std::max(20, s.reps));
  PrintRunHeader();
  PrintRunRow(absl::StrFormat("%d tiny, jobs 1", s.small_count), small1,
              s.small_count);
  PrintRunRow(absl::StrFormat("%d tiny, jobs 2", s.small_count), small2,
              s.small_count);
  PrintRunRow(absl::StrFormat("%d large, jobs 1", s.large_count), large1,
              s.large_count);
  PrintRunRow(absl::StrFormat("%d large, jobs 2", s.large_count), large2,
              s.large_count);
  if (s.large_count >= 2) {
    PrintRunRow(
        absl::StrFormat("2 x (%d large, jobs 1) at once", half_counts[0]),
        large_pair, s.large_count);
  }
  printf(
      "  (ms/capture: best wall / captures; worker ms: the rows' mean wall_s "
      "in the best repetition, the worker's own timing of analysis + profile "
      "write)\n");
  if (one) {
    const double per1 = Best(small1.walls) / s.small_count;
    const double per1_median = Median(small1.walls) / s.small_count;
    const double per2 = 2 * Best(small2.walls) / s.small_count;
    printf(
        "  one tiny capture in this process (best of %d): analysis %.2f ms, "
        "profile write %.2f ms\n",
        std::max(20, s.reps), 1000 * one->analyse, 1000 * one->write);
    printf(
        "  per-capture overhead, jobs 1 (wall / captures - analysis): "
        "%.2f ms best, %.2f ms median (target < 50 ms)\n",
        1000 * (per1 - one->analyse), 1000 * (per1_median - one->analyse));
    printf(
        "  per-capture overhead, jobs 2 (2 x wall / captures - analysis, "
        "worker-seconds): %.2f ms best\n",
        1000 * (per2 - one->analyse));
  }
  printf(
      "  jobs 2 / jobs 1 speedup: %d large %.2fx best, %.2fx median "
      "(target >= 1.8x); %d tiny %.2fx best\n",
      s.large_count, Best(large1.walls) / Best(large2.walls),
      Median(large1.walls) / Median(large2.walls), s.small_count,
      Best(small1.walls) / Best(small2.walls));
  if (s.large_count >= 2) {
    printf(
        "  two independent jobs-1 batches at once / jobs 1 (the machine's "
        "ceiling): %.2fx best, %.2fx median\n",
        Best(large1.walls) / Best(large_pair.walls),
        Median(large1.walls) / Median(large_pair.walls));
  }
  fflush(stdout);
}

// ---- hwt-batch merge ----

void RunMerges(const Settings& s) {
  // The inputs: the profiles of a batch over merge_count tiny copies, made
  // once and kept (their fingerprints differ by path; one file copied would
  // be refused as the same capture twice).
  const std::string tiny = s.data + "/merge-captures";
  const std::string source = s.data + "/merge-profiles";
  std::vector<std::string> copies;
  if (!MakeCopies(s.tiny, tiny, s.merge_count, &copies)) return;
  std::vector<std::string> profiles;
  for (int i = 0; i < s.merge_count; ++i) {
    profiles.push_back(absl::StrFormat("%s/profiles/c%04d.hwtprof", source, i));
  }
  bool have = true;
  for (const std::string& p : profiles) have = have && fs::exists(p);
  if (!have) {
    printf("\nmaking %d profiles to merge (hwt-batch run into %s) ...\n",
           s.merge_count, source.c_str());
    fflush(stdout);
    std::error_code ec;
    fs::remove_all(source, ec);
    const ChildRun r =
        Run({s.hwt_batch, "run", "-q", "--no-progress", "-o", source, tiny},
            s.data + "/stderr.txt");
    if (!r.ok || !CheckSummary(source, s.merge_count, nullptr)) {
      Fail("cannot make the profiles to merge: " + r.message);
      return;
    }
    printf(
        "  (hwt-batch run, all cores, %d tiny captures: %.2f s, cpu %.2f s, "
        "peak RSS %.0f MiB; one run)\n",
        s.merge_count, r.wall, r.cpu, r.rss_mib);
  }
  std::vector<int> counts = {1};
  for (int n : {10, 100, s.merge_count}) {
    if (n > counts.back() && n <= s.merge_count) counts.push_back(n);
  }
  printf(
      "\nhwt-batch merge: N saved profiles of %s (one capture each); peak RSS "
      "of the merge process\n",
      s.tiny.c_str());
  printf("  %-26s %9s %9s %8s %8s %8s %9s %9s\n", "case", "inputs", "merged",
         "best s", "median s", "cpu s", "peakRSS", "ms/input");
  // `inputs` merged into `out`, which must then hold `captures` captures.
  auto merge = [&](const std::string& name,
                   const std::vector<std::string>& inputs,
                   const std::string& out, int captures) {
    std::vector<std::string> argv = {s.hwt_batch, "merge", "-q", "-o", out};
    uint64_t in_bytes = 0;
    for (const std::string& in : inputs) {
      argv.push_back(in);
      in_bytes += TreeBytes(in);
    }
    Series m;
    for (int rep = 0; rep < s.reps; ++rep) {
      std::error_code ec;
      fs::remove(out, ec);
      const ChildRun r = Run(argv, s.data + "/stderr.txt");
      if (!r.ok) {
        Fail(r.message);
        return false;
      }
      auto header = analysis::ReadProfileHeader(out);
      if (!header.ok() ||
          static_cast<int>(header->sources.size()) != captures) {
        Fail(absl::StrFormat(
            "%s: expected %d captures, %s", out, captures,
            header.ok() ? absl::StrFormat("has %d", header->sources.size())
                        : header.status().ToString()));
        return false;
      }
      m.Add(r, 0);
    }
    printf("  %-26s %8.2fM %8.2fM %8.3f %8.3f %8.3f %8.1fM %9.2f\n",
           name.c_str(), in_bytes / 1048576.0, TreeBytes(out) / 1048576.0,
           Best(m.walls), Median(m.walls), m.cpu_of_best, m.rss_mib,
           1000 * Best(m.walls) / inputs.size());
    fflush(stdout);
    return true;
  };
  for (int n : counts) {
    const std::string out = absl::StrFormat("%s/merged-%d.hwtprof", s.data, n);
    const std::vector<std::string> inputs(profiles.begin(),
                                          profiles.begin() + n);
    if (!merge(absl::StrFormat("merge %d profiles", n), inputs, out, n)) {
      return;
    }
    // The same merged profile again, as the only input: the memory of
    // holding that profile (read, accumulated, written) without the many
    // inputs. Equal peaks mean the inputs cost nothing beyond their union.
    if (n > 1 &&
        !merge("  its result alone (1)", {out},
               absl::StrFormat("%s/remerged-%d.hwtprof", s.data, n), n)) {
      return;
    }
  }
  printf(
      "  (its result alone: `hwt-batch merge` of the merged profile above as "
      "its only input)\n");
}

int Main(int argc, char** argv) {
  Settings s;
#ifdef HWT_BATCH_EXECUTABLE
  s.hwt_batch = HWT_BATCH_EXECUTABLE;
#endif
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "batch_bench: %s needs a value\n", arg.c_str());
        exit(2);
      }
      return argv[++i];
    };
    auto number = [&]() { return std::max(1, std::atoi(value().c_str())); };
    if (arg == "--data") {
      s.data = value();
    } else if (arg == "--tiny") {
      s.tiny = value();
    } else if (arg == "--large") {
      s.large = value();
    } else if (arg == "--reps") {
      s.reps = number();
    } else if (arg == "--small-count") {
      s.small_count = number();
    } else if (arg == "--large-count") {
      s.large_count = number();
    } else if (arg == "--merge-count") {
      s.merge_count = number();
    } else if (arg == "--hwt-batch") {
      s.hwt_batch = value();
    } else if (arg == "--only") {
      s.only = value();
    } else {
      s.tiny.clear();
      break;
    }
  }
  if (s.tiny.empty() || s.large.empty() || s.hwt_batch.empty() ||
      (!s.only.empty() && s.only != "run" && s.only != "merge")) {
    fprintf(stderr,
            "usage: batch_bench --tiny CAPTURE --large CAPTURE [--data DIR] "
            "[--reps N] [--small-count N] [--large-count N] "
            "[--merge-count N] [--hwt-batch PATH] [--only run|merge]\n");
    return 2;
  }
  if (s.data.empty()) {
    const char* tmp = getenv("TMPDIR");
    s.data = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
             "/hwt-batch-bench";
  }
  s.data = fs::absolute(s.data).string();
  s.tiny = fs::absolute(s.tiny).string();
  s.large = fs::absolute(s.large).string();
  std::error_code ec;
  fs::create_directories(s.data, ec);
  printf(
      "batch_bench: %s, %u cores, %d repetitions per case (best and median "
      "wall time; cpu s of the best, workers included; peak RSS: the largest "
      "process, max over repetitions)\n",
      s.hwt_batch.c_str(), std::thread::hardware_concurrency(), s.reps);
  if (s.only != "merge") RunCases(s);
  if (s.only != "run") RunMerges(s);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hwt::bench

int main(int argc, char** argv) { return hwt::bench::Main(argc, argv); }
