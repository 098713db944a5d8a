// The valgrind (lackey superblock trace) recorder; see valgrind_recorder.h
// and docs/recorder.md.
#include "recorder/valgrind_recorder.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"
#include "recorder/code_map.h"

namespace hwt::recorder {
namespace {

constexpr int kMaxSuperblockInsns = 50;  // --vex-guest-max-insns
constexpr int kLogFd = 3;
constexpr size_t kBatch = 4096;
constexpr uint16_t kEtDyn = 3;

std::string Errno(const std::string& what) {
  return absl::StrFormat("%s: %s", what, strerror(errno));
}

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (const std::string& s : strings) {
    result.push_back(const_cast<char*>(s.c_str()));
  }
  result.push_back(nullptr);
  return result;
}

// argv[0] as a path: searched in PATH when it has no '/'. The program runs
// under this name (its argv[0] and AT_EXECFN); `canonical` receives the
// path /proc/PID/exe would show.
absl::StatusOr<std::string> ResolveProgram(const std::string& program,
                                           std::string* canonical) {
  std::string found = program;
  if (program.find('/') == std::string::npos) {
    const char* path = getenv("PATH");
    found.clear();
    for (absl::string_view dir :
         absl::StrSplit(path ? path : "/usr/bin:/bin", ':')) {
      std::string candidate =
          absl::StrFormat("%s/%s", std::string(dir), program);
      if (access(candidate.c_str(), X_OK) == 0) {
        found = candidate;
        break;
      }
    }
    if (found.empty()) {
      return absl::NotFoundError(absl::StrFormat(
          "valgrind recorder: cannot execute '%s': not found in PATH",
          program));
    }
  }
  char real[PATH_MAX];
  if (realpath(found.c_str(), real) == nullptr) {
    return absl::Status(
        errno == ENOENT ? absl::StatusCode::kNotFound
                        : absl::StatusCode::kFailedPrecondition,
        absl::StrFormat("valgrind recorder: cannot execute '%s': %s", program,
                        strerror(errno)));
  }
  *canonical = real;
  return found;
}

// A running valgrind whose log (lackey's output) is readable from log_fd.
struct ValgrindProcess {
  pid_t pid = -1;
  int log_fd = -1;
};

absl::StatusOr<ValgrindProcess> Launch(const ValgrindRecorderOptions& options,
                                       const std::string& program,
                                       bool trace_superblocks) {
  std::vector<std::string> args = {
      options.valgrind,
      "--tool=lackey",
      "--vex-guest-chase=no",
      "--vex-iropt-unroll-thresh=0",
      absl::StrFormat("--vex-guest-max-insns=%d", kMaxSuperblockInsns),
      absl::StrFormat("--log-fd=%d", kLogFd)};
  if (trace_superblocks) args.push_back("--trace-superblocks=yes");
  args.push_back("--");
  args.push_back(program);
  for (size_t i = 1; i < options.argv.size(); ++i) {
    args.push_back(options.argv[i]);
  }
  std::vector<std::string> env_strings;
  if (options.env) {
    env_strings = *options.env;
  } else {
    for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
  }
  std::vector<char*> argv = CStrings(args);
  std::vector<char*> envp = CStrings(env_strings);

  int log_pipe[2];
  int error_pipe[2];
  if (pipe2(log_pipe, O_CLOEXEC) != 0 || pipe2(error_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(Errno("pipe2"));
  }
  fcntl(log_pipe[0], F_SETPIPE_SZ, 1 << 20);  // best effort
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError(Errno("fork"));
  if (pid == 0) {
    auto fail = [&](int stage) {
      int report[2] = {stage, errno};
      (void)!write(error_pipe[1], report, sizeof report);
      _exit(127);
    };
    const std::string* paths[3] = {&options.stdin_path, &options.stdout_path,
                                   &options.stderr_path};
    for (int fd = 0; fd < 3; ++fd) {
      if (paths[fd]->empty()) continue;
      int flags = fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
      int opened = open(paths[fd]->c_str(), flags, 0644);
      if (opened < 0 || dup2(opened, fd) < 0) fail(1 + fd);
      close(opened);
    }
    // dup2 clears close-on-exec on the new descriptor.
    if (dup2(log_pipe[1], kLogFd) < 0) fail(4);
    if (options.valgrind.find('/') != std::string::npos) {
      execve(options.valgrind.c_str(), argv.data(), envp.data());
    } else {
      execvpe(options.valgrind.c_str(), argv.data(), envp.data());
    }
    fail(0);
  }
  close(log_pipe[1]);
  close(error_pipe[1]);
  int report[2] = {0, 0};
  ssize_t got = read(error_pipe[0], report, sizeof report);
  close(error_pipe[0]);
  if (got == sizeof report) {
    int status = 0;
    waitpid(pid, &status, 0);
    close(log_pipe[0]);
    const std::string& what = report[0] == 0   ? options.valgrind
                              : report[0] == 1 ? options.stdin_path
                              : report[0] == 2 ? options.stdout_path
                              : report[0] == 3 ? options.stderr_path
                                               : std::string("log pipe");
    return absl::FailedPreconditionError(absl::StrFormat(
        "valgrind recorder: cannot %s '%s': %s",
        report[0] == 0 ? "execute" : "open", what, strerror(report[1])));
  }
  return ValgrindProcess{pid, log_pipe[0]};
}

// Reads valgrind's log line by line.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // The next line without '\n'; false at the end of the stream.
  bool Next(std::string_view* line) {
    for (;;) {
      size_t newline = buffer_.find('\n', pos_);
      if (newline != std::string::npos) {
        *line = std::string_view(buffer_).substr(pos_, newline - pos_);
        pos_ = newline + 1;
        return true;
      }
      buffer_.erase(0, pos_);
      pos_ = 0;
      char chunk[1 << 16];
      ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0 && static_cast<size_t>(n) < sizeof chunk / 2) {
        // valgrind writes one line per system call: let the pipe fill up
        // rather than waking up for every line.
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, nullptr);
      }
      if (n <= 0) {
        if (buffer_.empty()) return false;
        buffer_.push_back('\n');  // last line without newline
        continue;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  size_t pos_ = 0;
};

// Turns superblock starts into the executed instruction sequence.
class SuperblockWalker {
 public:
  SuperblockWalker(CodeMap& code, ExecutionSink& sink)
      : code_(code), sink_(sink) {}

  // A superblock was entered at `start`: the previous one can be walked.
  absl::Status OnSuperblock(uint64_t start) {
    if (current_) HWT_RETURN_IF_ERROR(Walk(*current_, start, SIZE_MAX));
    current_ = start;
    return absl::OkStatus();
  }

  // The trace ended. `guest_instructions` is lackey's count of executed
  // instructions (rep iterations each): it checks the reconstruction and,
  // for a program killed by a signal, tells where the last superblock
  // stopped.
  absl::Status Finish(uint64_t guest_instructions, bool killed) {
    if (current_) {
      size_t limit = SIZE_MAX;
      if (killed) {
        if (guest_instructions < counted_) {
          return Mismatch(guest_instructions);
        }
        // lackey counts an instruction when it starts: the faulting one is
        // counted but did not complete.
        uint64_t started = guest_instructions - counted_;
        limit = started > 0 ? static_cast<size_t>(started - 1) : 0;
      }
      HWT_RETURN_IF_ERROR(Walk(*current_, std::nullopt, limit));
      if (killed) counted_ = guest_instructions;
    }
    Flush();
    if (counted_ != guest_instructions) return Mismatch(guest_instructions);
    return absl::OkStatus();
  }

  uint64_t emitted() const { return emitted_; }

 private:
  enum class Kind : uint8_t { kStraight, kSideExit, kEnd };
  struct Entry {
    uint64_t ip = 0;
    uint64_t target = 0;
    uint8_t length = 0;
    Kind kind = Kind::kStraight;
    x86::InsnClass cls = x86::InsnClass::kOther;
    bool rep_string = false;
  };

  absl::Status Mismatch(uint64_t guest_instructions) {
    return absl::InternalError(absl::StrFormat(
        "valgrind recorder: the reconstruction has %d instructions (rep "
        "iterations each) where lackey counted %d: a superblock ended where "
        "the walk did not expect it (a fault or a signal in the middle of a "
        "superblock? programs that take signals cannot be recorded with "
        "valgrind)",
        counted_, guest_instructions));
  }

  // The opcode byte after legacy prefixes and REX.
  uint8_t OpcodeByte(uint64_t ip, uint8_t length, uint8_t* second) {
    uint8_t bytes[15] = {};
    size_t n = code_.ReadCode(ip, absl::MakeSpan(bytes, length));
    size_t i = 0;
    while (i < n && (bytes[i] == 0x66 || bytes[i] == 0x67 || bytes[i] == 0xf2 ||
                     bytes[i] == 0xf3 || bytes[i] == 0x2e || bytes[i] == 0x3e ||
                     bytes[i] == 0x26 || bytes[i] == 0x36 || bytes[i] == 0x64 ||
                     bytes[i] == 0x65 || bytes[i] == 0xf0 ||
                     (bytes[i] & 0xf0) == 0x40)) {
      ++i;
    }
    *second = i + 1 < n ? bytes[i + 1] : 0;
    return i < n ? bytes[i] : 0;
  }

  // The superblock VEX builds at `start` (without following side exits).
  absl::StatusOr<const std::vector<Entry>*> Block(uint64_t start) {
    auto it = blocks_.find(start);
    if (it != blocks_.end()) return &it->second;
    std::vector<Entry> block;
    uint64_t ip = start;
    for (int n = 0; n < kMaxSuperblockInsns; ++n) {
      std::optional<x86::Insn> insn = code_.InsnAt(ip);
      if (!insn) {
        return absl::DataLossError(absl::StrFormat(
            "valgrind recorder: cannot decode the instruction at 0x%x "
            "(superblock at 0x%x): code outside the program image (valgrind's "
            "own trampolines run for signals) or not code",
            ip, start));
      }
      Entry e;
      e.ip = ip;
      e.length = insn->length;
      e.cls = insn->cls;
      e.target = insn->target;
      e.rep_string = insn->rep_string;
      uint8_t second = 0;
      uint8_t opcode = OpcodeByte(ip, insn->length, &second);
      if (insn->cls == x86::InsnClass::kCondJump && opcode >= 0xe0 &&
          opcode <= 0xe3) {
        e.kind = Kind::kSideExit;  // loop, loope, loopne, jrcxz
      } else if (insn->cls != x86::InsnClass::kOther || insn->rep_string) {
        e.kind = Kind::kEnd;
      } else if (opcode == 0x90 && insn->length >= 2) {
        // pause (F3 90) yields to the scheduler: VEX ends the block.
        uint8_t bytes[2] = {};
        code_.ReadCode(ip, absl::MakeSpan(bytes, 2));
        e.kind = bytes[0] == 0xf3 ? Kind::kEnd : Kind::kStraight;
      } else if (opcode == 0xf4 || (opcode == 0x0f && second == 0x0b)) {
        e.kind = Kind::kEnd;  // hlt, ud2: fault
      }
      block.push_back(e);
      if (e.kind == Kind::kEnd) break;
      ip += insn->length;
    }
    block.back().kind = Kind::kEnd;  // at the latest after 50 instructions
    return &blocks_.emplace(start, std::move(block)).first->second;
  }

  // Walks the superblock at `start` given where the next one starts
  // (nullopt at the end of the trace), emitting at most `limit`
  // instructions.
  absl::Status Walk(uint64_t start, std::optional<uint64_t> next,
                    size_t limit) {
    HWT_ASSIGN_OR_RETURN(const std::vector<Entry>* block, Block(start));
    if (rep_continues_at_ == start) {
      // Another iteration of the rep string instruction that ended the
      // previous superblock: counted once by PT, so not emitted again.
      const Entry& rep = block->front();
      ++counted_;
      return CheckExit(start, rep, next);
    }
    for (size_t i = 0; i < block->size(); ++i) {
      const Entry& e = (*block)[i];
      if (limit == 0) return absl::OkStatus();
      --limit;
      Emit(e.ip);
      if (i + 1 == block->size()) return CheckExit(start, e, next);
      if (e.kind == Kind::kSideExit && next && *next == e.target) {
        if (RestCanReach(*block, i + 1, *next)) {
          return absl::DataLossError(absl::StrFormat(
              "valgrind recorder: ambiguous trace: %s at 0x%x (superblock at "
              "0x%x) may have jumped to 0x%x, or the rest of the superblock "
              "may have run and continued there; a superblock trace cannot "
              "tell",
              code_.Disassemble(e.ip), e.ip, start, *next));
        }
        rep_continues_at_ = 0;
        return absl::OkStatus();  // the side exit was taken
      }
    }
    return absl::OkStatus();
  }

  // Whether the superblock from entry `from` on can leave to `addr` by a
  // statically known exit (indirect branches are assumed not to).
  static bool RestCanReach(const std::vector<Entry>& block, size_t from,
                           uint64_t addr) {
    for (size_t i = from; i < block.size(); ++i) {
      const Entry& e = block[i];
      bool last = i + 1 == block.size();
      if (e.kind == Kind::kSideExit && e.target == addr) return true;
      if (!last) continue;
      uint64_t fall = e.ip + e.length;
      if (e.rep_string) return addr == e.ip || addr == fall;
      switch (e.cls) {
        case x86::InsnClass::kCondJump:
          return addr == e.target || addr == fall;
        case x86::InsnClass::kJump:
        case x86::InsnClass::kCall:
          return addr == e.target;
        case x86::InsnClass::kOther:
        case x86::InsnClass::kFarCall:
          return addr == fall;
        default:
          return false;
      }
    }
    return false;
  }

  // Checks that the superblock's last instruction `e` can reach `next`.
  absl::Status CheckExit(uint64_t start, const Entry& e,
                         std::optional<uint64_t> next) {
    rep_continues_at_ = 0;
    if (!next) return absl::OkStatus();
    uint64_t fall = e.ip + e.length;
    bool ok = true;
    if (e.rep_string) {
      ok = *next == e.ip || *next == fall;
      if (*next == e.ip) rep_continues_at_ = e.ip;
    } else {
      switch (e.cls) {
        case x86::InsnClass::kCondJump:
          ok = *next == e.target || *next == fall;
          break;
        case x86::InsnClass::kJump:
        case x86::InsnClass::kCall:
          ok = *next == e.target;
          break;
        case x86::InsnClass::kOther:
          ok = *next == fall;
          break;
        default:  // indirect, return, system call: anywhere
          break;
      }
    }
    if (!ok) {
      return absl::DataLossError(absl::StrFormat(
          "valgrind recorder: the superblock at 0x%x ends with %s at 0x%x, "
          "which cannot continue at 0x%x where the next superblock starts "
          "(a signal? programs that take signals cannot be recorded with "
          "valgrind)",
          start, code_.Disassemble(e.ip), e.ip, *next));
    }
    return absl::OkStatus();
  }

  void Emit(uint64_t ip) {
    buffer_.push_back(ip);
    ++emitted_;
    ++counted_;
    if (buffer_.size() >= kBatch) Flush();
  }

  void Flush() {
    if (buffer_.empty()) return;
    sink_.OnInstructions(buffer_);
    buffer_.clear();
  }

  CodeMap& code_;
  ExecutionSink& sink_;
  std::optional<uint64_t> current_;
  uint64_t rep_continues_at_ = 0;
  uint64_t emitted_ = 0;
  uint64_t counted_ = 0;  // emitted plus repeated rep iterations
  std::vector<uint64_t> buffer_;
  absl::flat_hash_map<uint64_t, std::vector<Entry>> blocks_;
};

// "==123==   guest instrs:  18,454" -> 18454.
std::optional<uint64_t> ParseGuestInstrs(std::string_view line) {
  size_t at = line.find("guest instrs:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string digits = absl::StrReplaceAll(std::string(line.substr(at + 13)),
                                           {{",", ""}, {" ", ""}});
  uint64_t value = 0;
  if (!absl::SimpleAtoi(digits, &value)) return std::nullopt;
  return value;
}

class ValgrindSession {
 public:
  ValgrindSession(const ValgrindRecorderOptions& options, ExecutionSink& sink)
      : options_(options), sink_(sink) {}

  ~ValgrindSession() {
    if (process_.pid > 0) {
      kill(process_.pid, SIGKILL);
      int status = 0;
      waitpid(process_.pid, &status, 0);
    }
    if (process_.log_fd >= 0) close(process_.log_fd);
  }

  absl::StatusOr<RecordingStats> Run() {
    auto start_time = std::chrono::steady_clock::now();
    if (options_.argv.empty()) {
      return absl::InvalidArgumentError("valgrind recorder: no program given");
    }
    std::string program;
    HWT_ASSIGN_OR_RETURN(std::string run_as,
                         ResolveProgram(options_.argv[0], &program));
    HWT_ASSIGN_OR_RETURN(capture::ElfInfo elf, capture::ReadElfFile(program));
    if (!elf.interpreter.empty()) {
      return absl::UnimplementedError(absl::StrFormat(
          "valgrind recorder: %s is dynamically linked (PT_INTERP %s): "
          "valgrind loads the interpreter and libraries at addresses of its "
          "own choosing that its output does not tell; link it statically "
          "or use the ptrace recorder",
          program, elf.interpreter));
    }
    HWT_ASSIGN_OR_RETURN(process_, Launch(options_, run_as, true));

    ExecutionInfo info;
    info.command = absl::StrJoin(options_.argv, " ");
    info.cpu = options_.cpu;
    if (info.cpu.arch.empty()) info.cpu.arch = "x86_64";
    info.recorder = "valgrind-lackey";
    sink_.OnStart(info);

    CodeMap code;
    SuperblockWalker walker(code, sink_);
    LineReader reader(process_.log_fd);
    std::optional<uint64_t> guest_instructions;
    std::vector<std::string> messages;
    bool started = false;
    std::string_view line;
    while (reader.Next(&line)) {
      if (line.size() > 3 && line.substr(0, 3) == "SB ") {
        uint64_t addr = 0;
        if (!absl::SimpleHexAtoi(
                absl::string_view(line.data() + 3, line.size() - 3), &addr)) {
          return absl::DataLossError(absl::StrFormat(
              "valgrind recorder: cannot parse lackey's line '%s'",
              std::string(line)));
        }
        if (!started) {
          // The first superblock is the program's entry point: it gives
          // the load bias of a static PIE.
          MappingEvent exec;
          exec.type = capture::RecordType::kExecutable;
          exec.path = program;
          exec.addr = elf.type == kEtDyn ? addr - elf.entry : 0;
          if (elf.type != kEtDyn && addr != elf.entry) {
            return absl::DataLossError(absl::StrFormat(
                "valgrind recorder: the first superblock is at 0x%x, not at "
                "%s's entry point 0x%x",
                addr, program, elf.entry));
          }
          HWT_RETURN_IF_ERROR(code.Apply(exec));
          sink_.OnMapping(exec);
          ++stats_.mapping_events;
          started = true;
        }
        ++stats_.superblocks;
        HWT_RETURN_IF_ERROR(walker.OnSuperblock(addr));
        continue;
      }
      if (auto count = ParseGuestInstrs(line)) guest_instructions = count;
      if (messages.size() < 50) messages.emplace_back(line);
    }
    int status = 0;
    if (waitpid(process_.pid, &status, 0) != process_.pid) {
      return absl::InternalError(Errno("waitpid"));
    }
    process_.pid = -1;
    bool killed = WIFSIGNALED(status);
    int exit_status = killed ? -WTERMSIG(status) : WEXITSTATUS(status);
    if (!started || !guest_instructions) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "valgrind recorder: valgrind traced no instruction of %s (exit "
          "status %d); its messages:\n%s",
          program, exit_status, absl::StrJoin(messages, "\n")));
    }
    HWT_RETURN_IF_ERROR(walker.Finish(*guest_instructions, killed));
    sink_.OnExit(exit_status);
    stats_.instructions = walker.emitted();
    stats_.guest_instructions = *guest_instructions;
    stats_.exit_status = exit_status;
    stats_.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start_time)
                         .count();
    return stats_;
  }

 private:
  const ValgrindRecorderOptions& options_;
  ExecutionSink& sink_;
  ValgrindProcess process_;
  RecordingStats stats_;
};

}  // namespace

absl::StatusOr<RecordingStats> RecordWithValgrind(
    const ValgrindRecorderOptions& options, ExecutionSink& sink) {
  ValgrindSession session(options, sink);
  return session.Run();
}

absl::StatusOr<int> RunUnderValgrind(const ValgrindRecorderOptions& options) {
  if (options.argv.empty()) {
    return absl::InvalidArgumentError("valgrind recorder: no program given");
  }
  std::string canonical;
  HWT_ASSIGN_OR_RETURN(std::string run_as,
                       ResolveProgram(options.argv[0], &canonical));
  HWT_ASSIGN_OR_RETURN(ValgrindProcess process, Launch(options, run_as, false));
  LineReader reader(process.log_fd);
  std::string_view line;
  while (reader.Next(&line)) {
  }
  close(process.log_fd);
  int status = 0;
  if (waitpid(process.pid, &status, 0) != process.pid) {
    return absl::InternalError(Errno("waitpid"));
  }
  return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

}  // namespace hwt::recorder
