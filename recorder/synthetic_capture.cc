// Synthetic PT captures; see synthetic_capture.h.
#include "recorder/synthetic_capture.h"

#include <sys/stat.h>

#include <algorithm>

#include "absl/strings/str_format.h"
#include "base/file_util.h"
#include "base/status_macros.h"

namespace hwt::recorder {
namespace {

// Trace bytes per instruction of `program` under `options`, measured on a
// short execution.
absl::StatusOr<double> BytesPerInstruction(
    const SyntheticProgram& program, const SyntheticCaptureOptions& options) {
  auto source = program.NewInsnSource();
  uint64_t bytes = 0;
  PtEncoder encoder(source.get(), options.encoder, [&](std::string_view data) {
    bytes += data.size();
    return absl::OkStatus();
  });
  SyntheticExecutionOptions run;
  run.seed = options.execution_seed;
  run.instructions = 2'000'000;
  const auto stats = RunSyntheticExecution(program, run, &encoder);
  HWT_RETURN_IF_ERROR(encoder.Finish());
  return static_cast<double>(bytes) /
         static_cast<double>(std::max<uint64_t>(stats.instructions, 1));
}

}  // namespace

absl::StatusOr<SyntheticCapture> OpenRawCodeCapture(
    const std::string& trace_path, const std::string& code_path,
    uint64_t base) {
  SyntheticCapture result;
  result.trace_path = trace_path;
  result.code_path = code_path;
  struct stat trace_stat, code_stat;
  if (stat(trace_path.c_str(), &trace_stat) != 0) {
    return absl::NotFoundError(ErrnoMessage(trace_path, "stat", errno));
  }
  if (stat(code_path.c_str(), &code_stat) != 0) {
    return absl::NotFoundError(ErrnoMessage(code_path, "stat", errno));
  }
  const std::string dir = trace_path.substr(0, trace_path.rfind('/') + 1);
  capture::Manifest manifest;
  manifest.backend = capture::Backend::kPt;
  manifest.mode = capture::TraceMode::kThread;
  manifest.cpu.vendor = "GenuineIntel";
  manifest.cpu.family = 6;
  manifest.cpu.model = 85;
  manifest.cpu.stepping = 4;
  capture::BufferInfo buffer;
  buffer.id = 0;
  buffer.thread = 0;
  buffer.file = trace_path.substr(dir.size());
  buffer.size = static_cast<uint64_t>(trace_stat.st_size);
  manifest.buffers.push_back(buffer);
  result.capture = std::make_unique<capture::Capture>(
      capture::InputKind::kBundleDirectory, dir, dir, std::move(manifest),
      std::vector<capture::Record>{}, capture::InputOptions{}, std::nullopt);
  result.timeline.SetBufferCount(1);
  capture::Image image;
  image.recorded_path = code_path;
  image.file = code_path;
  image.is_elf = false;
  capture::Region region;
  region.image = result.timeline.AddImage(image);
  region.start = base;
  region.end = base + static_cast<uint64_t>(code_stat.st_size);
  region.file_offset = 0;
  region.file_size = static_cast<uint64_t>(code_stat.st_size);
  capture::AddressSpaceChange change;
  change.kind = capture::AddressSpaceChange::Kind::kMap;
  change.position = 0;
  change.region = result.timeline.AddRegion(region);
  result.timeline.AddChange(0, change);
  return result;
}

absl::StatusOr<SyntheticCapture> WriteSyntheticCapture(
    const std::string& dir, const SyntheticCaptureOptions& options) {
  auto program = std::make_unique<SyntheticProgram>(
      SyntheticProgram::Generate(options.program));
  const std::string code_path = dir + "/code.bin";
  const std::string trace_path = dir + "/trace.pt";
  HWT_RETURN_IF_ERROR(program->WriteCode(code_path));

  SyntheticExecutionOptions run;
  run.seed = options.execution_seed;
  run.instructions = options.instructions;
  run.code_path = code_path;
  if (options.target_bytes != 0) {
    HWT_ASSIGN_OR_RETURN(const double per_insn,
                         BytesPerInstruction(*program, options));
    run.instructions = static_cast<uint64_t>(
        static_cast<double>(options.target_bytes) / std::max(per_insn, 1e-3));
  }
  HWT_ASSIGN_OR_RETURN(AtomicFileWriter writer,
                       AtomicFileWriter::Create(trace_path));
  auto source = program->NewInsnSource();
  PtEncoder encoder(
      source.get(), options.encoder,
      [&writer](std::string_view data) { return writer.Write(data); });
  const SyntheticExecutionStats execution =
      RunSyntheticExecution(*program, run, &encoder);
  HWT_RETURN_IF_ERROR(encoder.Finish());
  HWT_RETURN_IF_ERROR(writer.Commit());

  HWT_ASSIGN_OR_RETURN(
      SyntheticCapture result,
      OpenRawCodeCapture(trace_path, code_path, program->base()));
  result.program = std::move(program);
  result.encoder = encoder.stats();
  result.execution = execution;
  return result;
}

absl::StatusOr<SyntheticCapture> OpenSyntheticCapture(
    const std::string& dir, const SyntheticProgramOptions& program) {
  auto generated =
      std::make_unique<SyntheticProgram>(SyntheticProgram::Generate(program));
  HWT_ASSIGN_OR_RETURN(SyntheticCapture result,
                       OpenRawCodeCapture(dir + "/trace.pt", dir + "/code.bin",
                                          generated->base()));
  HWT_ASSIGN_OR_RETURN(const std::string code,
                       ReadFileToString(dir + "/code.bin"));
  if (code != generated->code()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s/code.bin is not the code of the synthetic program with seed %u",
        dir, program.seed));
  }
  result.program = std::move(generated);
  return result;
}

std::vector<SyntheticFunction> SyntheticFunctions(
    const SyntheticProgram& program) {
  std::vector<SyntheticFunction> by_function(
      static_cast<size_t>(program.function_count()) + 1);
  for (const auto& insn : program.instructions()) {
    if (insn.function < 0 ||
        static_cast<size_t>(insn.function) >= by_function.size()) {
      continue;
    }
    SyntheticFunction& range = by_function[insn.function];
    if (range.end == 0) {
      range.start = insn.ip;
      range.end = insn.ip + insn.length;
    } else {
      range.start = std::min(range.start, insn.ip);
      range.end = std::max(range.end, insn.ip + insn.length);
    }
  }
  std::vector<SyntheticFunction> ranges;
  for (const auto& range : by_function) {
    if (range.end != 0) ranges.push_back(range);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  return ranges;
}

}  // namespace hwt::recorder
