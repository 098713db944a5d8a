// hwt-batch slurm; see slurm.h.
#include "batch/slurm.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

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
#include "batch/worker_pool.h"

namespace hwt::batch {
namespace {

constexpr char kTool[] = "hwt-batch";

int Error(int code, absl::string_view message) {
  fprintf(stderr, "%s: %s\n", kTool, std::string(message).c_str());
  return code;
}

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

// Runs a program (no shell), its stdout into *out; returns its exit status
// (-1: could not run, 128+N: killed by signal N).
int RunProgram(const std::vector<std::string>& argv, std::string* out,
               std::string* err) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return -1;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Small outputs: read stderr after stdout (the programs here print
  // little; a full stderr pipe cannot block them first).
  char buffer[4096];
  for (ssize_t n; (n = read(out_pipe[0], buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (out != nullptr) out->append(buffer, static_cast<size_t>(n));
  }
  for (ssize_t n; (n = read(err_pipe[0], buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (err != nullptr) err->append(buffer, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
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
  std::string command = Quote(run.executable) + " run";
  absl::StrAppend(&command, " --shard \"${SLURM_ARRAY_TASK_ID}/", shards, "\"");
  absl::StrAppend(&command, " -o ", Quote(Absolute(run.outdir)));
  if (run.jobs > 0) {
    absl::StrAppend(&command, " --jobs ", run.jobs);
  } else {
    absl::StrAppend(&command, " --jobs \"${SLURM_CPUS_PER_TASK:-0}\"");
  }
  for (const std::string& flag : RunFlags(run)) {
    absl::StrAppend(&command, " ", Quote(flag));
  }
  absl::StrAppend(&command, " --quiet ", Quote("@" + inputs_list));
  return absl::StrCat(
      "#!/bin/sh\n"
      "# Written by hwt-batch slurm: one task of the array per shard of the\n"
      "# batch in this directory. A shard can be run again by hand with the\n"
      "# same command and SLURM_ARRAY_TASK_ID set to its number; then\n"
      "# `hwt-batch run --merge-only` with the same options and inputs\n"
      "# merges.\n",
      "exec ", command, "\n");
}

int SlurmCommand(const SlurmOptions& options) {
  const RunOptions& run = options.run;
  if (run.inputs.empty()) return Error(2, "no INPUT given");
  if (run.executable.empty()) {
    return Error(3, "cannot find the hwt-batch executable");
  }
  std::vector<std::string> args;
  for (const std::string& in : run.inputs) args.push_back(Absolute(in));
  size_t captures = 0;
  {
    // Expanded here too: bad inputs are reported before anything is
    // submitted, and the number of shards can follow the number of inputs.
    auto out = OutDir::Open(run.outdir);
    if (!out.ok()) return Error(3, out.status().message());
    auto expanded = ExpandInputs(args, run.input, run.outdir);
    if (!expanded.ok()) return Error(2, expanded.status().message());
    captures = expanded->inputs.size();
  }
  const int shards =
      options.shards > 0
          ? std::min<int>(options.shards, static_cast<int>(captures))
          : DefaultShards(captures);
  const std::string dir = Absolute(run.outdir) + "/slurm";
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return Error(3, ErrnoMessage(dir, "cannot create directory", errno));
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
  if (!written.ok()) return Error(3, written.message());
  chmod(script_path.c_str(), 0755);

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
    return Error(3, absl::StrCat("sbatch failed (exit ", rc,
                                 "): ", Trimmed(err.empty() ? out : err)));
  }
  if (!run.quiet) {
    fprintf(stderr, "%s: submitted job %s: %d shards of %zu captures (%s)\n",
            kTool, job.c_str(), shards, captures, script_path.c_str());
  }

  SignalGuard guard;
  ProgressBar bar(
      static_cast<size_t>(shards), 0,
      run.progress.value_or(isatty(STDERR_FILENO) != 0) && !run.quiet);
  for (;;) {
    if (guard.Pending()) {
      RunProgram({"scancel", job}, nullptr, nullptr);
      bar.Finish();
      fprintf(stderr,
              "%s: interrupted: cancelled job %s; the profiles written are "
              "complete, `hwt-batch slurm` with the same options continues\n",
              kTool, job.c_str());
      return kExitInterrupted;
    }
    std::string queued;
    const int q =
        RunProgram({"squeue", "--noheader", "--jobs=" + job, "--format=%i %T"},
                   &queued, nullptr);
    if (q != 0 || Trimmed(queued).empty()) break;
    bar.Tick();
    const auto until =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<int>(options.poll_s * 1000));
    while (std::chrono::steady_clock::now() < until && !guard.Pending()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  bar.Finish();
  RunOptions merge = run;
  merge.merge_only = true;
  merge.shard.reset();
  return RunBatch(merge);
}

}  // namespace hwt::batch
