// The valgrind recorder (the hwttrace tool's instruction stream); see
// valgrind_recorder.h and docs/recorder.md.
#include "recorder/valgrind_recorder.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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
#include <functional>
#include <memory>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"
#include "recorder/proc_maps.h"
#include "recorder/syscall_util.h"
#include "recorder/valgrind_trace.h"

namespace hwt::recorder {
namespace {

constexpr size_t kInstructionBatch = 1 << 16;
// The payload that marks errors the ptrace recorder can do better.
constexpr char kPtraceInstead[] = "hwt.recorder/ptrace-instead";
constexpr size_t kReadBytes = 1 << 20;
constexpr uint64_t kPageMask = ~uint64_t{0xfff};

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

// A running valgrind whose trace is readable from trace_fd (non-blocking;
// the recorder also holds a writer so that the FIFO never reads as ended
// while one program execs the next).
struct ValgrindProcess {
  pid_t pid = -1;
  int trace_fd = -1;
  int keep_open_fd = -1;
  std::string tmpdir = "/tmp";  // valgrind's $TMPDIR
};

// Valgrind writes the client's command line and auxv to
// $TMPDIR/valgrind_proc_PID_{cmdline,auxv}_XXXXXXXX and unlinks them at
// once; a valgrind killed in between (an interrupt right at its start)
// leaves them behind, so they go after a kill.
void RemoveValgrindTempFiles(const std::string& tmpdir, pid_t pid) {
  DIR* dir = opendir(tmpdir.c_str());
  if (dir == nullptr) return;
  const std::string prefix = absl::StrFormat("valgrind_proc_%d_", pid);
  while (const dirent* entry = readdir(dir)) {
    if (strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0) {
      unlinkat(dirfd(dir), entry->d_name, 0);
    }
  }
  closedir(dir);
}

// Starts `program` under valgrind with hwttrace writing to a FIFO in `dir`;
// valgrind's own messages go to dir/valgrind-PID.log.
absl::StatusOr<ValgrindProcess> Launch(const ValgrindRecorderOptions& options,
                                       const std::string& program,
                                       const std::string& tool_dir,
                                       const std::string& dir) {
  const std::string fifo = dir + "/trace";
  if (mkfifo(fifo.c_str(), 0600) != 0) {
    return absl::InternalError(ErrnoText("mkfifo " + fifo));
  }
  ValgrindProcess process;
  process.trace_fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  process.keep_open_fd = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  if (process.trace_fd < 0 || process.keep_open_fd < 0) {
    return absl::InternalError(ErrnoText("open " + fifo));
  }
  fcntl(process.trace_fd, F_SETPIPE_SZ, 1 << 20);  // best effort

  std::vector<std::string> args = {
      options.valgrind, "--tool=hwttrace", "--hwt-out=" + fifo,
      "",  // --hwt-pid=, filled in by the child
      "--trace-children=yes",
      // valgrind would run glibc's and libstdc++'s clean-up code at exit,
      // which the program does not run on its own.
      "--run-libc-freeres=no", "--run-cxx-freeres=no",
      // No gdbserver: its FIFOs in $TMPDIR outlive a killed valgrind.
      "--vgdb=no", "--log-file=" + dir + "/valgrind-%p.log", "--"};
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
  std::erase_if(env_strings, [](const std::string& e) {
    return e.rfind("VALGRIND_LIB=", 0) == 0;
  });
  env_strings.push_back("VALGRIND_LIB=" + tool_dir);
  for (const std::string& e : env_strings) {
    if (e.rfind("TMPDIR=", 0) == 0 && e.size() > 7) {
      process.tmpdir = e.substr(7);
    }
  }
  std::vector<char*> argv = CStringArray(args);
  std::vector<char*> envp = CStringArray(env_strings);
  char pid_arg[32] = "--hwt-pid=";
  argv[3] = pid_arg;

  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(ErrnoText("pipe2"));
  }
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError(ErrnoText("fork"));
  if (pid == 0) {
    auto fail = [&](int stage) {
      int report[2] = {stage, errno};
      (void)!write(error_pipe[1], report, sizeof report);
      _exit(127);
    };
    // The pid in decimal, without allocating after fork.
    char digits[24];
    int n = 0;
    for (pid_t v = getpid(); v > 0; v /= 10) digits[n++] = '0' + v % 10;
    char* out = pid_arg + strlen(pid_arg);
    while (n > 0) *out++ = digits[--n];
    *out = 0;
    const std::string* paths[3] = {&options.stdin_path, &options.stdout_path,
                                   &options.stderr_path};
    for (int fd = 0; fd < 3; ++fd) {
      if (paths[fd]->empty()) continue;
      int flags = fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
      int opened = open(paths[fd]->c_str(), flags, 0644);
      if (opened < 0 || dup2(opened, fd) < 0) fail(1 + fd);
      close(opened);
    }
    if (options.valgrind.find('/') != std::string::npos) {
      execve(options.valgrind.c_str(), argv.data(), envp.data());
    } else {
      execvpe(options.valgrind.c_str(), argv.data(), envp.data());
    }
    fail(0);
  }
  process.pid = pid;
  close(error_pipe[1]);
  int report[2] = {0, 0};
  ssize_t got = read(error_pipe[0], report, sizeof report);
  close(error_pipe[0]);
  if (got == sizeof report) {
    int status = 0;
    waitpid(pid, &status, 0);
    close(process.trace_fd);
    close(process.keep_open_fd);
    const std::string& what = report[0] == 0   ? options.valgrind
                              : report[0] == 1 ? options.stdin_path
                              : report[0] == 2 ? options.stdout_path
                                               : options.stderr_path;
    return absl::FailedPreconditionError(absl::StrFormat(
        "valgrind recorder: cannot %s '%s': %s",
        report[0] == 0 ? "execute" : "open", what, strerror(report[1])));
  }
  return process;
}

// The virtual address of file offset `offset` in `elf` (page granular: the
// PT_LOAD whose pages hold it).
std::optional<uint64_t> VaddrOfOffset(const capture::ElfInfo& elf,
                                      uint64_t offset) {
  for (const capture::ElfSegment& seg : elf.segments) {
    if (seg.type != 1 /* PT_LOAD */) continue;
    if (offset >= (seg.offset & kPageMask) &&
        offset < seg.offset + std::max<uint64_t>(seg.filesz, 1)) {
      return seg.vaddr - seg.offset + offset;
    }
  }
  return std::nullopt;
}

uint64_t InodeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

absl::Status PtraceInstead(const std::string& message) {
  absl::Status status = absl::UnimplementedError(message);
  status.SetPayload(kPtraceInstead, absl::Cord("1"));
  return status;
}

std::string Canonical(const std::string& path) {
  char real[PATH_MAX];
  return realpath(path.c_str(), real) != nullptr ? std::string(real) : path;
}

// The tool's stream turned into the ExecutionSink's calls.
class TraceConsumer : public ToolTraceHandler {
 public:
  TraceConsumer(ExecutionSink& sink, RecordingStats& stats,
                std::string first_program, uint64_t limit)
      : sink_(sink),
        stats_(stats),
        first_program_(std::move(first_program)),
        limit_(limit) {
    ips_.reserve(kInstructionBatch);
    lengths_.reserve(kInstructionBatch);
  }

