// The ptrace single-stepping recorder; see ptrace_recorder.h and
// docs/recorder.md.
//
// The step loop keeps `ip_`, the address of the next instruction. After a
// step that completed (a SIGTRAP single-step stop) that instruction has
// executed; where the next one is follows from the decoded instruction for
// everything but control transfers, system calls and rep strings, so the
// instruction pointer is read only after those (two system calls per step
// instead of three). Any other stop means the instruction did not execute
// (a fault or an asynchronous signal): the signal is delivered with the next
// step, and a handler's first instruction is where the kernel stops next.
#include "recorder/ptrace_recorder.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "capture/elf_file.h"
#include "recorder/code_map.h"
#include "recorder/initial_stack.h"
#include "recorder/proc_maps.h"
#include "recorder/syscall_util.h"

namespace hwt::recorder {
namespace {

constexpr size_t kStepBatch = 4096;
constexpr long kRipOffset = offsetof(struct user_regs_struct, rip);
constexpr long kOrigRaxOffset = offsetof(struct user_regs_struct, orig_rax);

// System calls after which the executable mappings may have changed.
bool MayChangeMappings(long nr) {
  switch (nr) {
    case SYS_mmap:
    case SYS_mprotect:
    case SYS_munmap:
    case SYS_mremap:
    case SYS_remap_file_pages:
    case SYS_shmat:
    case SYS_shmdt:
    case SYS_pkey_mprotect:
    case SYS_execve:
    case SYS_execveat:
      return true;
    default:
      return false;
  }
}

bool IsGroupStopSignal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

class PtraceSession {
 public:
  PtraceSession(const PtraceRecorderOptions& options, ExecutionSink& sink)
      : options_(options), sink_(sink) {
    CodeMapOptions map_options;
    if (!options.vdso_dump_path.empty()) {
      map_options.path_aliases["[vdso]"] = options.vdso_dump_path;
    }
    // Code that no file backs (the vDSO when not dumped, JIT code) is read
    // from the process itself.
    map_options.read_memory = [this](uint64_t addr, absl::Span<uint8_t> out) {
      return ReadMemory(addr, out);
    };
    code_map_ = std::make_unique<CodeMap>(std::move(map_options));
  }

  ~PtraceSession() {
    if (pid_ > 0 && alive_) {
      kill(pid_, SIGKILL);
      int status = 0;
      while (waitpid(pid_, &status, __WALL) == pid_ && !WIFEXITED(status) &&
             !WIFSIGNALED(status)) {
      }
    }
    if (mem_fd_ >= 0) close(mem_fd_);
  }

  absl::StatusOr<RecordingStats> Run() {
    auto start = std::chrono::steady_clock::now();
    HWT_RETURN_IF_ERROR(Spawn());
    ExecutionInfo info;
    info.command = absl::StrJoin(options_.argv, " ");
    info.cpu = options_.cpuid ? CpuIdentityFromTable(*options_.cpuid)
                              : HostCpuIdentity();
    info.recorder = "ptrace-singlestep";
    sink_.OnStart(info);
    HWT_RETURN_IF_ERROR(OnExec());
    HWT_RETURN_IF_ERROR(StepLoop());
    stats_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return stats_;
  }

