// Implementation of the test helpers; see test_env.h.
#include "base/testing/test_env.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/file_util.h"
#include "gtest/gtest.h"

namespace hwt::testing {

std::string SourceDir() { return HWT_SOURCE_DIR; }
std::string BinaryDir() { return HWT_BINARY_DIR; }
std::string ToolPath(const std::string& name) {
  return BinaryDir() + "/tools/" + name;
}

std::optional<std::string> CorpusDir() {
  const char* env = getenv("HWT_CORPUS_DIR");
  std::string dir = env != nullptr && *env ? std::string(env)
                                           : SourceDir() + "/../shared/corpus";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  // Canonical, so that tests comparing paths tools print see one spelling.
  char* real = realpath(dir.c_str(), nullptr);
  if (real == nullptr) return dir;
  std::string canonical(real);
  free(real);
  return canonical;
}

CommandResult RunCommand(const std::vector<std::string>& argv,
                         int timeout_seconds) {
  CommandResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) {
    result.err = "pipe failed";
    return result;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    fprintf(stderr, "exec %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  bool killed = false;
  char buf[1 << 16];
  while (open_fds > 0) {
    int n = poll(fds, 2, 1000);
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!killed && now.tv_sec - start.tv_sec > timeout_seconds) {
      kill(pid, SIGKILL);
      killed = true;
    }
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t r = read(fds[i].fd, buf, sizeof(buf));
      if (r <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(r));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (killed) result.err += "\n[killed after timeout]";
  return result;
}

// --- Running code in a child process ---------------------------------------

bool RunsInChild(const std::function<int()>& fn, int seconds) {
  fflush(nullptr);  // or the child's exit flushes the parent's buffers again
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) _exit(fn());
  for (int waited_ms = 0; waited_ms < seconds * 1000; waited_ms += 10) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return false;
}

// --- Golden files ----------------------------------------------------------

void ExpectMatchesGolden(const std::string& actual, const std::string& path) {
  if (getenv("HWT_UPDATE_GOLDEN") != nullptr) {
    const absl::Status written = WriteFileAtomically(path, actual);
    ASSERT_TRUE(written.ok()) << written;
    GTEST_SKIP() << "golden rewritten: " << path;
  }
  const absl::StatusOr<std::string> expected = ReadFileToString(path);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(actual, *expected)
      << "golden file " << path << " (HWT_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace hwt::testing
