// A one-node Slurm cluster in a temporary directory; see local_slurm.h.
#include "batch/testing/local_slurm.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/testing/test_env.h"

namespace hwt::batch::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A TCP port nobody listens on now (the kernel's choice for port 0).
absl::StatusOr<int> FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  if (port < 0) return absl::InternalError("no free TCP port");
  return port;
}

std::string SlurmConf(const std::string& dir, const std::string& partition,
                      int ctld_port, int slurmd_port) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return absl::StrCat(
      "# Generated for a test: one node (this machine), everything in\n"
      "# this directory, nothing systemwide.\n"
      "ClusterName=hwttest\n"
      "SlurmctldHost=localhost\n",
      "SlurmctldPort=", ctld_port, "\n", "SlurmdPort=", slurmd_port, "\n",
      "AuthType=auth/munge\n", "CredType=cred/munge\n", "AuthInfo=socket=", dir,
      "/munge.socket\n",
      "SlurmUser=root\n"
      "SlurmdUser=root\n",
      "StateSaveLocation=", dir, "/state\n", "SlurmdSpoolDir=", dir, "/spool\n",
      "SlurmctldPidFile=", dir, "/slurmctld.pid\n", "SlurmdPidFile=", dir,
      "/slurmd.pid\n", "SlurmctldLogFile=", dir, "/slurmctld.log\n",
      "SlurmdLogFile=", dir, "/slurmd.log\n",
      "ProctrackType=proctrack/linuxproc\n"
      "TaskPlugin=task/none\n"
      "SchedulerType=sched/backfill\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_Core\n"
      "ReturnToService=2\n"
      "MpiDefault=none\n"
      "JobAcctGatherType=jobacct_gather/none\n"
      "AccountingStorageType=accounting_storage/none\n"
      "JobCompType=jobcomp/none\n"
      "MailProg=/bin/true\n"
      "KillWait=2\n"
      "MinJobAge=5\n"
      "SchedulerParameters=sched_interval=1\n",
      "NodeName=localhost NodeAddr=127.0.0.1 CPUs=", cpus, " State=UNKNOWN\n",
      "PartitionName=", partition,
      " Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n");
}

bool WaitFor(const std::function<bool()>& ready, int seconds) {
  const auto until = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return ready();
}

// waitpid with a deadline; true when `pid` was reaped.
bool Reap(pid_t pid, int seconds) {
  return WaitFor(
      [pid] {
        int status = 0;
        const pid_t r = waitpid(pid, &status, WNOHANG);
        return r == pid || (r < 0 && errno == ECHILD);
      },
      seconds);
}

}  // namespace

const std::vector<std::string>& LocalSlurm::Programs() {
  static const std::vector<std::string> programs = {
      "munged", "mungekey", "slurmctld", "slurmd",
      "sbatch", "squeue",   "scancel",   "sinfo"};
  return programs;
}