  absl::Status OnInstructionWords(absl::Span<const uint64_t> words) override {
    if (!have_program_) {
      return absl::DataLossError(
          "valgrind recorder: instructions before the program's mappings");
    }
    if (stopped_) return absl::OkStatus();
    stats_.guest_instructions += words.size();
    for (uint64_t word : words) {
      ToolInstruction insn = DecodeToolWord(word);
      // Further iterations of a rep string: PT counts it once.
      if (insn.repeats && last_repeats_ && insn.ip == last_ip_) continue;
      last_ip_ = insn.ip;
      last_repeats_ = insn.repeats;
      ips_.push_back(insn.ip);
      lengths_.push_back(insn.length);
      if (limit_ != 0 && stats_.instructions + ips_.size() >= limit_) {
        Flush();
        stopped_ = true;  // max_instructions: the program is killed
        return absl::OkStatus();
      }
      if (ips_.size() == kInstructionBatch) Flush();
    }
    return absl::OkStatus();
  }

  absl::Status OnRecord(ToolRecordType type,
                        std::string_view payload) override {
    switch (type) {
      case ToolRecordType::kStart:
        return OnStartRecord(payload);
      case ToolRecordType::kMaps:
        return OnMaps(payload);
      case ToolRecordType::kCode:
        return OnCode(payload);
      case ToolRecordType::kAnon:
        return PtraceInstead(absl::StrFormat(
            "valgrind recorder: the program runs code at 0x%x, in memory no "
            "file backs (generated code); the valgrind recorder cannot "
            "record it: use the ptrace recorder",
            Word(payload, 0)));
      case ToolRecordType::kNoDecode:
        return PtraceInstead(absl::StrFormat(
            "valgrind recorder: valgrind cannot decode the instruction at "
            "0x%x (it would raise SIGILL where the real CPU runs it): use "
            "the ptrace recorder",
            Word(payload, 0)));
      case ToolRecordType::kSignal:
        ++stats_.signals_delivered;
        return absl::OkStatus();
      case ToolRecordType::kThread:
        return absl::UnimplementedError(
            "valgrind recorder: the program creates a thread; recording "
            "threads is not supported");
      case ToolRecordType::kEnd:
        Flush();
        ended_ = true;
        return absl::OkStatus();
    }
    return absl::DataLossError(absl::StrFormat(
        "valgrind recorder: unknown record type %d in the tool's stream",
        static_cast<int>(type)));
  }

