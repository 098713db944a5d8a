// hwt-emulate's option table and its conversion; see emulate_options.h.
#include "tools/emulate_options.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/progress.h"
#include "capture/capture.h"

namespace hwt::tools {
namespace {

using K = report::OptionKind;

#define HWT_FIELD(member) \
  [](EmulateFlags& f) -> report::OptionTarget { return &f.member; }

constexpr char kEmulateAbout[] =
    "Records a real x86-64 program's user-mode execution in software and "
    "writes it as a genuine Intel PT capture bundle (PT encoded with "
    "libipt, HWT records, image copies, and truth/ with the exact "
    "instruction counts and folded stacks the decoder must reproduce).\n\n"
    "Example: hwt-emulate -o fib.hwt -- ./fib 20";

report::OptionTable<EmulateFlags> BuildEmulateTable() {
  report::OptionTable<EmulateFlags> table;
  table.tool = {
      .name = "hwt-emulate", .about = kEmulateAbout, .column_width = 34};
  table.rows = {
      {{.names = "-o,--output",
        .help = "bundle directory to write (NAME.hwt)",
        .required = true},
       HWT_FIELD(output)},
      {{.names = "--force",
        .kind = K::kFlag,
        .help = "replace an existing bundle"},
       HWT_FIELD(force)},
      {{.names = "--raw",
        .help = "also write the bare PT stream (as hwt(8) saves it) to FILE"},
       HWT_FIELD(raw)},
      {{.names = "--recorder",
        .help = "auto (valgrind when installed, else ptrace; said on "
                "stderr), valgrind (millions of insn/s; no threads or "
                "generated code) or ptrace (~20k insn/s)",
        .default_value = "auto",
        .show_default = true,
        .choices = {"auto", "ptrace", "valgrind"}},
       HWT_FIELD(recorder)},
      {{.names = "--cpu",
        .help = "CPU the capture claims, FAMILY/MODEL[/STEPPING] (libipt "
                "applies its errata)",
        .default_value = "6/85/4",
        .show_default = true},
       HWT_FIELD(cpu)},
      {{.names = "--psb-period",
        .help = "bytes of trace between PSB+ packets",
        .default_value = "4096",
        .show_default = true},
       HWT_FIELD(psb_period)},
      {{.names = "--no-return-compression",
        .kind = K::kFlag,
        .help = "write every return as a TIP (RTIT_CTL.DisRETC=1)"},
       HWT_FIELD(no_return_compression)},
      {{.names = "--long-tnt",
        .kind = K::kFlag,
        .help = "use long TNT packets (up to 47 bits)"},
       HWT_FIELD(long_tnt)},
      {{.names = "--timing",
        .help = "timing packets: none, tsc, mtc, cyc, or a comma list "
                "(e.g. tsc,mtc,cyc)",
        .default_value = "none",
        .show_default = true},
       HWT_FIELD(timing)},
      {{.names = "--overflow",
        .kind = K::kRepeated,
        .help = "inject an overflow losing COUNT instructions from "
                "instruction FIRST (1-based): FIRST[:COUNT]; repeatable"},
       HWT_FIELD(overflows)},
      {{.names = "--max-instructions",
        .help = "stop the program after this many instructions"},
       HWT_FIELD(max_instructions)},
      {{.names = "--no-images",
        .kind = K::kFlag,
        .help = "do not copy the images into the bundle"},
       HWT_FIELD(no_images)},
      {{.names = "--stdin", .help = "file for the program's stdin"},
       HWT_FIELD(stdin_path)},
      {{.names = "--program-output",
        .help = "file for the program's stdout (default: inherited)"},
       HWT_FIELD(program_output)},
      {{.names = "--label",
        .kind = K::kRepeated,
        .help = "KEY=VALUE: a label in the manifest (repeatable), for "
                "hwt-batch run --group-by KEY"},
       HWT_FIELD(labels)},
      {{.names = "program",
        .kind = K::kPositional,
        .help = "program and its arguments (after --)",
        .required = true},
       HWT_FIELD(program)},
  };
  return table;
}

#undef HWT_FIELD

// "FIRST[:COUNT]" -> overflow injection.
bool ParseOverflow(const std::string& text, recorder::PtOverflow* out) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.empty() || parts.size() > 2) return false;
  if (!absl::SimpleAtoi(parts[0], &out->first_instruction)) return false;
  out->instructions = 1;
  if (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &out->instructions)) {
    return false;
  }
  return out->first_instruction >= 1 && out->instructions >= 1;
}