absl::Status LocalSlurm::Launch(const std::vector<std::string>& argv) {
  const std::string log = absl::StrCat(dir(), "/", argv[0], ".out");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // Dies with the test process, however that ends.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    setpgid(0, 0);  // a terminal's Ctrl-C is the test's, not the daemons'
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> args;
    for (const std::string& a : argv) {
      args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  daemons_.push_back(pid);
  // Still running a moment later: it read its configuration.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) {
    daemons_.pop_back();
    return absl::InternalError(
        absl::StrCat(argv[0], " exited at once:\n", Logs()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LocalSlurm>> LocalSlurm::Start() {
  auto temp = TempDir::Create("hwt_local_slurm");
  if (!temp.ok()) return temp.status();
  std::unique_ptr<LocalSlurm> slurm(new LocalSlurm(std::move(*temp)));
  const std::string& dir = slurm->dir();
  chmod(dir.c_str(), 0700);  // munged refuses a socket dir others can write
  for (const char* sub : {"/state", "/spool"}) {
    mkdir((dir + sub).c_str(), 0700);
  }
  auto ctld_port = FreePort();
  if (!ctld_port.ok()) return ctld_port.status();
  auto slurmd_port = FreePort();
  if (!slurmd_port.ok()) return slurmd_port.status();
  absl::Status written = WriteFileAtomically(
      slurm->conf_path(),
      SlurmConf(dir, slurm->partition_, *ctld_port, *slurmd_port));
  if (!written.ok()) return written;
  setenv("SLURM_CONF", slurm->conf_path().c_str(), 1);

  const std::string key = dir + "/munge.key";
  auto keyed = hwt::testing::RunCommand(
      {"mungekey", "--create", "--keyfile=" + key}, 60);
  if (keyed.exit_code != 0) {
    return absl::InternalError("mungekey failed: " + keyed.err);
  }
  absl::Status s = slurm->Launch(
      {"munged", "--foreground", "--force", "--socket=" + dir + "/munge.socket",
       "--key-file=" + key, "--pid-file=" + dir + "/munged.pid",
       "--log-file=" + dir + "/munged.log",
       "--seed-file=" + dir + "/munged.seed"});
  if (!s.ok()) return s;
  struct stat st;
  if (!WaitFor([&] { return stat((dir + "/munge.socket").c_str(), &st) == 0; },
               30)) {
    return absl::InternalError("munged did not open its socket:\n" +
                               slurm->Logs());
  }
  s = slurm->Launch({"slurmctld", "-D", "-i"});
  if (s.ok()) s = slurm->Launch({"slurmd", "-D", "-N", "localhost"});
  if (!s.ok()) return s;
  const bool idle = WaitFor(
      [&] {
        auto r = hwt::testing::RunCommand(
            {"sinfo", "--noheader", "--format=%T", "--nodes=localhost"}, 10);
        return r.exit_code == 0 && absl::StripAsciiWhitespace(r.out) == "idle";
      },
      60);
  if (!idle) {
    return absl::InternalError("the node did not become idle:\n" +
                               slurm->Logs());
  }
  return slurm;
}

absl::StatusOr<std::string> LocalSlurm::Queue() const {
  auto r =
      hwt::testing::RunCommand({"squeue", "--noheader", "--format=%A"}, 30);
  if (r.exit_code != 0) return absl::InternalError("squeue: " + r.err);
  return std::string(absl::StripAsciiWhitespace(r.out));
}

std::string LocalSlurm::Logs() const {
  std::string logs;
  for (const char* name : {"munged.out", "munged.log", "slurmctld.out",
                           "slurmctld.log", "slurmd.out", "slurmd.log"}) {
    auto text = ReadFileToString(absl::StrCat(dir(), "/", name));
    if (!text.ok() || text->empty()) continue;
    // The end of each is what explains a failure.
    const size_t keep = 3000;
    absl::StrAppend(
        &logs, "--- ", name, "\n",
        text->size() > keep ? text->substr(text->size() - keep) : *text);
  }
  return logs;
}

void LocalSlurm::Stop() {
  if (daemons_.empty()) return;
  // Jobs first (their slurmstepd outlive slurmd otherwise), then the
  // daemons in reverse start order.
  auto queued = Queue();
  if (queued.ok() && !queued->empty()) {
    std::vector<std::string> cancel = {"scancel"};
    for (absl::string_view id : absl::StrSplit(*queued, '\n')) {
      cancel.emplace_back(absl::StripAsciiWhitespace(id));
    }
    hwt::testing::RunCommand(cancel, 30);
    WaitFor(
        [&] {
          auto q = Queue();
          return !q.ok() || q->empty();
        },
        30);
  }
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
    kill(*it, SIGTERM);
    if (!Reap(*it, 20)) {
      kill(*it, SIGKILL);
      Reap(*it, 5);
    }
  }
  daemons_.clear();
}

LocalSlurm::~LocalSlurm() {
  Stop();
  unsetenv("SLURM_CONF");
}

}  // namespace hwt::batch::testing
