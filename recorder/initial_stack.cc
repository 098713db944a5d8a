// Rewriting a traced process's initial stack at its exec stop; see
// initial_stack.h.
#include "recorder/initial_stack.h"

#include <elf.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "recorder/syscall_util.h"

namespace hwt::recorder {
namespace {

constexpr uint64_t kAtIgnore = 1;

class InitialStack {
 public:
  InitialStack(pid_t pid, int mem_fd, const std::vector<ProcMapping>& maps,
               const std::optional<std::vector<uint64_t>>& auxv_types,
               const std::optional<InitialStackLayout>& layout)
      : pid_(pid),
        mem_fd_(mem_fd),
        maps_(maps),
        auxv_types_(auxv_types),
        layout_(layout) {}

  absl::StatusOr<uint64_t> ReadWord(uint64_t addr) {
    uint64_t word = 0;
    if (pread(mem_fd_, &word, 8, static_cast<off_t>(addr)) != 8) {
      return absl::InternalError(ErrnoText(
          absl::StrFormat("reading the initial stack at 0x%x", addr)));
    }
    return word;
  }

  absl::StatusOr<std::string> ReadString(uint64_t addr) {
    std::string result;
    char chunk[256];
    for (;;) {
      ssize_t n = pread(mem_fd_, chunk, sizeof chunk,
                        static_cast<off_t>(addr + result.size()));
      if (n <= 0) {
        return absl::InternalError(ErrnoText(absl::StrFormat(
            "reading a string of the initial stack at 0x%x", addr)));
      }
      size_t len = strnlen(chunk, static_cast<size_t>(n));
      result.append(chunk, len);
      if (len < static_cast<size_t>(n)) return result;
    }
  }

