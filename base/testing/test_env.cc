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
#include <fstream>
#include <map>
#include <sstream>

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

// --- What tests need, and CI ------------------------------------------------

bool InCi() {
  const char* ci = getenv("CI");
  if (ci == nullptr) return false;
  const std::string value(ci);
  return !value.empty() && value != "0" && value != "false";
}

namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The corpus manifest's relative paths ("SHA256  PATH" lines, as sha256sum
// writes them), or an error message.
std::vector<std::string> CorpusManifestPaths(std::string* error) {
  const std::string manifest = SourceDir() + "/testdata/corpus.sha256";
  std::ifstream in(manifest);
  if (!in) {
    *error = "cannot read " + manifest;
    return {};
  }
  std::vector<std::string> paths;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    if (line.size() < 67 || line.compare(64, 2, "  ") != 0) {
      *error = manifest + ":" + std::to_string(line_number) +
               ": not a \"SHA256  PATH\" line";
      return {};
    }
    paths.push_back(line.substr(66));
  }
  return paths;
}

Requirement Missing(const std::string& what) {
  Requirement r;
  r.outcome = InCi() ? Requirement::kFail : Requirement::kSkip;
  r.message = what + (InCi() ? " (CI=true: a missing requirement fails)"
                             : "; skipping (in CI this fails)");
  return r;
}

}  // namespace

Requirement CheckCorpus(std::string* dir) {
  // Checked once per test process: stat() of every listed file.
  static const Requirement checked = [] {
    const std::optional<std::string> found = CorpusDir();
    if (!found) {
      return Missing(
          "the shared corpus (../shared/corpus, or $HWT_CORPUS_DIR) is not "
          "there");
    }
    std::string error;
    const std::vector<std::string> paths = CorpusManifestPaths(&error);
    Requirement r;
    if (!error.empty()) {
      r.outcome = Requirement::kFail;
      r.message = error;
      return r;
    }
    for (const std::string& path : paths) {
      if (!IsFile(*found + "/" + path)) {
        r.outcome = Requirement::kFail;
        r.message = "the shared corpus at " + *found +
                    " is incomplete: " + path +
                    " (listed in testdata/corpus.sha256) is missing";
        return r;
      }
    }
    r.message = *found;
    return r;
  }();
  if (checked.outcome == Requirement::kMet) *dir = checked.message;
  return checked.outcome == Requirement::kMet ? Requirement{} : checked;
}

namespace {

// .ci/required-tools: tool -> package.
std::map<std::string, std::string> RequiredTools(std::string* error) {
  const std::string list = SourceDir() + "/.ci/required-tools";
  std::ifstream in(list);
  if (!in) {
    *error = "cannot read " + list;
    return {};
  }
  std::map<std::string, std::string> tools;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string tool, package;
    fields >> tool >> package;
    if (!tool.empty()) tools[tool] = package;
  }
  return tools;
}

bool OnPath(const std::string& tool) {
  if (tool.find('/') != std::string::npos) {
    return access(tool.c_str(), X_OK) == 0;
  }
  const char* path = getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
    if (IsFile(candidate) && access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace

Requirement CheckTool(const std::string& tool) {
  std::string error;
  const std::map<std::string, std::string> tools = RequiredTools(&error);
  Requirement r;
  if (!error.empty()) {
    r.outcome = Requirement::kFail;
    r.message = error;
    return r;
  }
  const auto it = tools.find(tool);
  if (it == tools.end()) {
    r.outcome = Requirement::kFail;
    r.message = "a test needs " + tool +
                ", which .ci/required-tools does not list: add it with the "
                "package that installs it (and to scripts/setup.sh --test)";
    return r;
  }
  if (OnPath(tool)) return r;
  return Missing(tool + " is not installed (package " + it->second +
                 ", scripts/setup.sh --test installs it)");
}

Requirement SkipOutsideCi(const std::string& message) {
  return Missing(message);
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

CommandResult RunTool(const std::string& tool, std::vector<std::string> args,
                      int timeout_seconds) {
  std::vector<std::string> argv = {ToolPath(tool)};
  for (std::string& arg : args) argv.push_back(std::move(arg));
  return RunCommand(argv, timeout_seconds);
}

std::string ReadTextOrFail(const std::string& path) {
  auto text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
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
    // A CI run that rewrites its goldens compares nothing.
    ASSERT_FALSE(InCi()) << "HWT_UPDATE_GOLDEN is set in CI: goldens would "
                            "be rewritten, not checked ("
                         << path << ")";
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
