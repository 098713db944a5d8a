// hwt-batch slurm; see slurm.h.
#include "batch/slurm.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "batch/inputs.h"
#include "batch/out_dir.h"
#include "batch/progress_bar.h"
#include "batch/tool_error.h"
#include "batch/worker_pool.h"

namespace hwt::batch {
namespace {

std::string Quote(const std::string& s) {
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  if (path[0] == '@') return "@" + Absolute(path.substr(1));
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

// Runs a program (no shell), its stdout into *out and stderr into *err;
// returns its exit status (-1: could not run, 128+N: killed by signal N).
// A program still running after `timeout_s`, or when `stop` says so, is
// killed (a squeue that cannot reach the controller must not hold up a
// Ctrl-C).
int RunProgram(const std::vector<std::string>& argv, std::string* out,
               std::string* err, double timeout_s = 120,
               const std::function<bool()>& stop = nullptr) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return -1;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return -1;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return -1;
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {out, err};
  int open_fds = 2;
  bool killed = false;
  char buffer[4096];
  while (open_fds > 0) {
    if (!killed &&
        (std::chrono::steady_clock::now() > deadline || (stop && stop()))) {
      kill(pid, SIGKILL);
      killed = true;
    }
    if (poll(fds, 2, 50) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      if (sinks[i] != nullptr) sinks[i]->append(buffer, static_cast<size_t>(n));
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Trimmed(std::string s) {
  return std::string(absl::StripAsciiWhitespace(s));
}

// The options of `run` as hwt-batch run flags.
std::vector<std::string> RunFlags(const RunOptions& run) {
  std::vector<std::string> flags;
  const capture::InputOptions& in = run.input;
  if (in.backend) {
    flags.push_back(absl::StrCat(
        "--backend=", std::string(capture::BackendName(*in.backend))));
  }
  if (in.cpu) {
    flags.push_back(absl::StrCat("--cpu=", in.cpu->family, "/", in.cpu->model,
                                 "/", in.cpu->stepping));
  }
  for (const capture::ImageSpec& image : in.images) {
    flags.push_back(
        absl::StrFormat("--image=%s@0x%x", Absolute(image.path), image.bias));
  }
  if (!in.sysroot.empty()) flags.push_back("--sysroot=" + Absolute(in.sysroot));
  if (run.timeout_s > 0)
    flags.push_back(absl::StrCat("--timeout=", run.timeout_s));
  if (run.max_memory > 0) {
    flags.push_back(absl::StrCat("--max-memory=", run.max_memory));
  }
  if (run.verify) flags.push_back("--verify");
  return flags;
}

}  // namespace

int DefaultShards(size_t captures) {
  return static_cast<int>(std::clamp<size_t>((captures + 7) / 8, 1, 64));
}

std::string SlurmJobScript(const RunOptions& run, int shards,
                           const std::string& inputs_list) {
  const std::string dir = Absolute(run.outdir) + "/slurm";
  std::string command = Quote(run.executable) + " run";
  absl::StrAppend(&command, " --shard \"$shard/", shards, "\"");
  absl::StrAppend(&command, " -o ", Quote(Absolute(run.outdir)));
  if (run.jobs > 0) {
    absl::StrAppend(&command, " --jobs ", run.jobs);
  } else {
    absl::StrAppend(&command, " --jobs \"$jobs\"");
  }
  for (const std::string& flag : RunFlags(run)) {
    absl::StrAppend(&command, " ", Quote(flag));
  }
  absl::StrAppend(&command, " --quiet ", Quote("@" + inputs_list));
  return absl::StrCat(
      "#!/bin/sh\n"
      "# Written by hwt-batch slurm: one task of the array per shard of the\n"
      "# batch in this directory. A shard can be run again by hand with\n"
      "# SLURM_ARRAY_TASK_ID set to its number; then `hwt-batch run\n"
      "# --merge-only` with the same options and inputs merges.\n"
      "shard=\"${SLURM_ARRAY_TASK_ID:?not set: run by sbatch --array}\"\n"
      "# Workers: the CPUs Slurm gave the task (0: all usable cores).\n"
      "jobs=\"${SLURM_CPUS_PER_TASK:-${SLURM_JOB_CPUS_PER_NODE%%[(]*}}\"\n"
      "jobs=\"${jobs:-0}\"\n",
      command, "\n", "status=$?\n", "echo \"$status\" > ", Quote(dir),
      "/shard-$shard.exit.tmp &&\n", "  mv ", Quote(dir),
      "/shard-$shard.exit.tmp ", Quote(dir), "/shard-$shard.exit\n",
      "exit \"$status\"\n");
}

namespace {

// Waits until `job` has left the queue. Returns kExitInterrupted after
// cancelling it on Ctrl-C/SIGTERM, 3 when squeue keeps failing, else 0.
int WaitForJob(const SlurmOptions& options, const std::string& job,
               int shards) {
  const RunOptions& run = options.run;
  SignalGuard guard;
  ProgressBar bar(
      static_cast<size_t>(shards), 0,
      run.progress.value_or(isatty(STDERR_FILENO) != 0) && !run.quiet);
  // squeue failing for this long (the controller gone) ends the wait.
  constexpr auto kGiveUp = std::chrono::minutes(2);
  bool failing = false;
  std::chrono::steady_clock::time_point failing_since;
  for (;;) {
    if (guard.Pending()) {
      std::string err;
      const int rc = RunProgram({"scancel", job}, nullptr, &err);
      bar.Finish();
      if (rc != 0) {
        fprintf(stderr, "%s: scancel %s failed (exit %d): %s\n", kBatchTool,
                job.c_str(), rc, Trimmed(err).c_str());
      }
      fprintf(stderr,
              "%s: interrupted: cancelled job %s; the profiles written are "
              "complete, `hwt-batch slurm` with the same options continues\n",
              kBatchTool, job.c_str());
      return kExitInterrupted;
    }
    std::string queued, err;
    const int q =
        RunProgram({"squeue", "--noheader", "--jobs=" + job, "--format=%i %T"},
                   &queued, &err, 60, [&guard] { return guard.Pending(); });
    if (guard.Pending()) continue;  // cancel first
    // A job that finished long enough ago is no longer known: done too.
    if ((q == 0 && Trimmed(queued).empty()) ||
        (q != 0 && absl::StrContains(err, "Invalid job id"))) {
      break;
    }
    if (q != 0 && !failing) {
      failing = true;
      failing_since = std::chrono::steady_clock::now();
    }
    if (q != 0 && std::chrono::steady_clock::now() - failing_since > kGiveUp) {
      bar.Finish();
      fprintf(stderr,
              "%s: squeue keeps failing (exit %d): %s; job %s may still run: "
              "`hwt-batch run --merge-only` with the same options merges "
              "when it has finished\n",
              kBatchTool, q, Trimmed(err).c_str(), job.c_str());
      return 3;
    }
    if (q == 0) failing = false;
    bar.Tick();
    const auto until =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<int>(options.poll_s * 1000));
    while (std::chrono::steady_clock::now() < until && !guard.Pending()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  bar.Finish();
  return 0;
}

// Says which shards did not finish or failed as a whole (their captures
// become `failed` rows in the merge); exit statuses 0 and 1 are a shard's
// normal results.
void ReportShards(const std::string& dir, int shards) {
  for (int i = 0; i < shards; ++i) {
    auto status = ReadFileToString(absl::StrCat(dir, "/shard-", i, ".exit"));
    int code = -1;
    if (status.ok() && absl::SimpleAtoi(Trimmed(*status), &code) && code <= 1) {
      continue;
    }
    const std::string log = absl::StrCat(dir, "/shard-", i, ".log");
    if (code < 0) {
      fprintf(stderr,
              "%s: shard %d did not finish (cancelled, out of time "
              "or memory?); its log: %s\n",
              kBatchTool, i, log.c_str());
    } else {
      fprintf(stderr, "%s: shard %d exited %d; its log: %s\n", kBatchTool, i,
              code, log.c_str());
    }
  }
}

}  // namespace

int SlurmCommand(const SlurmOptions& options) {
  const RunOptions& run = options.run;
  if (run.inputs.empty()) return ReportError(2, "no INPUT given");
  if (run.executable.empty()) {
    return ReportError(3, "cannot find the hwt-batch executable");
  }
  std::vector<std::string> args;
  for (const std::string& in : run.inputs) args.push_back(Absolute(in));
  // Held until the job has ended: its shards share OUTDIR's lock, no other
  // batch or submission gets in (out_dir.h).
  std::optional<absl::StatusOr<OutDir>> submission =
      OutDir::OpenForSubmission(run.outdir);
  if (!submission->ok()) return ReportError(3, submission->status().message());
  // Expanded here too: bad inputs are reported before anything is
  // submitted, and the number of shards can follow the number of inputs.
  auto expanded = ExpandInputs(args, run.input, run.outdir);
  if (!expanded.ok()) return ReportError(2, expanded.status().message());
  const size_t captures = expanded->inputs.size();
  const int shards =
      options.shards > 0
          ? std::min<int>(options.shards, static_cast<int>(captures))
          : DefaultShards(captures);
  const std::string dir = Absolute(run.outdir) + "/slurm";
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return ReportError(3, ErrnoMessage(dir, "cannot create directory", errno));
  }
  std::string list;
  for (const std::string& a : args) absl::StrAppend(&list, Quote(a), "\n");
  const std::string list_path = dir + "/inputs.list";
  const std::string script_path = dir + "/job.sh";
  absl::Status written = WriteFileAtomically(list_path, list);
  if (written.ok()) {
    written = WriteFileAtomically(script_path,
                                  SlurmJobScript(run, shards, list_path));
  }
  if (!written.ok()) return ReportError(3, written.message());
  chmod(script_path.c_str(), 0755);
  for (int i = 0; i < shards; ++i) {  // a previous submission's
    unlink(absl::StrCat(dir, "/shard-", i, ".exit").c_str());
  }

  std::vector<std::string> sbatch = {
      "sbatch", "--parsable", absl::StrCat("--array=0-", shards - 1),
      "--job-name=hwt-batch", "--output=" + dir + "/shard-%a.log"};
  if (!options.partition.empty()) {
    sbatch.push_back("--partition=" + options.partition);
  }
  for (const std::string& a : options.sbatch_args) sbatch.push_back(a);
  sbatch.push_back(script_path);
  std::string out, err;
  const int rc = RunProgram(sbatch, &out, &err);
  const std::string job = Trimmed(out.substr(0, out.find(';')));
  uint64_t job_number = 0;
  if (rc != 0 || !absl::SimpleAtoi(job, &job_number)) {
    return ReportError(3, absl::StrCat("sbatch failed (exit ", rc, "): ",
                                       Trimmed(err.empty() ? out : err)));
  }
  if (!run.quiet) {
    fprintf(stderr, "%s: submitted job %s: %d shards of %zu captures (%s)\n",
            kBatchTool, job.c_str(), shards, captures, script_path.c_str());
  }

  const int waited = WaitForJob(options, job, shards);
  if (waited != 0) return waited;
  ReportShards(dir, shards);
  // The merge takes the lock exclusively. (Another batch could start in
  // between; the merge would then say OUTDIR is in use, and exit 3.)
  submission.reset();
  RunOptions merge = run;
  merge.merge_only = true;
  merge.shard.reset();
  return RunBatch(merge);
}

}  // namespace hwt::batch