  // The exec stop's initial stack: rsp -> argc, argv..., NULL, envp...,
  // NULL, auxv pairs, AT_NULL. Rewrites auxv types (auxv_types) or rebuilds
  // it at other page offsets (stack_layout).
  absl::Status Prepare(uint64_t rsp) {
    HWT_ASSIGN_OR_RETURN(uint64_t argc, ReadWord(rsp));
    std::vector<uint64_t> argv;
    std::vector<uint64_t> env;
    uint64_t at = rsp + 8;
    for (uint64_t i = 0; i < argc; ++i, at += 8) {
      HWT_ASSIGN_OR_RETURN(uint64_t p, ReadWord(at));
      argv.push_back(p);
    }
    at += 8;
    for (;; at += 8) {
      HWT_ASSIGN_OR_RETURN(uint64_t p, ReadWord(at));
      if (p == 0) break;
      env.push_back(p);
    }
    at += 8;
    std::vector<std::pair<uint64_t, uint64_t>> auxv;
    uint64_t auxv_addr = at;
    for (;; at += 16) {
      HWT_ASSIGN_OR_RETURN(uint64_t type, ReadWord(at));
      if (type == AT_NULL) break;
      HWT_ASSIGN_OR_RETURN(uint64_t value, ReadWord(at + 8));
      auxv.emplace_back(type, value);
    }
    std::vector<std::pair<uint64_t, uint64_t>> new_auxv = auxv;
    if (auxv_types_) {
      const std::vector<uint64_t>& wanted = *auxv_types_;
      if (auxv.size() != wanted.size()) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "ptrace recorder: the program's auxiliary vector has %d entries, "
            "the one to mimic %d: cannot rewrite it",
            auxv.size(), wanted.size()));
      }
      for (size_t i = 0; i < auxv.size(); ++i) {
        if (auxv[i].first == wanted[i]) continue;
        if (wanted[i] != kAtIgnore) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "ptrace recorder: auxiliary vector entry %d has type %d, the "
              "one to mimic %d: only changes to AT_IGNORE are possible",
              i, auxv[i].first, wanted[i]));
        }
        new_auxv[i].first = kAtIgnore;
      }
    }
    if (!layout_) {
      for (size_t i = 0; i < auxv.size(); ++i) {
        if (new_auxv[i].first == auxv[i].first) continue;
        if (pwrite(mem_fd_, &new_auxv[i].first, 8,
                   static_cast<off_t>(auxv_addr + 16 * i)) != 8) {
          return absl::InternalError(
              ErrnoText("rewriting the auxiliary vector"));
        }
      }
      return absl::OkStatus();
    }
    return RebuildStack(argv, env, auxv, new_auxv);
  }

  absl::Status RebuildStack(
      const std::vector<uint64_t>& argv, const std::vector<uint64_t>& env,
      const std::vector<std::pair<uint64_t, uint64_t>>& auxv,
      std::vector<std::pair<uint64_t, uint64_t>> new_auxv) {
    const InitialStackLayout& layout = *layout_;
    if (layout.argv.size() != argv.size() || layout.env.size() != env.size()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "ptrace recorder: the stack layout to mimic has %d arguments and %d "
          "environment strings, the program %d and %d",
          layout.argv.size(), layout.env.size(), argv.size(), env.size()));
    }
    // What goes where, in the mimicked addresses.
    std::vector<std::pair<uint64_t, std::string>> blobs;
    for (size_t i = 0; i < argv.size(); ++i) {
      HWT_ASSIGN_OR_RETURN(std::string s, ReadString(argv[i]));
      blobs.emplace_back(layout.argv[i], s + '\0');
    }
    for (size_t i = 0; i < env.size(); ++i) {
      HWT_ASSIGN_OR_RETURN(std::string s, ReadString(env[i]));
      blobs.emplace_back(layout.env[i], s + '\0');
    }
    for (auto& [type, value] : new_auxv) {
      uint64_t target = type == AT_RANDOM     ? layout.random
                        : type == AT_EXECFN   ? layout.execfn
                        : type == AT_PLATFORM ? layout.platform
                                              : 0;
      if (target == 0 || value == 0) continue;
      std::string content;
      if (type == AT_RANDOM) {
        content.resize(16);
        if (pread(mem_fd_, content.data(), 16, static_cast<off_t>(value)) !=
            16) {
          return absl::InternalError(ErrnoText("reading AT_RANDOM"));
        }
      } else {
        HWT_ASSIGN_OR_RETURN(content, ReadString(value));
        content.push_back('\0');
      }
      blobs.emplace_back(target, content);
      value = target;  // relocated below
    }
    uint64_t block_size =
        8 * (1 + argv.size() + 1 + env.size() + 1) + 16 * (auxv.size() + 1);
    uint64_t lo = layout.sp;
    uint64_t hi = lo + block_size;
    for (const auto& [addr, content] : blobs) {
      if (addr < lo + block_size) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "ptrace recorder: the stack layout to mimic puts a string at 0x%x "
            "inside the pointer block [0x%x, 0x%x)",
            addr, lo, lo + block_size));
      }
      hi = std::max(hi, addr + content.size());
    }
    uint64_t stack_start = 0;
    uint64_t stack_end = 0;
    for (const ProcMapping& m : maps_) {
      if (m.path == "[stack]") {
        stack_start = m.start;
        stack_end = m.end;
      }
    }
    uint64_t top = (hi + 0xfff) & ~uint64_t{0xfff};
    uint64_t delta = stack_end - top;  // a multiple of the page size
    if (stack_end == 0 || lo + delta < stack_start) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "ptrace recorder: the stack layout to mimic (%d bytes) does not fit "
          "the program's stack [0x%x, 0x%x)",
          top - lo, stack_start, stack_end));
    }
    std::string image(top - lo, '\0');
    auto put = [&](uint64_t addr, const void* data, size_t size) {
      std::memcpy(image.data() + (addr - lo), data, size);
    };
    auto put_word = [&](uint64_t addr, uint64_t word) { put(addr, &word, 8); };
    uint64_t at = lo;
    put_word(at, argv.size());
    at += 8;
    for (uint64_t p : layout.argv) {
      put_word(at, p + delta);
      at += 8;
    }
    at += 8;  // NULL
    for (uint64_t p : layout.env) {
      put_word(at, p + delta);
      at += 8;
    }
    at += 8;  // NULL
    for (size_t i = 0; i < new_auxv.size(); ++i) {
      uint64_t value = new_auxv[i].second;
      bool moved = value != auxv[i].second;
      put_word(at, new_auxv[i].first);
      put_word(at + 8, moved ? value + delta : value);
      at += 16;
    }
    for (const auto& [addr, content] : blobs) {
      put(addr, content.data(), content.size());
    }
    if (pwrite(mem_fd_, image.data(), image.size(),
               static_cast<off_t>(lo + delta)) !=
        static_cast<ssize_t>(image.size())) {
      return absl::InternalError(ErrnoText("writing the initial stack"));
    }
    if (ptrace(PTRACE_POKEUSER, pid_,
               reinterpret_cast<void*>(offsetof(struct user_regs_struct, rsp)),
               reinterpret_cast<void*>(lo + delta)) != 0) {
      return absl::InternalError(ErrnoText("PTRACE_POKEUSER rsp"));
    }
    return absl::OkStatus();
  }

 private:
  const pid_t pid_;
  const int mem_fd_;
  const std::vector<ProcMapping>& maps_;
  const std::optional<std::vector<uint64_t>>& auxv_types_;
  const std::optional<InitialStackLayout>& layout_;
};

}  // namespace

absl::Status RewriteInitialStack(
    pid_t pid, int mem_fd, uint64_t rsp, const std::vector<ProcMapping>& maps,
    const std::optional<std::vector<uint64_t>>& auxv_types,
    const std::optional<InitialStackLayout>& layout) {
  InitialStack stack(pid, mem_fd, maps, auxv_types, layout);
  return stack.Prepare(rsp);
}

}  // namespace hwt::recorder