  void Flush() {
    if (ips_.empty()) return;
    stats_.instructions += ips_.size();
    sink_.OnInstructionsWithLengths(ips_, lengths_);
    ips_.clear();
    lengths_.clear();
  }

  bool ended() const { return ended_; }
  bool stopped() const { return stopped_; }
  bool started() const { return have_program_; }

 private:
  static uint64_t Word(std::string_view payload, size_t i) {
    uint64_t w = 0;
    if (payload.size() >= 8 * (i + 1)) memcpy(&w, payload.data() + 8 * i, 8);
    return w;
  }

  absl::Status OnStartRecord(std::string_view payload) {
    if (payload.size() < 8) {
      return absl::DataLossError("valgrind recorder: short START record");
    }
    Flush();
    // The first program is the one we started (as /proc/PID/exe would
    // name it); later ones are what it exec'd.
    std::string name(payload.substr(8));
    program_ = programs_started_++ == 0 ? first_program_ : Canonical(name);
    pending_exec_ = true;
    last_repeats_ = false;
    return absl::OkStatus();
  }

  absl::Status Emit(const MappingEvent& event) {
    Flush();
    sink_.OnMapping(event);
    ++stats_.mapping_events;
    return absl::OkStatus();
  }

  // The EXECUTABLE event of a new program from its first mappings: the load
  // bias of the program and of its interpreter, where valgrind put them.
  absl::Status EmitExecutable(const std::vector<ProcMapping>& maps) {
    HWT_ASSIGN_OR_RETURN(capture::ElfInfo elf, capture::ReadElfFile(program_));
    MappingEvent exec;
    exec.type = capture::RecordType::kExecutable;
    exec.path = program_;
    std::vector<ProcMapping> covered;
    HWT_ASSIGN_OR_RETURN(uint64_t bias, BiasOf(program_, elf, maps, &covered));
    exec.addr = elf.type == ET_DYN ? bias : 0;
    if (!elf.interpreter.empty()) {
      HWT_ASSIGN_OR_RETURN(capture::ElfInfo interp,
                           capture::ReadElfFile(elf.interpreter));
      HWT_ASSIGN_OR_RETURN(exec.baseaddr,
                           BiasOf(elf.interpreter, interp, maps, &covered));
    }
    HWT_RETURN_IF_ERROR(Emit(exec));
    maps_ = std::move(covered);
    have_program_ = true;
    return absl::OkStatus();
  }