absl::Status ParseTiming(const std::string& timing,
                         recorder::EmulateOptions& options) {
  for (absl::string_view kind : absl::StrSplit(timing, ',')) {
    if (kind == "none") continue;
    if (kind == "tsc") {
      options.encoder.timing.tsc = true;
    } else if (kind == "mtc") {
      options.encoder.timing.mtc = true;
    } else if (kind == "cyc") {
      options.encoder.timing.cyc = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--timing: expected none, tsc, mtc, cyc or a comma list, got '", kind,
          "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

const report::OptionTable<EmulateFlags>& EmulateOptionTable() {
  static const report::OptionTable<EmulateFlags>* const table =
      new report::OptionTable<EmulateFlags>(BuildEmulateTable());
  return *table;
}

absl::StatusOr<recorder::EmulateOptions> EmulateOptionsFromFlags(
    const EmulateFlags& flags) {
  recorder::EmulateOptions options;
  options.bundle = flags.output;
  options.overwrite = flags.force;
  options.raw_trace = flags.raw;
  options.recorder =
      flags.recorder == "valgrind" ? recorder::RecorderKind::kValgrind
      : flags.recorder == "ptrace" ? recorder::RecorderKind::kPtrace
                                   : recorder::RecorderKind::kAuto;
  absl::StatusOr<capture::CpuIdentity> cpu = capture::ParseCpuSpec(flags.cpu);
  if (!cpu.ok()) return cpu.status();
  options.cpu = *cpu;
  options.encoder.psb_period = flags.psb_period;
  options.encoder.return_compression = !flags.no_return_compression;
  options.encoder.long_tnt = flags.long_tnt;
  if (absl::Status timing = ParseTiming(flags.timing, options); !timing.ok()) {
    return timing;
  }
  for (const std::string& text : flags.overflows) {
    recorder::PtOverflow overflow;
    if (!ParseOverflow(text, &overflow)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--overflow: expected FIRST[:COUNT] (FIRST >= 1), got '", text, "'"));
    }
    options.encoder.overflows.push_back(overflow);
  }
  std::sort(options.encoder.overflows.begin(), options.encoder.overflows.end(),
            [](const auto& a, const auto& b) {
              return a.first_instruction < b.first_instruction;
            });
  options.max_instructions = flags.max_instructions;
  options.copy_images = !flags.no_images;
  options.stdin_path = flags.stdin_path;
  options.stdout_path = flags.program_output;
  for (const std::string& label : flags.labels) {
    const size_t eq = label.find('=');
    if (eq == 0 || eq == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--label: expected KEY=VALUE, got '", label, "'"));
    }
    options.labels[label.substr(0, eq)] = label.substr(eq + 1);
  }
  options.argv = flags.program;
  return options;
}

std::string EmulateSummary(const recorder::EmulateResult& r,
                           const std::string& tool) {
  const double bytes_per_insn =
      r.truth_instructions
          ? static_cast<double>(r.encoder.bytes) / r.truth_instructions
          : 0.0;
  return absl::StrFormat(
      "%s: recorded %u instructions in %.1f s (%s, program exit status %d)\n"
      "%s: wrote %s: %s of PT, %u PSBs, %.2f bytes/instruction%s\n",
      tool, r.truth_instructions, r.recording.seconds, r.recorder,
      r.recording.exit_status, tool, r.bundle, FormatBytes(r.encoder.bytes),
      r.encoder.psbs, bytes_per_insn,
      r.encoder.lost_instructions
          ? absl::StrFormat(", %u instructions lost to injected overflows",
                            r.encoder.lost_instructions)
          : "");
}

}  // namespace hwt::tools