 private:
  absl::Status Spawn() {
    if (options_.argv.empty()) {
      return absl::InvalidArgumentError("ptrace recorder: no program given");
    }
    std::vector<std::string> env_strings;
    if (options_.env) {
      env_strings = *options_.env;
    } else {
      for (char** e = environ; *e != nullptr; ++e) env_strings.push_back(*e);
    }
    std::vector<char*> argv = CStringArray(options_.argv);
    std::vector<char*> envp = CStringArray(env_strings);
    const std::string& program = options_.argv[0];

    int error_pipe[2];
    if (pipe2(error_pipe, O_CLOEXEC) != 0) {
      return absl::InternalError(ErrnoText("pipe2"));
    }
    pid_t pid = fork();
    if (pid < 0) {
      close(error_pipe[0]);
      close(error_pipe[1]);
      return absl::InternalError(ErrnoText("fork"));
    }
    if (pid == 0) {
      // Child: only async-signal-safe calls until exec.
      auto fail = [&](int stage) {
        int report[2] = {stage, errno};
        (void)!write(error_pipe[1], report, sizeof report);
        _exit(127);
      };
      const std::string* paths[3] = {
          &options_.stdin_path, &options_.stdout_path, &options_.stderr_path};
      for (int fd = 0; fd < 3; ++fd) {
        if (paths[fd]->empty()) continue;
        int flags = fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
        int opened = open(paths[fd]->c_str(), flags, 0644);
        if (opened < 0 || dup2(opened, fd) < 0) fail(1 + fd);
        close(opened);
      }
      if (options_.disable_aslr) {
        int current = personality(0xffffffff);
        if (current == -1 || personality(current | ADDR_NO_RANDOMIZE) == -1) {
          fail(4);
        }
      }
      if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) fail(5);
      if (program.find('/') != std::string::npos) {
        execve(program.c_str(), argv.data(), envp.data());
      } else {
        execvpe(program.c_str(), argv.data(), envp.data());
      }
      fail(0);
    }
    close(error_pipe[1]);
    pid_ = pid;
    alive_ = true;
    int status = 0;
    if (waitpid(pid_, &status, __WALL) != pid_) {
      close(error_pipe[0]);
      return absl::InternalError(ErrnoText("waitpid"));
    }
    int report[2] = {0, 0};
    ssize_t got = read(error_pipe[0], report, sizeof report);
    close(error_pipe[0]);
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      alive_ = false;
      if (got == sizeof report) {
        static const char* const kStages[] = {
            "cannot execute",      "cannot open stdin",
            "cannot open stdout",  "cannot open stderr",
            "cannot disable ASLR", "PTRACE_TRACEME failed"};
        const std::string& what = report[0] == 1   ? options_.stdin_path
                                  : report[0] == 2 ? options_.stdout_path
                                  : report[0] == 3 ? options_.stderr_path
                                                   : program;
        absl::StatusCode code = report[1] == ENOENT
                                    ? absl::StatusCode::kNotFound
                                    : absl::StatusCode::kFailedPrecondition;
        return absl::Status(
            code, absl::StrFormat("ptrace recorder: %s '%s': %s",
                                  kStages[std::clamp(report[0], 0, 5)], what,
                                  strerror(report[1])));
      }
      return absl::InternalError(absl::StrFormat(
          "ptrace recorder: '%s' ended before its first instruction", program));
    }
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
      return absl::InternalError(absl::StrFormat(
          "ptrace recorder: unexpected first stop of '%s' (status 0x%x)",
          program, status));
    }
    long ptrace_options =
        PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SETOPTIONS, pid_, nullptr, ptrace_options) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_SETOPTIONS"));
    }
    return absl::OkStatus();
  }

  absl::Status OpenMemory() {
    if (mem_fd_ >= 0) close(mem_fd_);
    std::string path = absl::StrFormat("/proc/%d/mem", pid_);
    mem_fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (mem_fd_ < 0) return absl::InternalError(ErrnoText(path));
    return absl::OkStatus();
  }

  size_t ReadMemory(uint64_t addr, absl::Span<uint8_t> out) {
    if (mem_fd_ < 0) return 0;
    ssize_t n =
        pread(mem_fd_, out.data(), out.size(), static_cast<off_t>(addr));
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  absl::StatusOr<uint64_t> PeekUser(long offset) {
    errno = 0;
    long value =
        ptrace(PTRACE_PEEKUSER, pid_, reinterpret_cast<void*>(offset), nullptr);
    if (errno != 0) return absl::InternalError(ErrnoText("PTRACE_PEEKUSER"));
    ++stats_.register_reads;
    return static_cast<uint64_t>(value);
  }

  // The exec stop: the new program's EXECUTABLE event (and the vDSO's MMAP),
  // the auxiliary-vector rewrite, and the first instruction's address.
  absl::Status OnExec() {
    HWT_RETURN_IF_ERROR(OpenMemory());
    HWT_ASSIGN_OR_RETURN(uint64_t rip, PeekUser(kRipOffset));
    HWT_ASSIGN_OR_RETURN(maps_, ReadProcMaps(pid_));
    if (options_.auxv_types || options_.stack_layout) {
      HWT_ASSIGN_OR_RETURN(uint64_t rsp,
                           PeekUser(offsetof(struct user_regs_struct, rsp)));
      HWT_RETURN_IF_ERROR(RewriteInitialStack(pid_, mem_fd_, rsp, maps_,
                                              options_.auxv_types,
                                              options_.stack_layout));
    }
    char exe[4096];
    std::string link = absl::StrFormat("/proc/%d/exe", pid_);
    ssize_t n = readlink(link.c_str(), exe, sizeof exe - 1);
    if (n <= 0) return absl::InternalError(ErrnoText(link));
    exe[n] = 0;
    HWT_ASSIGN_OR_RETURN(capture::ElfInfo elf, capture::ReadElfFile(exe));
    HWT_ASSIGN_OR_RETURN(auto auxv, ReadProcAuxv(pid_));
    uint64_t entry = 0;
    uint64_t base = 0;
    for (const auto& [type, value] : auxv) {
      if (type == AT_ENTRY) entry = value;
      if (type == AT_BASE) base = value;
    }
    MappingEvent exec;
    exec.type = capture::RecordType::kExecutable;
    exec.path = exe;
    exec.addr = elf.type == ET_DYN ? entry - elf.entry : 0;
    exec.baseaddr = elf.interpreter.empty() ? 0 : base;
    HWT_RETURN_IF_ERROR(EmitMapping(exec));
    HWT_ASSIGN_OR_RETURN(maps_, ReadProcMaps(pid_));
    for (const ProcMapping& m : maps_) {
      if (m.path != "[vdso]" || !m.executable()) continue;
      if (!options_.vdso_dump_path.empty()) {
        std::string image(m.end - m.start, '\0');
        size_t got = ReadMemory(
            m.start, absl::MakeSpan(reinterpret_cast<uint8_t*>(image.data()),
                                    image.size()));
        if (got != image.size()) {
          return absl::InternalError(absl::StrFormat(
              "ptrace recorder: cannot read the vDSO at 0x%x", m.start));
        }
        HWT_RETURN_IF_ERROR(
            WriteFileAtomically(options_.vdso_dump_path, image));
      }
      MappingEvent vdso;
      vdso.type = capture::RecordType::kMmap;
      vdso.path = "[vdso]";
      vdso.addr = m.start;
      HWT_RETURN_IF_ERROR(EmitMapping(vdso));
    }
    ip_ = rip;
    rep_in_progress_ = false;
    return absl::OkStatus();
  }

  absl::Status EmitMapping(const MappingEvent& event) {
    Flush();
    if (event.path != "[vdso]" || !options_.vdso_dump_path.empty()) {
      absl::Status status = code_map_->Apply(event);
      if (!status.ok()) {
        return absl::Status(
            status.code(),
            absl::StrFormat("ptrace recorder: %s", status.message()));
      }
    }
    sink_.OnMapping(event);
    ++stats_.mapping_events;
    return absl::OkStatus();
  }

  void Emit(uint64_t ip) {
    buffer_.push_back(ip);
    ++stats_.instructions;
    if (buffer_.size() >= kStepBatch) Flush();
  }

  void Flush() {
    if (buffer_.empty()) return;
    sink_.OnInstructions(buffer_);
    buffer_.clear();
  }

  void Finish(int exit_status) {
    alive_ = false;
    Flush();
    stats_.exit_status = exit_status;
    sink_.OnExit(exit_status);
  }

  absl::Status Refuse(absl::Status status) {
    Flush();
    return status;
  }

  // After a system call: new or removed executable mappings.
  absl::Status UpdateMappings() {
    HWT_ASSIGN_OR_RETURN(auto maps, ReadProcMaps(pid_));
    auto events = DiffExecutableMappings(
        maps_, maps,
        [this](const std::string& path) -> std::optional<uint64_t> {
          auto elf = capture::ReadElfFile(path);
          if (!elf.ok()) return std::nullopt;
          auto loads = elf->ExecutableLoads();
          if (loads.empty()) return std::nullopt;
          return loads.front().offset & ~uint64_t{0xfff};
        });
    maps_ = std::move(maps);
    for (const MappingEvent& event : events) {
      HWT_RETURN_IF_ERROR(EmitMapping(event));
    }
    return absl::OkStatus();
  }

  // CPUID (0F A2) at ip_, or XGETBV (0F 01 D0) when the table has XCR0:
  // emulates it and returns true. CPUID is always emulated (with this
  // machine's answers when there is no table): under a hypervisor it exits
  // to the host, and the single-step trap after it can be lost, so that a
  // step over CPUID runs the next instruction too.
  absl::StatusOr<bool> MaybeEmulate(const x86::Insn& insn) {
    if (insn.cls != x86::InsnClass::kOther ||
        (insn.length != 2 && insn.length != 3)) {
      return false;
    }
    uint8_t bytes[3] = {};
    if (code_map_->ReadCode(ip_, absl::MakeSpan(bytes, insn.length)) !=
        insn.length) {
      return false;
    }
    bool is_cpuid = insn.length == 2 && bytes[0] == 0x0f && bytes[1] == 0xa2;
    bool is_xgetbv = insn.length == 3 && bytes[0] == 0x0f && bytes[1] == 0x01 &&
                     bytes[2] == 0xd0;
    if (!is_cpuid && !(is_xgetbv && options_.cpuid && options_.cpuid->xcr0)) {
      return false;
    }
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid_, nullptr, &regs) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_GETREGS"));
    }
    if (is_xgetbv) {
      if ((regs.rcx & 0xffffffff) != 0) return false;  // only XCR0
      regs.rax = *options_.cpuid->xcr0 & 0xffffffff;
      regs.rdx = *options_.cpuid->xcr0 >> 32;
      ++stats_.xgetbv_emulated;
    } else {
      uint32_t leaf = regs.rax & 0xffffffff;
      uint32_t subleaf = regs.rcx & 0xffffffff;
      std::optional<CpuidAnswer> answer;
      if (options_.cpuid) {
        answer = options_.cpuid->Lookup(leaf, subleaf);
        if (!answer) {
          ++stats_.cpuid_misses;
          answer = CpuidAnswer{};
        }
      } else {
        answer = HostCpuid(leaf, subleaf);
      }
      regs.rax = answer->eax;
      regs.rbx = answer->ebx;
      regs.rcx = answer->ecx;
      regs.rdx = answer->edx;
      ++stats_.cpuid_emulated;
    }
    regs.rip = ip_ + insn.length;
    if (ptrace(PTRACE_SETREGS, pid_, nullptr, &regs) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_SETREGS"));
    }
    Emit(ip_);
    ip_ += insn.length;
    return true;
  }

  // A system call at ip_ listed in enosys_syscalls: returns -ENOSYS
  // without entering the kernel.
  absl::StatusOr<bool> MaybeFailSyscall(const x86::Insn& insn) {
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid_, nullptr, &regs) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_GETREGS"));
    }
    long nr = static_cast<long>(regs.rax);
    if (std::find(options_.enosys_syscalls.begin(),
                  options_.enosys_syscalls.end(),
                  nr) == options_.enosys_syscalls.end()) {
      return false;
    }
    // What the kernel leaves behind a system call: rcx = return address,
    // r11 = rflags.
    regs.rcx = ip_ + insn.length;
    regs.r11 = regs.eflags;
    regs.rax = static_cast<uint64_t>(-ENOSYS);
    regs.rip = ip_ + insn.length;
    if (ptrace(PTRACE_SETREGS, pid_, nullptr, &regs) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_SETREGS"));
    }
    ++stats_.syscalls_failed;
    Emit(ip_);
    ip_ += insn.length;
    return true;
  }

  absl::Status StepLoop() {
    int pending_signal = 0;
    for (;;) {
      if (options_.max_instructions != 0 &&
          stats_.instructions >= options_.max_instructions) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, __WALL);
        stats_.truncated = true;
        Finish(-SIGKILL);
        return absl::OkStatus();
      }
      std::optional<x86::Insn> insn = code_map_->InsnAt(ip_);
      if (!insn) {
        return Refuse(absl::DataLossError(absl::StrFormat(
            "ptrace recorder: cannot decode the instruction at 0x%x (after "
            "%d instructions)",
            ip_, stats_.instructions)));
      }
      if (pending_signal == 0) {
        HWT_ASSIGN_OR_RETURN(bool emulated, MaybeEmulate(*insn));
        if (emulated) continue;
        if (insn->is_syscall && !options_.enosys_syscalls.empty()) {
          HWT_ASSIGN_OR_RETURN(bool failed, MaybeFailSyscall(*insn));
          if (failed) continue;
        }
      }
      int injected = pending_signal;
      pending_signal = 0;
      if (ptrace(PTRACE_SINGLESTEP, pid_, nullptr,
                 reinterpret_cast<void*>(static_cast<long>(injected))) != 0) {
        return Refuse(absl::InternalError(ErrnoText("PTRACE_SINGLESTEP")));
      }
      if (injected != 0) ++stats_.signals_delivered;
      ++stats_.steps;
      int status = 0;
      if (waitpid(pid_, &status, __WALL) != pid_) {
        return Refuse(absl::InternalError(ErrnoText("waitpid")));
      }
      if (WIFEXITED(status)) {
        if (insn->is_syscall && injected == 0) Emit(ip_);  // exit/exit_group
        Finish(WEXITSTATUS(status));
        return absl::OkStatus();
      }
      if (WIFSIGNALED(status)) {
        // Killed: by the injected signal before ip_ ran, or by a system
        // call at ip_ that completed (kill(getpid(), SIGKILL)).
        if (insn->is_syscall && injected == 0) Emit(ip_);
        Finish(-WTERMSIG(status));
        return absl::OkStatus();
      }
      if (!WIFSTOPPED(status)) continue;
      int sig = WSTOPSIG(status);
      int event = status >> 16;
      if (event == PTRACE_EVENT_EXEC) {
        Emit(ip_);  // the execve system call
        HWT_RETURN_IF_ERROR(OnExec());
        after_exec_ = true;
        continue;
      }
      if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
          event == PTRACE_EVENT_VFORK) {
        unsigned long tid = 0;
        ptrace(PTRACE_GETEVENTMSG, pid_, nullptr, &tid);
        kill(pid_, SIGKILL);
        int ignored = 0;
        if (tid != 0) waitpid(static_cast<pid_t>(tid), &ignored, __WALL);
        return Refuse(absl::FailedPreconditionError(absl::StrFormat(
            "ptrace recorder: '%s' created a thread after %d instructions; "
            "only single-threaded programs can be recorded",
            options_.argv[0], stats_.instructions)));
      }
      if (sig == SIGTRAP) {
        HWT_RETURN_IF_ERROR(OnTrap(*insn, injected, &pending_signal));
        continue;
      }
      if (IsGroupStopSignal(sig)) {
        siginfo_t info;
        if (ptrace(PTRACE_GETSIGINFO, pid_, nullptr, &info) != 0 &&
            errno == EINVAL) {
          continue;  // group-stop: resume without a signal
        }
      }
      // A signal that stopped the program before ip_ executed (a fault of
      // ip_ or an asynchronous signal): deliver it with the next step.
      pending_signal = sig;
      rep_in_progress_ = false;
    }
  }

  // A SIGTRAP stop: normally the completed single step of ip_.
  absl::Status OnTrap(const x86::Insn& insn, int injected,
                      int* pending_signal) {
    bool executed = true;
    bool read_ip = options_.verify_predictions || injected != 0 ||
                   insn.cls != x86::InsnClass::kOther || insn.rep_string ||
                   after_exec_;
    if (injected != 0 || insn.cls == x86::InsnClass::kFarCall || after_exec_) {
      siginfo_t info;
      if (ptrace(PTRACE_GETSIGINFO, pid_, nullptr, &info) != 0) {
        return Refuse(absl::InternalError(ErrnoText("PTRACE_GETSIGINFO")));
      }
      if (info.si_code == SIGTRAP) {
        // ptrace_notify: stopped at a signal handler's first instruction
        // (injected signal) before ip_ ran.
        executed = false;
      } else if (info.si_code != TRAP_TRACE && info.si_code != TRAP_BRKPT) {
        // A real SIGTRAP for the program (int3, kill): ip_ ran (int3 traps
        // after itself; kill is a system call) and the signal is delivered.
        *pending_signal = SIGTRAP;
      }
    }
    uint64_t next = ip_ + insn.length;
    if (read_ip || !executed) {
      HWT_ASSIGN_OR_RETURN(uint64_t rip, PeekUser(kRipOffset));
      if (after_exec_) {
        after_exec_ = false;
        // Some kernels report the execve's own step once more at the new
        // program's entry: nothing ran then.
        if (rip == ip_) return absl::OkStatus();
      }
      if (options_.verify_predictions && executed &&
          insn.cls == x86::InsnClass::kOther && !insn.rep_string &&
          !insn.is_syscall && rip != next) {
        return Refuse(absl::InternalError(absl::StrFormat(
            "ptrace recorder: after %s at 0x%x the program is at 0x%x, not "
            "0x%x",
            code_map_->Disassemble(ip_), ip_, rip, next)));
      }
      next = rip;
    }
    if (!executed) {
      ip_ = next;
      rep_in_progress_ = false;
      return absl::OkStatus();
    }
    // A rep string instruction steps once per iteration and is reported
    // once per execution.
    if (!rep_in_progress_) Emit(ip_);
    rep_in_progress_ = insn.rep_string && next == ip_;
    if (insn.is_syscall) {
      HWT_ASSIGN_OR_RETURN(uint64_t nr, PeekUser(kOrigRaxOffset));
      if (MayChangeMappings(static_cast<long>(nr))) {
        HWT_RETURN_IF_ERROR(UpdateMappings());
      }
    }
    ip_ = next;
    return absl::OkStatus();
  }

  const PtraceRecorderOptions& options_;
  ExecutionSink& sink_;
  std::unique_ptr<CodeMap> code_map_;
  pid_t pid_ = -1;
  bool alive_ = false;
  int mem_fd_ = -1;
  uint64_t ip_ = 0;
  bool rep_in_progress_ = false;
  bool after_exec_ = false;
  std::vector<ProcMapping> maps_;
  std::vector<uint64_t> buffer_;
  RecordingStats stats_;
};

}  // namespace

absl::StatusOr<RecordingStats> RecordWithPtrace(
    const PtraceRecorderOptions& options, ExecutionSink& sink) {
  PtraceSession session(options, sink);
  return session.Run();
}

}  // namespace hwt::recorder
