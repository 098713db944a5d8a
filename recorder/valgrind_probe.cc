// Running and parsing the valgrind probe; see valgrind_probe.h.
#include "recorder/valgrind_probe.h"

#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

absl::Status BadLine(int number, absl::string_view line) {
  return absl::InvalidArgumentError(
      absl::StrFormat("valgrind probe output line %d: cannot parse '%s'",
                      number, std::string(line)));
}

bool Hex32(absl::string_view text, uint32_t* value) {
  uint64_t v = 0;
  if (!absl::SimpleHexAtoi(text, &v) || v > 0xffffffffu) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

absl::StatusOr<ValgrindProfile> ParseProbeOutput(std::string_view text) {
  ValgrindProfile profile;
  int number = 0;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    if (line.empty()) continue;
    if (absl::StartsWith(line, "env ")) {
      profile.env.emplace_back(line.substr(4));
      continue;
    }
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
    if (f[0] == "cpuid") {
      uint32_t v[6];
      if (f.size() != 7) return BadLine(number, line);
      for (int i = 0; i < 6; ++i) {
        if (!Hex32(f[i + 1], &v[i])) return BadLine(number, line);
      }
      profile.cpuid.Set(v[0], v[1], CpuidAnswer{v[2], v[3], v[4], v[5]});
    } else if (f[0] == "xgetbv") {
      uint32_t index, lo, hi;
      if (f.size() != 4 || !Hex32(f[1], &index) || !Hex32(f[2], &lo) ||
          !Hex32(f[3], &hi)) {
        return BadLine(number, line);
      }
      if (index == 0) profile.cpuid.xcr0 = (uint64_t{hi} << 32) | lo;
    } else if (f[0] == "auxv") {
      uint64_t type = 0;
      uint64_t value = 0;
      if (f.size() != 3 || !absl::SimpleHexAtoi(f[1], &type) ||
          !absl::SimpleHexAtoi(f[2], &value)) {
        return BadLine(number, line);
      }
      profile.auxv_types.push_back(type);
      if (type == AT_RANDOM) profile.stack.random = value;
      if (type == AT_EXECFN) profile.stack.execfn = value;
      if (type == AT_PLATFORM) profile.stack.platform = value;
    } else if (f[0] == "sp") {
      if (f.size() != 2 || !absl::SimpleHexAtoi(f[1], &profile.stack.sp)) {
        return BadLine(number, line);
      }
    } else if (f[0] == "argvaddr" || f[0] == "envaddr") {
      uint64_t index = 0;
      uint64_t addr = 0;
      std::vector<uint64_t>& list =
          f[0] == "argvaddr" ? profile.stack.argv : profile.stack.env;
      if (f.size() != 3 || !absl::SimpleHexAtoi(f[1], &index) ||
          !absl::SimpleHexAtoi(f[2], &addr) || index != list.size()) {
        return BadLine(number, line);
      }
      list.push_back(addr);
    } else if (f[0] == "enosys") {
      uint64_t nr = 0;
      if (f.size() != 2 || !absl::SimpleHexAtoi(f[1], &nr)) {
        return BadLine(number, line);
      }
      profile.enosys_syscalls.push_back(static_cast<long>(nr));
    } else {
      return BadLine(number, line);
    }
  }
  if (profile.cpuid.empty() || !profile.cpuid.Lookup(0, 0)) {
    return absl::InvalidArgumentError(
        "valgrind probe output: no CPUID leaf 0 (not the probe's output?)");
  }
  return profile;
}

absl::StatusOr<ValgrindProfile> ProbeValgrind(
    const std::string& probe_program, const ValgrindRecorderOptions& options) {
  HWT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("hwt-valgrind-probe"));
  ValgrindRecorderOptions run = options;
  if (run.argv.empty()) run.argv.emplace_back();
  run.argv[0] = probe_program;
  run.stdout_path = dir.path() + "/out.txt";
  HWT_ASSIGN_OR_RETURN(int status, RunUnderValgrind(run));
  if (status != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "valgrind probe %s: exit status %d", probe_program, status));
  }
  HWT_ASSIGN_OR_RETURN(std::string text, ReadFileToString(run.stdout_path));
  auto profile = ParseProbeOutput(text);
  if (!profile.ok()) {
    return absl::Status(
        profile.status().code(),
        absl::StrFormat("%s: %s", probe_program, profile.status().message()));
  }
  return profile;
}

PtraceRecorderOptions MimicValgrind(const ValgrindProfile& profile,
                                    PtraceRecorderOptions options) {
  options.cpuid = profile.cpuid;
  options.env = profile.env;
  options.auxv_types = profile.auxv_types;
  options.enosys_syscalls = profile.enosys_syscalls;
  if (profile.stack.sp != 0) options.stack_layout = profile.stack;
  return options;
}

absl::StatusOr<ValgrindLookalike> ValgrindLookalike::Create(
    const std::string& probe_program, const ValgrindRecorderOptions& program) {
  if (program.argv.empty()) {
    return absl::InvalidArgumentError("valgrind lookalike: no program given");
  }
  char real_program[PATH_MAX];
  char real_probe[PATH_MAX];
  if (realpath(program.argv[0].c_str(), real_program) == nullptr) {
    return absl::NotFoundError(
        ErrnoMessage(program.argv[0], "realpath", errno));
  }
  if (realpath(probe_program.c_str(), real_probe) == nullptr) {
    return absl::NotFoundError(ErrnoMessage(probe_program, "realpath", errno));
  }
  HWT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("hwt-lookalike"));
  ValgrindLookalike lookalike(std::move(dir));
  std::string base = real_program;
  base = base.substr(base.rfind('/') + 1);
  std::string link = lookalike.dir_.path() + "/" + base;
  if (symlink(real_probe, link.c_str()) != 0) {
    return absl::InternalError(ErrnoMessage(link, "symlink", errno));
  }
  lookalike.valgrind_ = program;
  lookalike.valgrind_.argv[0] = link;
  // The probe runs as `link`: its stack strings are the program's.
  HWT_ASSIGN_OR_RETURN(int status, [&]() -> absl::StatusOr<int> {
    ValgrindRecorderOptions run = lookalike.valgrind_;
    run.stdout_path = lookalike.dir_.path() + "/probe.txt";
    run.stdin_path.clear();
    return RunUnderValgrind(run);
  }());
  if (status != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "valgrind probe %s: exit status %d", probe_program, status));
  }
  HWT_ASSIGN_OR_RETURN(std::string text,
                       ReadFileToString(lookalike.dir_.path() + "/probe.txt"));
  auto profile = ParseProbeOutput(text);
  if (!profile.ok()) {
    return absl::Status(
        profile.status().code(),
        absl::StrFormat("%s: %s", probe_program, profile.status().message()));
  }
  lookalike.profile_ = std::move(*profile);
  std::string staging = link + ".new";
  if (symlink(real_program, staging.c_str()) != 0 ||
      rename(staging.c_str(), link.c_str()) != 0) {
    return absl::InternalError(ErrnoMessage(link, "re-linking", errno));
  }
  return lookalike;
}

PtraceRecorderOptions ValgrindLookalike::ptrace_options(
    PtraceRecorderOptions base) const {
  base.argv = valgrind_.argv;
  return MimicValgrind(profile_, std::move(base));
}

}  // namespace hwt::recorder