  // The load bias of `path` from its executable mappings in `maps` (which
  // are appended to `covered`).
  absl::StatusOr<uint64_t> BiasOf(const std::string& path,
                                  const capture::ElfInfo& elf,
                                  const std::vector<ProcMapping>& maps,
                                  std::vector<ProcMapping>* covered) {
    const uint64_t inode = InodeOf(path);
    std::optional<uint64_t> bias;
    for (const ProcMapping& m : maps) {
      if (m.inode != inode || inode == 0) continue;
      std::optional<uint64_t> vaddr = VaddrOfOffset(elf, m.offset);
      if (!vaddr) continue;
      if (!bias) bias = m.start - *vaddr;
      covered->push_back(m);
    }
    if (!bias) {
      return absl::DataLossError(absl::StrFormat(
          "valgrind recorder: valgrind reports no executable mapping of %s",
          path));
    }
    return *bias;
  }

  absl::Status OnMaps(std::string_view text) {
    HWT_ASSIGN_OR_RETURN(std::vector<ProcMapping> maps, ParseProcMaps(text));
    if (pending_exec_) {
      pending_exec_ = false;
      HWT_RETURN_IF_ERROR(EmitExecutable(maps));
    }
    std::vector<MappingEvent> events = DiffExecutableMappings(
        maps_, maps, [](const std::string& path) -> std::optional<uint64_t> {
          auto elf = capture::ReadElfFile(path);
          if (!elf.ok()) return std::nullopt;
          auto loads = elf->ExecutableLoads();
          if (loads.empty()) return std::nullopt;
          return loads.front().offset & kPageMask;
        });
    maps_ = std::move(maps);
    for (const MappingEvent& event : events) HWT_RETURN_IF_ERROR(Emit(event));
    return absl::OkStatus();
  }

  // Valgrind's own code that the program runs (the signal return
  // trampoline, in the tool's executable): an image of its own, mapped at
  // its load bias.
  absl::Status OnCode(std::string_view line) {
    HWT_ASSIGN_OR_RETURN(std::vector<ProcMapping> maps, ParseProcMaps(line));
    if (maps.size() != 1) {
      return absl::DataLossError("valgrind recorder: malformed CODE record");
    }
    const ProcMapping& m = maps[0];
    HWT_ASSIGN_OR_RETURN(capture::ElfInfo elf, capture::ReadElfFile(m.path));
    std::optional<uint64_t> vaddr = VaddrOfOffset(elf, m.offset);
    std::vector<capture::ElfSegment> loads = elf.ExecutableLoads();
    if (!vaddr || loads.empty()) {
      return absl::DataLossError(absl::StrFormat(
          "valgrind recorder: guest code at 0x%x in %s, which has no "
          "executable segment there",
          m.start, m.path));
    }
    MappingEvent event;
    event.type = capture::RecordType::kMmap;
    event.path = m.path;
    event.addr = (loads.front().vaddr & kPageMask) + (m.start - *vaddr);
    return Emit(event);
  }

  ExecutionSink& sink_;
  RecordingStats& stats_;
  const std::string first_program_;
  const uint64_t limit_;
  bool stopped_ = false;
  std::string program_;
  int programs_started_ = 0;
  bool pending_exec_ = false;
  bool have_program_ = false;
  bool ended_ = false;
  std::vector<ProcMapping> maps_;
  uint64_t last_ip_ = 0;
  bool last_repeats_ = false;
  std::vector<uint64_t> ips_;
  std::vector<uint8_t> lengths_;
};

class ValgrindSession {
 public:
  ValgrindSession(const ValgrindRecorderOptions& options, ExecutionSink& sink)
      : options_(options), sink_(sink) {}

