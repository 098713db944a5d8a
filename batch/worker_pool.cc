// The pool of worker processes; see worker_pool.h.
#include "batch/worker_pool.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__FreeBSD__)
#include <sys/sysctl.h>
#endif

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/json_text.h"
#include "base/progress.h"

namespace hwt::batch {
namespace {

using Clock = std::chrono::steady_clock;

sigset_t g_original_mask;
bool g_mask_saved = false;

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

struct Worker {
  pid_t pid = -1;
  int to = -1;    // its stdin
  int from = -1;  // its stdout
  int err = -1;   // its stderr
  std::string out, errors;
  int job = -1;  // index of the job it is on
  Clock::time_point started;
};

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

absl::Status Spawn(const PoolOptions& options, Worker& w) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) {
    return absl::InternalError(ErrnoMessage("pipe", "cannot create", errno));
  }
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return absl::InternalError(ErrnoMessage("pipe", "cannot create", errno));
  }
  const std::string memory = absl::StrCat(options.max_memory);
  // Made before fork: the child only calls async-signal-safe functions
  // until exec (no allocation), as POSIX asks of a fork child.
  const std::string exec_failed_prefix =
      absl::StrCat(options.executable, ": cannot start a worker");
  const pid_t pid = fork();
  if (pid < 0) {
    return absl::InternalError(
        ErrnoMessage("fork", "cannot start a worker", errno));
  }
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    if (g_mask_saved) sigprocmask(SIG_SETMASK, &g_original_mask, nullptr);
    signal(SIGPIPE, SIG_DFL);
    const char* argv[] = {options.executable.c_str(), "worker", "--max-memory",
                          memory.c_str(), nullptr};
    execv(argv[0], const_cast<char* const*>(argv));
    // strerror of a known errno returns a static string (glibc, FreeBSD).
    const char* why = strerror(errno);
    (void)!write(2, exec_failed_prefix.data(), exec_failed_prefix.size());
    (void)!write(2, ": ", 2);
    (void)!write(2, why, strlen(why));
    (void)!write(2, "\n", 1);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  w.pid = pid;
  w.to = in[1];
  w.from = out[0];
  w.err = err[0];
  fcntl(w.from, F_SETFL, O_NONBLOCK);
  fcntl(w.err, F_SETFL, O_NONBLOCK);
  w.out.clear();
  w.errors.clear();
  w.job = -1;
  return absl::OkStatus();
}

// Waits for the worker and says how it ended.
std::string Reap(Worker& w) {
  int status = 0;
  std::string how;
  if (w.pid > 0 && waitpid(w.pid, &status, 0) == w.pid) {
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      how = absl::StrFormat("the analysis crashed (signal %d, %s)", sig,
                            strsignal(sig));
    } else if (WIFEXITED(status)) {
      how = absl::StrCat("the worker exited with status ", WEXITSTATUS(status));
    }
  }
  CloseFd(w.to);
  CloseFd(w.from);
  CloseFd(w.err);
  w.pid = -1;
  return how;
}

// A worker killed with SIGKILL cannot remove its temporary profile.
void RemoveTemporaries(const std::string& profile_path, pid_t pid) {
  const size_t slash = profile_path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : profile_path.substr(0, slash);
  const std::string prefix =
      absl::StrCat(BaseName(profile_path), ".tmp.", pid, ".");
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) {
        unlink((dir + "/" + e->d_name).c_str());
      }
    }
    closedir(d);
  }
}

void Drain(int& fd, std::string& buffer, bool* eof) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 && eof != nullptr) *eof = true;
    return;  // EAGAIN, EINTR or end
  }
}

