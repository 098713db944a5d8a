// hwt-emulate: records a real x86-64 program in software (valgrind with the
// hwttrace tool, or ptrace single-stepping) and writes a genuine Intel PT
// capture bundle with its ground truth. A thin front end over
// recorder/emulate.h.
#include <cstdio>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/progress.h"
#include "capture/capture.h"
#include "recorder/emulate.h"
#include "tools/tool_common.h"

namespace {

constexpr char kTool[] = "hwt-emulate";

// "FIRST[:COUNT]" -> overflow injection.
bool ParseOverflow(const std::string& text, hwt::recorder::PtOverflow* out) {
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.empty() || parts.size() > 2) return false;
  if (!absl::SimpleAtoi(parts[0], &out->first_instruction)) return false;
  out->instructions = 1;
  if (parts.size() == 2 && !absl::SimpleAtoi(parts[1], &out->instructions)) {
    return false;
  }
  return out->first_instruction >= 1 && out->instructions >= 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Records a real x86-64 program's user-mode execution in software and "
      "writes it as a genuine Intel PT capture bundle (PT encoded with "
      "libipt, HWT records, image copies, and truth/ with the exact "
      "instruction counts and folded stacks the decoder must reproduce).\n\n"
      "Example: hwt-emulate -o fib.hwt -- ./fib 20",
      kTool};
  app.get_formatter()->column_width(34);
  hwt::recorder::EmulateOptions options;
  std::string recorder = "auto";
  std::string cpu = "6/85/4";
  std::string timing = "none";
  std::vector<std::string> overflows;
  app.add_option("-o,--output", options.bundle,
                 "bundle directory to write (NAME.hwt)")
      ->required();
  app.add_flag("--force", options.overwrite, "replace an existing bundle");
  app.add_option("--raw", options.raw_trace,
                 "also write the bare PT stream (as hwt(8) saves it) to FILE");
  app.add_option("--recorder", recorder,
                 "auto (valgrind when installed, else ptrace; said on "
                 "stderr), valgrind (millions of insn/s; no threads or "
                 "generated code) or ptrace (~20k insn/s)")
      ->check(CLI::IsMember({"auto", "ptrace", "valgrind"}))
      ->capture_default_str();
  app.add_option("--cpu", cpu,
                 "CPU the capture claims, FAMILY/MODEL[/STEPPING] (libipt "
                 "applies its errata)")
      ->capture_default_str();
  app.add_option("--psb-period", options.encoder.psb_period,
                 "bytes of trace between PSB+ packets")
      ->capture_default_str();
  bool no_retc = false;
  app.add_flag("--no-return-compression", no_retc,
               "write every return as a TIP (RTIT_CTL.DisRETC=1)");
  app.add_flag("--long-tnt", options.encoder.long_tnt,
               "use long TNT packets (up to 47 bits)");
  app.add_option("--timing", timing,
                 "timing packets: none, tsc, mtc, cyc, or a comma list "
                 "(e.g. tsc,mtc,cyc)")
      ->capture_default_str();
  app.add_option(
      "--overflow", overflows,
      "inject an overflow losing COUNT instructions from instruction "
      "FIRST (1-based): FIRST[:COUNT]; repeatable");
  app.add_option("--max-instructions", options.max_instructions,
                 "stop the program after this many instructions");
  app.add_flag(
      "--no-images", [&](int64_t) { options.copy_images = false; },
      "do not copy the images into the bundle");
  app.add_option("--stdin", options.stdin_path, "file for the program's stdin");
  app.add_option("--program-output", options.stdout_path,
                 "file for the program's stdout (default: inherited)");
  app.add_option("program", options.argv,
                 "program and its arguments (after --)")
      ->required();

  int exit_code = 0;
  if (!hwt::tools::ParseCommandLine(app, argc, argv, &exit_code)) {
    return exit_code;
  }
  options.recorder =
      recorder == "valgrind" ? hwt::recorder::RecorderKind::kValgrind
      : recorder == "ptrace" ? hwt::recorder::RecorderKind::kPtrace
                             : hwt::recorder::RecorderKind::kAuto;
  options.notify = [](const std::string& message) {
    fprintf(stderr, "%s: %s\n", kTool, message.c_str());
  };
  auto parsed_cpu = hwt::capture::ParseCpuSpec(cpu);
  if (!parsed_cpu.ok()) {
    hwt::tools::PrintError(kTool, std::string(parsed_cpu.status().message()));
    return hwt::tools::kExitUsage;
  }
  options.cpu = *parsed_cpu;
  options.encoder.return_compression = !no_retc;
  for (const std::string& kind :
       std::vector<std::string>(absl::StrSplit(timing, ','))) {
    if (kind == "none") continue;
    if (kind == "tsc") {
      options.encoder.timing.tsc = true;
    } else if (kind == "mtc") {
      options.encoder.timing.mtc = true;
    } else if (kind == "cyc") {
      options.encoder.timing.cyc = true;
    } else {
      hwt::tools::PrintError(
          kTool,
          "--timing: expected none, tsc, mtc, cyc or a comma list, got '" +
              kind + "'");
      return hwt::tools::kExitUsage;
    }
  }
  for (const std::string& text : overflows) {
    hwt::recorder::PtOverflow overflow;
    if (!ParseOverflow(text, &overflow)) {
      hwt::tools::PrintError(
          kTool, "--overflow: expected FIRST[:COUNT] (FIRST >= 1), got '" +
                     text + "'");
      return hwt::tools::kExitUsage;
    }
    options.encoder.overflows.push_back(overflow);
  }
  std::sort(options.encoder.overflows.begin(), options.encoder.overflows.end(),
            [](const auto& a, const auto& b) {
              return a.first_instruction < b.first_instruction;
            });

  auto result = hwt::recorder::RecordCapture(options);
  if (!result.ok()) {
    return hwt::tools::Fail(kTool, result.status());
  }
  const auto& r = *result;
  fprintf(stderr,
          "%s: recorded %llu instructions in %.1f s (%s, program exit status "
          "%d)\n"
          "%s: wrote %s: %s of PT, %llu PSBs, %.2f bytes/instruction%s\n",
          kTool, static_cast<unsigned long long>(r.truth_instructions),
          r.recording.seconds, r.recorder.c_str(), r.recording.exit_status,
          kTool, r.bundle.c_str(), hwt::FormatBytes(r.encoder.bytes).c_str(),
          static_cast<unsigned long long>(r.encoder.psbs),
          r.truth_instructions ? double(r.encoder.bytes) / r.truth_instructions
                               : 0.0,
          r.encoder.lost_instructions
              ? absl::StrFormat(", %u instructions lost to injected overflows",
                                r.encoder.lost_instructions)
                    .c_str()
              : "");
  return hwt::tools::kExitOk;
}