  ~ValgrindSession() {
    if (process_.pid > 0) {
      kill(process_.pid, SIGKILL);
      int status = 0;
      waitpid(process_.pid, &status, 0);
      RemoveValgrindTempFiles(process_.tmpdir, process_.pid);
    }
    if (process_.trace_fd >= 0) close(process_.trace_fd);
    if (process_.keep_open_fd >= 0) close(process_.keep_open_fd);
  }

  // Starts the program; `program` receives its canonical path.
  absl::Status Start(std::string* program) {
    if (options_.argv.empty()) {
      return absl::InvalidArgumentError("valgrind recorder: no program given");
    }
    HWT_ASSIGN_OR_RETURN(std::string run_as,
                         ResolveProgram(options_.argv[0], program));
    std::string tool_dir = options_.tool_dir;
    if (tool_dir.empty()) {
      HWT_ASSIGN_OR_RETURN(tool_dir, FindValgrindToolDir());
    }
    HWT_ASSIGN_OR_RETURN(dir_, TempDir::Create("hwt-valgrind"));
    HWT_ASSIGN_OR_RETURN(process_,
                         Launch(options_, run_as, tool_dir, dir_->path()));
    return absl::OkStatus();
  }

  // Reads the trace until valgrind exits, handing whole words to `handler`;
  // returns the wait status.
  absl::StatusOr<int> Pump(ToolTraceHandler& handler,
                           const std::function<bool()>& stop = nullptr) {
    std::vector<uint64_t> buffer(kReadBytes / 8);
    size_t bytes = 0;
    bool exited = false;
    int status = 0;
    for (;;) {
      if (bytes == buffer.size() * 8) buffer.resize(buffer.size() * 2);
      ssize_t n = read(process_.trace_fd,
                       reinterpret_cast<char*>(buffer.data()) + bytes,
                       buffer.size() * 8 - bytes);
      if (n > 0) {
        bytes += static_cast<size_t>(n);
        HWT_ASSIGN_OR_RETURN(
            size_t used,
            reader_.Process(absl::MakeConstSpan(buffer.data(), bytes / 8),
                            handler));
        memmove(buffer.data(), buffer.data() + used, bytes - 8 * used);
        bytes -= 8 * used;
        if (stop && stop()) {
          kill(process_.pid, SIGKILL);
          waitpid(process_.pid, &status, 0);
          RemoveValgrindTempFiles(process_.tmpdir, process_.pid);
          process_.pid = -1;
          return status;
        }
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        return absl::InternalError(ErrnoText("valgrind recorder: read"));
      }
      if (exited) break;  // drained after the exit
      pid_t done = waitpid(process_.pid, &status, WNOHANG);
      if (done == process_.pid) {
        exited = true;
        if (WIFSIGNALED(status)) {
          RemoveValgrindTempFiles(process_.tmpdir, process_.pid);
        }
        process_.pid = -1;
        continue;  // read what is left
      }
      struct pollfd p = {process_.trace_fd, POLLIN, 0};
      poll(&p, 1, 50);
    }
    if (bytes != 0) {
      return absl::DataLossError(absl::StrFormat(
          "valgrind recorder: the trace ends inside a record (offset %d)",
          reader_.offset()));
    }
    return status;
  }

  // Valgrind's messages (its log of the first process), for errors.
  std::string Messages() const {
    std::string all;
    for (const std::string& name : ListLogs()) {
      auto text = ReadFileToString(name);
      if (text.ok()) all += *text;
    }
    if (all.size() > 4000) all = all.substr(0, 4000) + "...";
    return all;
  }