std::string LastLine(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

class Pool {
 public:
  Pool(const std::vector<Job>& jobs, const PoolOptions& options,
       const std::function<void(const Job&, CaptureRow)>& done)
      : jobs_(jobs),
        options_(options),
        done_(done),
        workers_(std::max(1, options.workers)) {}

  ~Pool() {
    for (Worker& w : workers_) {
      if (w.pid > 0) {
        kill(w.pid, SIGTERM);
        Reap(w);
      }
    }
  }

  absl::Status Run(const StopCheck& stop) {
    for (;;) {
      if (stop && stop()) return Stop();
      absl::Status assigned = Assign();
      if (!assigned.ok()) return assigned;
      bool busy = false;
      for (const Worker& w : workers_) busy |= w.job >= 0;
      if (!busy && next_ >= jobs_.size()) break;
      Wait();
      Timeouts();
    }
    for (Worker& w : workers_) {
      CloseFd(w.to);  // end of input: the worker exits
      if (w.pid > 0) Reap(w);
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Assign() {
    for (Worker& w : workers_) {
      if (w.job >= 0 || next_ >= jobs_.size()) continue;
      if (w.pid < 0) {
        absl::Status spawned = Spawn(options_, w);
        if (!spawned.ok()) return spawned;
      }
      const std::string line =
          JsonText(JobToJson(jobs_[next_]), JsonLayout::kOneLine) + "\n";
      w.job = static_cast<int>(next_++);
      w.started = Clock::now();
      if (!WriteAllToFd(w.to, line, "worker").ok()) {
        Finish(w, Failed(w, Reap(w)));
      }
    }
    return absl::OkStatus();
  }

  void Wait() {
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, bool>> owner;  // worker, is stdout
    for (size_t i = 0; i < workers_.size(); ++i) {
      const Worker& w = workers_[i];
      if (w.pid < 0) continue;
      fds.push_back({w.from, POLLIN, 0});
      owner.push_back({i, true});
      if (w.err >= 0) {
        fds.push_back({w.err, POLLIN, 0});
        owner.push_back({i, false});
      }
    }
    if (poll(fds.data(), fds.size(), 100) <= 0) return;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      Worker& w = workers_[owner[k].first];
      if (w.pid < 0) continue;
      if (!owner[k].second) {
        bool eof = false;
        Drain(w.err, w.errors, &eof);
        if (w.errors.size() > 4096) w.errors.erase(0, w.errors.size() - 4096);
        if (eof) CloseFd(w.err);
        continue;
      }
      bool eof = false;
      Drain(w.from, w.out, &eof);
      for (size_t nl; (nl = w.out.find('\n')) != std::string::npos;) {
        const std::string line = w.out.substr(0, nl);
        w.out.erase(0, nl + 1);
        Answer(w, line);
      }
      if (eof) {
        if (w.err >= 0) Drain(w.err, w.errors, nullptr);
        const std::string how = Reap(w);
        if (w.job >= 0) Finish(w, Failed(w, how));
      }
    }
  }

  void Answer(Worker& w, const std::string& line) {
    if (w.job < 0) return;
    // An answer that came after the limit (read in the same wake-up as the
    // check would have been) fails as the limit says, whatever it holds.
    if (options_.timeout_s > 0 &&
        std::chrono::duration<double>(Clock::now() - w.started).count() >
            options_.timeout_s) {
      RemoveTemporaries(jobs_[w.job].profile_path, w.pid);
      std::remove(jobs_[w.job].profile_path.c_str());
      Finish(w, Failed(w, absl::StrFormat("timed out after %g s (--timeout)",
                                          options_.timeout_s)));
      return;
    }
    auto json = nlohmann::json::parse(line, nullptr, false);
    absl::StatusOr<CaptureRow> row =
        json.is_discarded() ? absl::InvalidArgumentError("not JSON")
                            : RowFromJson(json);
    if (!row.ok()) {
      Finish(w, Failed(w, absl::StrCat("the worker answered nonsense (",
                                       row.status().message(), ")")));
      return;
    }
    Finish(w, *std::move(row));
  }

  void Timeouts() {
    if (options_.timeout_s <= 0) return;
    const auto now = Clock::now();
    for (Worker& w : workers_) {
      if (w.job < 0 || w.pid < 0) continue;
      const double s = std::chrono::duration<double>(now - w.started).count();
      if (s < options_.timeout_s) continue;
      const pid_t pid = w.pid;
      kill(pid, SIGKILL);
      Reap(w);
      RemoveTemporaries(jobs_[w.job].profile_path, pid);
      Finish(w, Failed(w, absl::StrFormat(
                              "timed out after %g s (--timeout); stopped",
                              options_.timeout_s)));
    }
  }

  CaptureRow Failed(const Worker& w, const std::string& how) {
    const Job& job = jobs_[w.job];
    CaptureRow row;
    row.name = job.name;
    row.path = job.path;
    row.fingerprint = job.fingerprint;
    row.status = "failed";
    row.error = how.empty() ? "the worker stopped" : how;
    const std::string said = LastLine(w.errors);
    if (!said.empty()) absl::StrAppend(&row.error, ": ", said);
    if (options_.max_memory != 0 && how.find("crashed") != std::string::npos) {
      absl::StrAppend(&row.error,
                      " (it may have run out of memory: --max-memory ",
                      FormatBytes(options_.max_memory), ")");
    }
    row.wall_s =
        std::chrono::duration<double>(Clock::now() - w.started).count();
    return row;
  }

  void Finish(Worker& w, CaptureRow row) {
    const int job = w.job;
    w.job = -1;
    w.errors.clear();
    done_(jobs_[job], std::move(row));
  }

  absl::Status Stop() {
    for (Worker& w : workers_) {
      if (w.pid > 0) kill(w.pid, SIGTERM);
    }
    for (Worker& w : workers_) {
      if (w.pid > 0) Reap(w);
    }
    return absl::CancelledError("interrupted");
  }

  const std::vector<Job>& jobs_;
  const PoolOptions& options_;
  const std::function<void(const Job&, CaptureRow)>& done_;
  std::vector<Worker> workers_;
  size_t next_ = 0;
};

}  // namespace

absl::Status RunJobs(const std::vector<Job>& jobs, const PoolOptions& options,
                     const std::function<void(const Job&, CaptureRow)>& done,
                     const StopCheck& stop) {
  signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error, not a signal
  Pool pool(jobs, options, done);
  return pool.Run(stop);
}

int RunWorker(int in_fd, int out_fd, uint64_t max_memory) {
  if (max_memory != 0) {
    struct rlimit limit;
    limit.rlim_cur = limit.rlim_max = max_memory;
    setrlimit(RLIMIT_AS, &limit);
  }
  std::string buffer;
  char chunk[65536];
  for (;;) {
    size_t nl;
    while ((nl = buffer.find('\n')) == std::string::npos) {
      const ssize_t n = read(in_fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    const std::string line = buffer.substr(0, nl);
    buffer.erase(0, nl + 1);
    CaptureRow row;
    bool out_of_memory = false;
    auto json = nlohmann::json::parse(line, nullptr, false);
    absl::StatusOr<Job> job = json.is_discarded()
                                  ? absl::InvalidArgumentError("not JSON")
                                  : JobFromJson(json);
    if (!job.ok()) {
      row.status = "failed";
      row.error = std::string(job.status().message());
    } else {
      try {
        row = RunJob(*job);
      } catch (const std::bad_alloc&) {
        out_of_memory = true;
        row.name = job->name;
        row.path = job->path;
        row.fingerprint = job->fingerprint;
        row.status = "failed";
        row.error = absl::StrCat("out of memory (--max-memory ",
                                 FormatBytes(max_memory), ")");
      }
    }
    if (!WriteAllToFd(out_fd,
                      JsonText(RowToJson(row), JsonLayout::kOneLine) + "\n",
                      "stdout")
             .ok()) {
      return 1;
    }
    // Memory may be in a bad state after an allocation failed: a new
    // worker takes the next capture.
    if (out_of_memory) return 0;
  }
}

std::string SelfExecutable() {
#if defined(__FreeBSD__)
  int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PATHNAME, -1};
  char path[4096];
  size_t size = sizeof(path);
  if (sysctl(mib, 4, path, &size, nullptr, 0) == 0) return path;
  return "";
#else
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  return std::string(path, static_cast<size_t>(n));
#endif
}

// Guards nest (hwt-batch slurm runs the merge inside its own): the first
// saves the mask children get back, the last restores it.
int g_guards = 0;

SignalGuard::SignalGuard() {
  const sigset_t set = StopSignals();
  if (g_guards++ == 0) {
    sigprocmask(SIG_BLOCK, &set, &g_original_mask);
    g_mask_saved = true;
  }
}

SignalGuard::~SignalGuard() {
  if (--g_guards == 0) {
    sigprocmask(SIG_SETMASK, &g_original_mask, nullptr);
    g_mask_saved = false;
  }
}

bool SignalGuard::Pending() {
  if (seen_) return true;
  const sigset_t set = StopSignals();
  sigset_t pending;
  if (sigpending(&pending) == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      if (sigismember(&pending, sig)) {
        struct timespec zero = {0, 0};
        sigtimedwait(&set, nullptr, &zero);
        seen_ = true;
      }
    }
  }
  return seen_;
}

}  // namespace hwt::batch