  absl::StatusOr<RecordingStats> Run() {
    auto start_time = std::chrono::steady_clock::now();
    std::string program;
    HWT_RETURN_IF_ERROR(Start(&program));
    ExecutionInfo info;
    info.command = absl::StrJoin(options_.argv, " ");
    info.cpu = options_.cpu;
    if (info.cpu.arch.empty()) info.cpu.arch = "x86_64";
    info.recorder = "valgrind-hwttrace";
    sink_.OnStart(info);

    TraceConsumer consumer(sink_, stats_, program, options_.max_instructions);
    HWT_ASSIGN_OR_RETURN(int status,
                         Pump(consumer, [&] { return consumer.stopped(); }));
    consumer.Flush();
    bool killed = WIFSIGNALED(status);
    int exit_status = killed ? -WTERMSIG(status) : WEXITSTATUS(status);
    stats_.truncated = consumer.stopped();
    // The trace comes in chunks: the program may have run on (even to its
    // end) before the recorder read its first max_instructions and killed
    // it. The recording ends as the ptrace recorder's does, with the kill.
    if (consumer.stopped()) exit_status = -SIGKILL;
    if (!consumer.started() || (!consumer.ended() && !consumer.stopped())) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "valgrind recorder: %s under valgrind %s (exit status %d); "
          "valgrind's messages:\n%s",
          program,
          consumer.started() ? "ended without the tool's end record"
                             : "traced no instruction",
          exit_status, Messages()));
    }
    sink_.OnExit(exit_status);
    stats_.exit_status = exit_status;
    stats_.seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start_time)
                         .count();
    return stats_;
  }

  // Runs the program with its trace read and discarded.
  absl::StatusOr<int> RunDiscarding() {
    std::string program;
    HWT_RETURN_IF_ERROR(Start(&program));
    struct Discard : ToolTraceHandler {
      absl::Status OnInstructionWords(absl::Span<const uint64_t>) override {
        return absl::OkStatus();
      }
      absl::Status OnRecord(ToolRecordType, std::string_view) override {
        return absl::OkStatus();
      }
    } discard;
    HWT_ASSIGN_OR_RETURN(int status, Pump(discard));
    return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
  }

 private:
  std::vector<std::string> ListLogs() const {
    std::vector<std::string> logs;
    if (!dir_) return logs;
    if (DIR* d = opendir(dir_->path().c_str())) {
      while (struct dirent* e = readdir(d)) {
        if (strncmp(e->d_name, "valgrind-", 9) == 0) {
          logs.push_back(dir_->path() + "/" + e->d_name);
        }
      }
      closedir(d);
    }
    std::sort(logs.begin(), logs.end());
    return logs;
  }

  const ValgrindRecorderOptions& options_;
  ExecutionSink& sink_;
  std::optional<TempDir> dir_;
  ValgrindProcess process_;
  ToolTraceReader reader_;
  RecordingStats stats_;
};

}  // namespace

absl::StatusOr<RecordingStats> RecordWithValgrind(
    const ValgrindRecorderOptions& options, ExecutionSink& sink) {
  ValgrindSession session(options, sink);
  return session.Run();
}

bool PtraceCanRecordInstead(const absl::Status& status) {
  return status.GetPayload(kPtraceInstead).has_value();
}

absl::Status ValgrindRecorderAvailable(const std::string& valgrind) {
  HWT_RETURN_IF_ERROR(FindValgrindToolDir().status());
  if (valgrind.find('/') != std::string::npos) {
    if (access(valgrind.c_str(), X_OK) == 0) return absl::OkStatus();
  } else {
    const char* path = getenv("PATH");
    for (absl::string_view dir :
         absl::StrSplit(path ? path : "/usr/bin:/bin", ':')) {
      std::string candidate = absl::StrCat(dir, "/", valgrind);
      if (access(candidate.c_str(), X_OK) == 0) return absl::OkStatus();
    }
  }
  return absl::NotFoundError(
      absl::StrFormat("%s is not installed (or not in PATH)", valgrind));
}

absl::StatusOr<int> RunUnderValgrind(const ValgrindRecorderOptions& options) {
  struct Ignore : ExecutionSink {
    void OnMapping(const MappingEvent&) override {}
    void OnInstructions(absl::Span<const uint64_t>) override {}
  } ignore;
  ValgrindSession session(options, ignore);
  return session.RunDiscarding();
}

}  // namespace hwt::recorder
